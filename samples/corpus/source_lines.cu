// Kernels whose flaw sits on one source line, for issue #39's "which line?": each finding
// with a line cause must name that line from ncu's source page.
//   1. transpose_conflicted: a 32x32 tiled transpose whose tile is read by column, so a
//      warp's 32 lanes read 32 words 128 bytes apart: one bank, a 32-way conflict on the
//      read line (the store to global is coalesced).
//   2. reduce_strided_index: a block sum with sdata[index] += sdata[index + s], index =
//      2 * s * tid: lanes 2s words apart, 2- to 32-way conflicts on that line.
//   3. local_dynamic_index: a per-thread array of 32 floats indexed by a value read from
//      memory: the compiler puts it in local memory; the loads and stores are on the line
//      that indexes it.
//   4. divergent_by_lane: odd and even lanes take different 64-step math loops: every
//      warp runs both, on the branch line.
// Each runs once; the program checks nothing but prints a checksum so nothing is dead.
//   usage: source_lines [N]   (default N 4096: a 4096^2 transpose, 2^24 elements elsewhere)
//
// What an expert expects, written from this source before any capture (2026-12-02):
// - transpose_conflicted: bank-conflicts, on the line `out[...] = tile[threadIdx.x][...]`
//   (about 97% of its shared wavefronts are replays), its array `__shared__ float
//   tile[TILE][TILE]`, and the mechanical fix tile[TILE][TILE + 1]. No coalescing finding.
// - reduce_strided_index: bank-conflicts on `sdata[index] += sdata[index + s]`; its array is
//   1D, so no edit (the fix is sequential addressing, a rewrite).
// - local_dynamic_index: local-memory, on the line `acc[idx[i] & 31] += ...`.
// - divergent_by_lane: divergent-warps, on the line `if (threadIdx.x & 1)`.
#include <cstdio>
#include <cstdlib>
#include <vector>

#define TILE 32
#define ROWS 8

__global__ void transpose_conflicted(const float* in, float* out, int n) {
  __shared__ float tile[TILE][TILE];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void reduce_strided_index(const int* in, int* out, int n) {
  extern __shared__ int sdata[];
  unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  sdata[tid] = i < n ? in[i] : 0;
  __syncthreads();
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    unsigned index = 2 * s * tid;
    if (index < blockDim.x) sdata[index] += sdata[index + s];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void local_dynamic_index(const float* in, const int* idx, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc[32];
#pragma unroll
  for (int k = 0; k < 32; ++k) acc[k] = 0.0f;
  for (int k = 0; k < 32; ++k) acc[idx[(i + k) % n] & 31] += in[i] * k;
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 32; ++k) s += acc[k];
  out[i] = s;
}

__global__ void divergent_by_lane(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i];
  if (threadIdx.x & 1) {
    for (int k = 0; k < 64; ++k) v = sinf(v) * 1.0001f + 0.5f;
  } else {
    for (int k = 0; k < 64; ++k) v = cosf(v) * 0.9999f - 0.5f;
  }
  out[i] = v;
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  int elems = 1 << 24;
  float *a, *b;
  int *ia, *ib;
  cudaMalloc(&a, sizeof(float) * n * n);
  cudaMalloc(&b, sizeof(float) * n * n);
  cudaMalloc(&ia, sizeof(int) * elems);
  cudaMalloc(&ib, sizeof(int) * elems);
  cudaMemset(a, 0, sizeof(float) * n * n);
  std::vector<int> host(elems);
  for (int k = 0; k < elems; ++k) host[k] = (k * 7919) % 1000;
  cudaMemcpy(ia, host.data(), sizeof(int) * elems, cudaMemcpyHostToDevice);
  transpose_conflicted<<<dim3(n / TILE, n / TILE), dim3(TILE, ROWS)>>>(a, b, n);
  reduce_strided_index<<<elems / 256, 256, 256 * sizeof(int)>>>(ia, ib, elems);
  local_dynamic_index<<<elems / 256, 256>>>(a, ia, b, elems);
  divergent_by_lane<<<elems / 256, 256>>>(a, b, elems);
  int sum = 0;
  cudaMemcpy(&sum, ib, sizeof(int), cudaMemcpyDeviceToHost);
  printf("source_lines: checksum %d (%s)\n", sum, cudaGetErrorString(cudaDeviceSynchronize()));
  return 0;
}
