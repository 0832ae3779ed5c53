// A 3D seven-point stencil that marches along z: each thread owns one (x, y) column,
// keeps the planes below and at z in registers and loads the plane above. 32x8 blocks,
// x starting at 0, so rows are aligned; the x-1 and x+1 neighbours straddle sectors by
// design and mostly hit in L1.
//   usage: stencil3d [nx=512] [ny=512] [nz=64] [iterations=5]
#include "../src/common.cuh"

__global__ void stencil7_zmarch(const float* __restrict__ in, float* __restrict__ out, int nx,
                                int ny, int nz) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= nx - 1 || y >= ny - 1) return;
  size_t plane = size_t(nx) * ny;
  size_t c = size_t(y) * nx + x;
  float below = in[c];
  float here = in[c + plane];
  for (int z = 1; z < nz - 1; z++) {
    size_t i = c + z * plane;
    float above = in[i + plane];
    out[i] = 0.4f * here + 0.1f * (below + above + in[i - 1] + in[i + 1] + in[i - nx] + in[i + nx]);
    below = here;
    here = above;
  }
}

int main(int argc, char** argv) {
  int nx = argc > 1 ? atoi(argv[1]) : 512;
  int ny = argc > 2 ? atoi(argv[2]) : 512;
  int nz = argc > 3 ? atoi(argv[3]) : 64;
  int iters = argc > 4 ? atoi(argv[4]) : 5;
  size_t n = size_t(nx) * ny * nz;
  float* a = device_floats(n);
  float* b = device_floats(n);
  dim3 block(32, 8), grid((nx + 31) / 32, (ny + 7) / 8);
  for (int it = 0; it < iters; it++) {
    stencil7_zmarch<<<grid, block>>>(a, b, nx, ny, nz);
    std::swap(a, b);
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("stencil3d %d x %d x %d, %d iterations\n", nx, ny, nz, iters);
  return 0;
}
