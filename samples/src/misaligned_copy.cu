// The coalesced copy on pointers one float past a 256-byte boundary: 5 sectors per
// 4-byte request instead of 4. gpulint should call it misalignment, not a stride.
#include "common.cuh"

__global__ void copy_coalesced(const float* in, float* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = in[i];
}

int main() {
  float* in = device_floats(kN + 1);
  float* out = device_floats(kN + 1);
  copy_coalesced<<<kN / 256, 256>>>(in + 1, out + 1, kN);
  CHECK(cudaDeviceSynchronize());
  std::printf("misaligned_copy: done\n");
  return 0;
}
