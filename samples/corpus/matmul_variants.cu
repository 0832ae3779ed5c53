// Four ways to multiply two 2048x2048 matrices, for GL502 load-store-bound. What an expert
// expects of each, written before gpulint was run on it:
// - `matmul_naive`: one output per thread, A and B read through L1 for every FMA. The L1
//   load/store pipe saturates (above 90%) while FP32 stays near 10% of its peak:
//   load-store-bound.
// - `matmul_shared16`: 16x16 tiles staged in shared memory, still one output per thread, so
//   two shared loads per FMA: the pipe still saturates, FP32 near 10%: load-store-bound.
// - `matmul_regtile`: 64x64 block tiles, each thread a 4x4 block of outputs kept in
//   registers and read from shared memory as float4: 16 FMAs per two 16-byte shared loads.
//   The pipe well under 80%, FP32 several times the others' share: not load-store-bound.
// - `matmul_regtile_rows` (added after the first run, expectations written before the second):
//   the same 4x4 blocks, with A's tile kept as rows padded to 17 floats, so its staging
//   stores hit 16 different banks; each k-step reads four A values (two addresses per warp)
//   and one float4 of B. No bank conflicts, the pipe under 80%, FP32 above matmul_regtile's
//   share: quiet.
// - `matmul_wmma`: tensor cores (FP16 in, FP32 accumulate), 16x16x16 fragments straight
//   from global memory: the tensor pipe is busy and the FP32 counters see none of its work:
//   not load-store-bound, whatever its L1 pipe does.
// On the H200 (lab/gpu-runs.md): the first two as expected (pipe 97% and 95%, FP32 8% and
// 9%). matmul_regtile was not quiet: its transposed staging store conflicts (37% of shared
// wavefronts), which bank-conflicts reports. matmul_wmma's tensor pipe was 4% busy, its
// load/store pipe 96%: load-bound after all.
//   usage: matmul_variants [n=2048]
#include <mma.h>
#include <cuda_fp16.h>
#include <cstdlib>
#include "../src/common.cuh"

__global__ void matmul_naive(const float* A, const float* B, float* C, int n) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; k++) acc += A[row * n + k] * B[k * n + col];
  C[row * n + col] = acc;
}

__global__ void matmul_shared16(const float* A, const float* B, float* C, int n) {
  __shared__ float a[16][17], b[16][17];
  int row = blockIdx.y * 16 + threadIdx.y;
  int col = blockIdx.x * 16 + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < n; t += 16) {
    a[threadIdx.y][threadIdx.x] = A[row * n + t + threadIdx.x];
    b[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + col];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; k++) acc += a[threadIdx.y][k] * b[k][threadIdx.x];
    __syncthreads();
  }
  C[row * n + col] = acc;
}

// 256 threads compute a 64x64 tile of C; thread (ty, tx) of a 16x16 grid owns rows 4*ty..
// and columns 4*tx... A's tile is stored transposed so that both operands load as float4.
__global__ void __launch_bounds__(256) matmul_regtile(const float* A, const float* B, float* C,
                                                      int n) {
  __shared__ __align__(16) float at[16][64];  // at[k][m] = A[m][k]
  __shared__ __align__(16) float bs[16][64];  // bs[k][j] = B[k][j]
  int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
  float acc[4][4] = {};
  for (int t = 0; t < n; t += 16) {
    // 1,024 values of each operand per tile, 4 per thread.
    for (int e = threadIdx.x; e < 1024; e += 256) {
      int m = e / 16, k = e % 16;
      at[k][m] = A[(row0 + m) * n + t + k];
      int kk = e / 64, j = e % 64;
      bs[kk][j] = B[(t + kk) * n + col0 + j];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; k++) {
      float4 a4 = *reinterpret_cast<const float4*>(&at[k][4 * ty]);
      float4 b4 = *reinterpret_cast<const float4*>(&bs[k][4 * tx]);
      float a[4] = {a4.x, a4.y, a4.z, a4.w}, b[4] = {b4.x, b4.y, b4.z, b4.w};
#pragma unroll
      for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) C[(row0 + 4 * ty + i) * n + col0 + 4 * tx + j] = acc[i][j];
}

// As matmul_regtile, with A's tile stored as it is read: as[m][k], rows padded to 17.
__global__ void __launch_bounds__(256) matmul_regtile_rows(const float* A, const float* B,
                                                           float* C, int n) {
  __shared__ float as[64][17];
  __shared__ __align__(16) float bs[16][64];
  int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
  int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
  float acc[4][4] = {};
  for (int t = 0; t < n; t += 16) {
    for (int e = threadIdx.x; e < 1024; e += 256) {
      int m = e / 16, k = e % 16;
      as[m][k] = A[(row0 + m) * n + t + k];
      int kk = e / 64, j = e % 64;
      bs[kk][j] = B[(t + kk) * n + col0 + j];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < 16; k++) {
      float4 b4 = *reinterpret_cast<const float4*>(&bs[k][4 * tx]);
      float a[4] = {as[4 * ty][k], as[4 * ty + 1][k], as[4 * ty + 2][k], as[4 * ty + 3][k]};
      float b[4] = {b4.x, b4.y, b4.z, b4.w};
#pragma unroll
      for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) C[(row0 + 4 * ty + i) * n + col0 + 4 * tx + j] = acc[i][j];
}

// One warp per 16x16 tile of C.
__global__ void matmul_wmma(const half* A, const half* B, float* C, int n) {
  using namespace nvcuda;
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int tiles = n / 16;
  int tile_row = warp / tiles, tile_col = warp % tiles;
  if (tile_row >= tiles) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
  wmma::fill_fragment(c, 0.0f);
  for (int k = 0; k < n; k += 16) {
    wmma::load_matrix_sync(a, A + tile_row * 16 * n + k, n);
    wmma::load_matrix_sync(b, B + k * n + tile_col * 16, n);
    wmma::mma_sync(c, a, b, c);
  }
  wmma::store_matrix_sync(C + tile_row * 16 * n + tile_col * 16, c, n, wmma::mem_row_major);
}

__global__ void fill(float* x, half* h, size_t count) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < count) {
    x[i] = float(i % 7) * 0.25f;
    h[i] = __float2half(x[i]);
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 2048;
  size_t count = size_t(n) * n;
  float *A, *B, *C;
  half *Ah, *Bh;
  CHECK(cudaMalloc(&A, count * sizeof(float)));
  CHECK(cudaMalloc(&B, count * sizeof(float)));
  CHECK(cudaMalloc(&C, count * sizeof(float)));
  CHECK(cudaMalloc(&Ah, count * sizeof(half)));
  CHECK(cudaMalloc(&Bh, count * sizeof(half)));
  int blocks = int((count + 255) / 256);
  fill<<<blocks, 256>>>(A, Ah, count);
  fill<<<blocks, 256>>>(B, Bh, count);
  dim3 b16(16, 16), g16(n / 16, n / 16);
  matmul_naive<<<g16, b16>>>(A, B, C, n);
  matmul_shared16<<<g16, b16>>>(A, B, C, n);
  matmul_regtile<<<dim3(n / 64, n / 64), 256>>>(A, B, C, n);
  matmul_regtile_rows<<<dim3(n / 64, n / 64), 256>>>(A, B, C, n);
  int warps = (n / 16) * (n / 16);
  matmul_wmma<<<(warps * 32 + 255) / 256, 256>>>(Ah, Bh, C, n);
  CHECK(cudaDeviceSynchronize());
  float c0 = 0;
  CHECK(cudaMemcpy(&c0, C, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("matmul_variants %d: C[0] = %f\n", n, c0);
  return 0;
}
