// Register-limited occupancy beside its documented fix, for issue #25's before/after pairs:
// the time at stake of register-limited-occupancy against the saving the fix realises.
// Each thread walks `hops` dependent links of a random permutation from each of 4 start
// elements, one chain after another (a pointer chase: one load in flight per warp, so the
// warps in flight set the speed), then mixes KEEP values gathered around the chase's end,
// all loaded before they are combined: an epilogue run once per thread that sets the
// kernel's register count.
//   1. chase_wide: __launch_bounds__(256, 1), so the compiler may keep the epilogue's KEEP
//      values in registers at once / chase_capped: the same code under
//      __launch_bounds__(256, 4), the rule's fix (at most 64 registers: 4 blocks per SM).
//   2. walk_wide / walk_capped: the same flaw and fix on latency_pairs.cu's walk, where each
//      warp follows lists of 128-byte nodes (one coalesced request per hop, not 32 random
//      sectors), then the same epilogue over the nodes.
//   3. walk_tied / walk_untied: the walk launched with a 100 KiB shared buffer, so that
//      registers and shared memory each allow 2 blocks per SM / both fixed (64 registers,
//      the 1 KiB it uses).
// Each runs REPEATS times; the program prints each one's median time (cudaEvent) and checks
// that each pair computes the same sums. In ncu's launch order: 0 chase_wide,
// 1 chase_capped, 2 walk_wide, 3 walk_capped, 4 walk_tied, 5 walk_untied (the first repeat
// of each, with REPEATS 1).
//   usage: register_pairs [LOG2_N [REPEATS]]   (default 20: 1 Mi elements, 8 MiB, in L2;
//          the walk's 2^(LOG2_N - 4) nodes of 128 bytes take 8 MiB too)
//
// What an expert expects, written from this source before any capture (2026-12-01):
// - launch 0: the epilogue's 80 gathered values live at once take about 100 registers per
//   thread: 2 blocks of 8 warps per SM, 25% theoretical occupancy, limited by registers:
//   register-limited-occupancy must fire. The chase keeps one load in flight per warp, so
//   fewer warps is less memory in flight, and the L2 far from busy: latency-bound may fire
//   beside it. The random gathers are uncoalesced by nature (may).
// - launch 1: at most 64 registers, 4 blocks per SM (50%): no occupancy finding. The
//   compiler fits the epilogue by loading the pairs it combines together, or spills a few
//   values once per thread (local-memory may fire, on little traffic). About 1.5-2x faster
//   than launch 0 (twice the warps in flight on a latency-bound chase); the epilogue is a
//   small part of either.
// Revised after the capture (2026-12-01, chase pair): 96 and 64 registers, no spill, and the
// fix saved 0.5%: the random 4-byte gathers keep the L2's tag lookups 97% busy at 25%
// occupancy already, so more warps cannot go faster, and gpulint's rule (quiet above 80%
// busy) was right where the expectation above was not. The walk pair, written after that
// capture and before its own, is the case where latency is not hidden:
// - launch 2, walk_wide: the same 96 registers, 25% occupancy, one coalesced 128-byte
//   request in flight per warp: every unit far below its peak, register-limited-occupancy
//   must fire (latency-bound may). Launch 3, walk_capped: 50%, no occupancy finding, about
//   1.5-2x faster.
// The tied pair, written after the walk pair's capture (which saved 47%) and before its own:
// - launch 4, walk_tied: 96 registers and 100 KiB of shared memory, each allowing 2 blocks:
//   register-and-shared-memory-limited-occupancy must fire, and neither single-limit rule.
//   Launch 5, walk_untied: 50% occupancy, no occupancy finding, as fast as walk_capped.
#include "pairs_timing.cuh"

constexpr int CHAINS = 4;
constexpr int KEEP = 80;

__device__ __forceinline__ void chase_then_mix(const int* next, const float* val, float* out,
                                               int threads, int hops, int mask) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  float s = 0.0f;
  int j = t;
#pragma unroll 1
  for (int c = 0; c < CHAINS; ++c) {
    j = t + c * threads;
    for (int h = 0; h < hops; ++h) {
      j = next[j];
      s += val[j];
    }
  }
  // The epilogue: KEEP values near the chase's end, the first combined with the last.
  float r[KEEP];
#pragma unroll
  for (int k = 0; k < KEEP; ++k) r[k] = val[(j + k * 977) & mask];
  float mix = 0.0f;
#pragma unroll
  for (int k = 0; k < KEEP / 2; ++k) mix += r[k] * r[KEEP - 1 - k];
  out[t] = s + 1e-3f * mix;
}

// The walk of latency_pairs.cu (lane 0's int of a node is the next node's index), then the
// epilogue over the nodes.
__device__ __forceinline__ void walk_then_mix(const int* nodes, int* out, int warps, int hops,
                                              int mask, int* stage = nullptr) {
  int lane = threadIdx.x % 32, warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (warp >= warps) return;
  int s = 0, k = 0;
#pragma unroll 1
  for (int c = 0; c < CHAINS; ++c) {
    k = warp * CHAINS + c;
    for (int h = 0; h < hops; ++h) {
      int v = nodes[k * 32 + lane];
      s += v;
      k = __shfl_sync(0xffffffffu, v, 0);
    }
  }
  unsigned r[KEEP];
#pragma unroll
  for (int i = 0; i < KEEP; ++i) r[i] = nodes[(k * 32 + lane + i * 977) & mask];
  unsigned mix = 0;
#pragma unroll
  for (int i = 0; i < KEEP / 2; ++i) mix += r[i] * r[KEEP - 1 - i];
  int result = s + static_cast<int>(mix & 0xffff);
  // Staged through shared memory, as a kernel that later reduces a block's results would.
  if (stage != nullptr) {
    stage[threadIdx.x] = result;
    result = stage[threadIdx.x];
  }
  out[warp * 32 + lane] = result;
}

__global__ void __launch_bounds__(256, 1)
    walk_wide(const int* nodes, int* out, int warps, int hops, int mask) {
  walk_then_mix(nodes, out, warps, hops, mask);
}

__global__ void __launch_bounds__(256, 4)
    walk_capped(const int* nodes, int* out, int warps, int hops, int mask) {
  walk_then_mix(nodes, out, warps, hops, mask);
}

// The walk again, launched with a 100 KiB shared buffer sized for the worst case (it uses
// blockDim ints): registers and shared memory each allow 2 blocks per SM / the fix for both,
// 64 registers and the 1 KiB it uses.
__global__ void __launch_bounds__(256, 1)
    walk_tied(const int* nodes, int* out, int warps, int hops, int mask) {
  extern __shared__ int stage[];
  walk_then_mix(nodes, out, warps, hops, mask, stage);
}

__global__ void __launch_bounds__(256, 4)
    walk_untied(const int* nodes, int* out, int warps, int hops, int mask) {
  extern __shared__ int stage[];
  walk_then_mix(nodes, out, warps, hops, mask, stage);
}

__global__ void __launch_bounds__(256, 1)
    chase_wide(const int* next, const float* val, float* out, int threads, int hops, int mask) {
  chase_then_mix(next, val, out, threads, hops, mask);
}

__global__ void __launch_bounds__(256, 4)
    chase_capped(const int* next, const float* val, float* out, int threads, int hops,
                 int mask) {
  chase_then_mix(next, val, out, threads, hops, mask);
}

// The registers each kernel of a pair takes, and the local memory of any spill.
template <typename A, typename B>
void print_registers(const char* a, A* kernel_a, const char* b, B* kernel_b) {
  cudaFuncAttributes ra, rb;
  CHECK(cudaFuncGetAttributes(&ra, kernel_a));
  CHECK(cudaFuncGetAttributes(&rb, kernel_b));
  std::printf("registers per thread: %s %d, %s %d (local bytes %zu, %zu)\n", a, ra.numRegs, b,
              rb.numRegs, ra.localSizeBytes, rb.localSizeBytes);
}

int main(int argc, char** argv) {
  int log_n = argc > 1 ? std::atoi(argv[1]) : 20;
  if (argc > 2) repeats = std::max(1, std::atoi(argv[2]));
  int n = 1 << log_n, threads = n / CHAINS, hops = 16, block = 256, mask = n - 1;
  int grid = (threads + block - 1) / block;
  std::vector<int> perm = random_permutation(n, 7);
  std::vector<float> values(n);
  for (int i = 0; i < n; ++i) values[i] = (i % 1000) * 0.001f;
  int* next;
  float *val, *out;
  CHECK(cudaMalloc(&next, n * sizeof(int)));
  CHECK(cudaMalloc(&val, n * sizeof(float)));
  CHECK(cudaMalloc(&out, threads * sizeof(float)));
  CHECK(cudaMemcpy(next, perm.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(val, values.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  print_registers("chase_wide", chase_wide, "chase_capped", chase_capped);
  float wide = median_ms([&] {
    chase_wide<<<grid, block>>>(next, val, out, threads, hops, mask);
  });
  std::vector<float> a = fetch(out, threads);
  float capped = median_ms([&] {
    chase_capped<<<grid, block>>>(next, val, out, threads, hops, mask);
  });
  std::vector<float> b = fetch(out, threads);
  print_pair("chase_wide", wide, "chase_capped", capped, a == b);

  // The walk: nodes of 32 ints, 8 MiB in all at the default size, each node's lane-0 int the
  // next node's index (a random permutation), the others small values.
  int nodes_n = n / 16, warps = nodes_n / CHAINS, walk_hops = 64;
  int walk_grid = (warps * 32 + block - 1) / block, node_mask = nodes_n * 32 - 1;
  std::vector<int> host = linked_nodes(nodes_n, 11);
  int *nodes, *walk_out;
  CHECK(cudaMalloc(&nodes, nodes_n * 32 * sizeof(int)));
  CHECK(cudaMalloc(&walk_out, warps * 32 * sizeof(int)));
  CHECK(cudaMemcpy(nodes, host.data(), nodes_n * 32 * sizeof(int), cudaMemcpyHostToDevice));
  print_registers("walk_wide", walk_wide, "walk_capped", walk_capped);
  float walk_w = median_ms([&] {
    walk_wide<<<walk_grid, block>>>(nodes, walk_out, warps, walk_hops, node_mask);
  });
  std::vector<int> c = fetch(walk_out, warps * 32);
  float walk_c = median_ms([&] {
    walk_capped<<<walk_grid, block>>>(nodes, walk_out, warps, walk_hops, node_mask);
  });
  std::vector<int> d = fetch(walk_out, warps * 32);
  print_pair("walk_wide", walk_w, "walk_capped", walk_c, c == d);

  int worst_case = 100 * 1024, needed = block * (int)sizeof(int);
  CHECK(cudaFuncSetAttribute(walk_tied, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             worst_case));
  print_registers("walk_tied", walk_tied, "walk_untied", walk_untied);
  float tied = median_ms([&] {
    walk_tied<<<walk_grid, block, worst_case>>>(nodes, walk_out, warps, walk_hops, node_mask);
  });
  std::vector<int> e = fetch(walk_out, warps * 32);
  float untied = median_ms([&] {
    walk_untied<<<walk_grid, block, needed>>>(nodes, walk_out, warps, walk_hops, node_mask);
  });
  std::vector<int> f = fetch(walk_out, warps * 32);
  print_pair("walk_tied (100 KiB)", tied, "walk_untied (1 KiB)", untied, e == f && e == c);
  return 0;
}
