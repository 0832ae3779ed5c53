// A 2D five-point Jacobi stencil on 16x16 blocks, Hotspot-style: threads cover the
// interior only, so x starts at 1 and every row of a block begins one float past a
// 64-byte boundary.
//   usage: stencil2d [n=4096] [iterations=10]
#include "../src/common.cuh"

__global__ void jacobi2d(const float* in, float* out, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x + 1;
  int y = blockIdx.y * blockDim.y + threadIdx.y + 1;
  if (x >= n - 1 || y >= n - 1) return;
  size_t c = size_t(y) * n + x;
  out[c] = 0.2f * (in[c] + in[c - 1] + in[c + 1] + in[c - n] + in[c + n]);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  int iters = argc > 2 ? atoi(argv[2]) : 10;
  float* a = device_floats(size_t(n) * n);
  float* b = device_floats(size_t(n) * n);
  dim3 block(16, 16), grid((n - 2 + 15) / 16, (n - 2 + 15) / 16);
  for (int it = 0; it < iters; it++) {
    jacobi2d<<<grid, block>>>(a, b, n);
    std::swap(a, b);
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("stencil2d %d x %d, %d iterations\n", n, n, iters);
  return 0;
}
