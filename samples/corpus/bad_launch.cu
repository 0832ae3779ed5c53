// A launch that fails: 2048 threads per block is over every GPU's limit of 1024, so the
// launch returns cudaErrorInvalidConfiguration and the kernel never runs. The program
// checks the error, reports it and goes on, as real programs that retry with a smaller
// block do.
//   usage: bad_launch
#include "../src/common.cuh"

__global__ void scale(float* data, float factor, size_t n) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

int main() {
  float* data = device_floats(kN);
  scale<<<kN / 2048, 2048>>>(data, 2.0f, kN);
  cudaError_t err = cudaGetLastError();
  std::printf("launch with 2048 threads per block: %s\n", cudaGetErrorString(err));
  scale<<<kN / 256, 256>>>(data, 2.0f, kN);
  CHECK(cudaDeviceSynchronize());
  std::printf("launch with 256 threads per block: ok\n");
  return 0;
}
