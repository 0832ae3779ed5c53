// Slow kernels that saturate nothing (issue #40's middle ground), each beside its fix:
//   1. gemm_global_acc: a 512^3 FP32 GEMM, one thread per output, whose accumulator is the
//      output itself: C[i][j] += A[i][k] * B[k][j] in global memory every k. Without
//      __restrict__ the compiler must assume the store to C may change A or B, so every
//      iteration loads C, waits for it, adds and stores it back: a chain of dependent
//      global read-modify-writes.
//   2. gemm_register_acc: the same product with the sum in a register and __restrict__
//      pointers: one store per output at the end.
//   3. walk_global: each warp follows its own linked list of 128-byte nodes (32 ints, one
//      per lane; lane 0's int is the next node's index) in a 64 MiB table, DRAM-resident:
//      one load in flight per warp, at mid utilisation.
//   4. walk_four: four lists per warp advanced together: four loads in flight.
// Each runs REPEATS times; the program prints each pair's median times (cudaEvent) and
// checks both compute the same. ncu's launch order: 0 gemm_global_acc, 1 gemm_register_acc,
// 2 walk_global, 3 walk_four (REPEATS 1).
//   usage: middle_ground [N [REPEATS]]   (default N 512, 5 times)
//
// What an expert expects, written from this source before any capture (2026-12-02):
// - gemm_global_acc: well under 10% of the FP32 peak; L2 moderately busy (every k touches C
//   in L2), the SM far from saturated; stalls dominated by long scoreboard (each add waits
//   for its load of C). No unit near its roof, so no saturation rule fires; a finding must
//   name the dependent global read-modify-write and the fix (accumulate in a register,
//   __restrict__), with a stake that the fixed twin's gain bears out (expected 3-10x).
// - gemm_register_acc: several times faster; a naive GEMM still, its L1/load-store pipe the
//   busiest unit: load-store-bound may fire; the middle-ground finding must not.
// - walk_global: each hop a DRAM round trip; DRAM and L2 at a small share of their peak,
//   long-scoreboard stalls: latency-bound or the middle-ground finding, naming too few loads
//   in flight; stake bounded by what four lists in flight gain (expected 2-4x).
// - walk_four: faster; fewer stalls per load; still latency-limited but less.
#include <cmath>

#include "pairs_timing.cuh"

__global__ void gemm_global_acc(const float* a, const float* b, float* c, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  c[row * n + col] = 0.0f;
  for (int k = 0; k < n; ++k) c[row * n + col] += a[row * n + k] * b[k * n + col];
}

__global__ void gemm_register_acc(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, int n) {
  int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= n || col >= n) return;
  float acc = 0.0f;
  for (int k = 0; k < n; ++k) acc += a[row * n + k] * b[k * n + col];
  c[row * n + col] = acc;
}

constexpr int HOPS = 48;

__global__ void walk_global(const int* nodes, int* out, int warps) {
  int lane = threadIdx.x % 32, warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (warp >= warps) return;
#pragma unroll 1
  for (int c = 0; c < 4; ++c) {
    int k = warp * 4 + c, s = 0;
    for (int h = 0; h < HOPS; ++h) {
      int v = nodes[k * 32 + lane];
      s += v;
      k = __shfl_sync(0xffffffffu, v, 0);
    }
    out[(warp * 4 + c) * 32 + lane] = s;
  }
}

__global__ void walk_four(const int* nodes, int* out, int warps) {
  int lane = threadIdx.x % 32, warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (warp >= warps) return;
  int k[4], s[4];
#pragma unroll
  for (int c = 0; c < 4; ++c) {
    k[c] = warp * 4 + c;
    s[c] = 0;
  }
  for (int h = 0; h < HOPS; ++h) {
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      int v = nodes[k[c] * 32 + lane];
      s[c] += v;
      k[c] = __shfl_sync(0xffffffffu, v, 0);
    }
  }
#pragma unroll
  for (int c = 0; c < 4; ++c) out[(warp * 4 + c) * 32 + lane] = s[c];
}

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 512;
  if (argc > 2) repeats = std::max(1, std::atoi(argv[2]));
  std::vector<float> ha(n * n), hb(n * n);
  for (int i = 0; i < n * n; ++i) {
    ha[i] = float(i % 13) / 13.0f;
    hb[i] = float(i % 7) / 7.0f;
  }
  float *a, *b, *c1, *c2;
  CHECK(cudaMalloc(&a, n * n * sizeof(float)));
  CHECK(cudaMalloc(&b, n * n * sizeof(float)));
  CHECK(cudaMalloc(&c1, n * n * sizeof(float)));
  CHECK(cudaMalloc(&c2, n * n * sizeof(float)));
  CHECK(cudaMemcpy(a, ha.data(), n * n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, hb.data(), n * n * sizeof(float), cudaMemcpyHostToDevice));
  dim3 block(16, 16), grid((n + 15) / 16, (n + 15) / 16);
  float g1 = median_ms([&] { gemm_global_acc<<<grid, block>>>(a, b, c1, n); });
  float g2 = median_ms([&] { gemm_register_acc<<<grid, block>>>(a, b, c2, n); });
  std::vector<float> r1 = fetch(c1, n * n), r2 = fetch(c2, n * n);
  bool same = true;
  for (int i = 0; i < n * n; ++i) same &= std::abs(r1[i] - r2[i]) <= 1e-3f * std::abs(r2[i]) + 1e-3f;
  print_pair("gemm_global_acc", g1, "gemm_register_acc", g2, same, 18);

  // 512 Ki nodes of 128 bytes: 64 MiB, well past the H200's 50 MB L2.
  int nodes_n = 1 << 19, warps = nodes_n / 4, block1 = 256;
  int grid1 = (warps * 32 + block1 - 1) / block1;
  std::vector<int> host = linked_nodes(nodes_n, 5);
  int *nodes, *o1, *o2;
  CHECK(cudaMalloc(&nodes, size_t(nodes_n) * 32 * sizeof(int)));
  CHECK(cudaMalloc(&o1, size_t(nodes_n) * 32 * sizeof(int)));
  CHECK(cudaMalloc(&o2, size_t(nodes_n) * 32 * sizeof(int)));
  CHECK(cudaMemcpy(nodes, host.data(), size_t(nodes_n) * 32 * sizeof(int), cudaMemcpyHostToDevice));
  float w1 = median_ms([&] { walk_global<<<grid1, block1>>>(nodes, o1, warps); });
  float w2 = median_ms([&] { walk_four<<<grid1, block1>>>(nodes, o2, warps); });
  std::vector<int> s1 = fetch(o1, nodes_n * 32), s2 = fetch(o2, nodes_n * 32);
  print_pair("walk_global", w1, "walk_four", w2, s1 == s2, 18);
  return 0;
}
