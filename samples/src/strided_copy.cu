// Lane i reads element (i * stride) mod n: strides 2, 8 and 32 words.
// gpulint should flag uncoalesced loads and stores, 50% and 12.5% of each sector used.
#include "common.cuh"

__global__ void copy_strided(const float* in, float* out, size_t n, int stride) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) {
    size_t j = (i * stride) % n + (i * stride) / n;  // a permutation for power-of-two n
    out[j] = in[j];
  }
}

int main(int argc, char** argv) {
  float* in = device_floats(kN);
  float* out = device_floats(kN);
  for (int stride : {2, 8, 32}) copy_strided<<<kN / 256, 256>>>(in, out, kN, stride);
  CHECK(cudaDeviceSynchronize());
  std::printf("strided_copy: done (%d args)\n", argc - 1);
  (void)argv;
  return 0;
}
