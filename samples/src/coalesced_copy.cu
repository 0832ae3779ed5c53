// Stride-1 copy: every byte of every sector is used. gpulint should say nothing.
#include "common.cuh"

__global__ void copy_coalesced(const float* in, float* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = in[i];
}

int main() {
  float* in = device_floats(kN);
  float* out = device_floats(kN);
  copy_coalesced<<<kN / 256, 256>>>(in, out, kN);
  CHECK(cudaDeviceSynchronize());
  std::printf("coalesced_copy: done\n");
  return 0;
}
