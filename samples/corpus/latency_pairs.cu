// A latency-bound kernel beside its fix, for issue #25's before/after pairs: each warp walks
// linked lists of 128-byte nodes (a node is 32 ints, one per lane: coalesced, 4 sectors per
// request; lane 0's int is the next node's index, which the warp shares by a shuffle), so
// every load waits for the one before it. The nodes (8 MiB) stay in the H200's L2.
//   1. walk_serial: a warp's 4 lists one after another: one load in flight per warp.
//   2. walk_interleaved: the same 4 lists advanced together: four loads in flight.
// Each runs REPEATS times; the program prints the median times (cudaEvent) and checks that
// both compute the same sums. ncu's launch order: 0 serial, 1 interleaved (REPEATS 1).
//   usage: latency_pairs [LOG2_NODES [REPEATS]]   (default 16: 64 Ki nodes, 5 times)
//
// What an expert expects, written from this source before any capture (2026-12-01):
// - walk_serial: every unit far below its peak (a few hundred bytes in flight per SM against
//   an L2 that serves thousands): latency-bound must fire, bound latency. Loads coalesced:
//   no uncoalesced or misaligned finding. Full occupancy (256-thread blocks, few registers).
// - walk_interleaved: four loads in flight per warp, 2-4x faster; the memory units busier
//   but likely still under 40%, so latency-bound may remain, with a smaller stake.
#include "pairs_timing.cuh"

constexpr int LISTS = 4;

__global__ void walk_serial(const int* nodes, int* out, int warps, int hops) {
  int lane = threadIdx.x % 32, warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (warp >= warps) return;
#pragma unroll 1
  for (int c = 0; c < LISTS; ++c) {
    int k = warp * LISTS + c, s = 0;
    for (int h = 0; h < hops; ++h) {
      int v = nodes[k * 32 + lane];
      s += v;
      k = __shfl_sync(0xffffffffu, v, 0);
    }
    out[(warp * LISTS + c) * 32 + lane] = s;
  }
}

__global__ void walk_interleaved(const int* nodes, int* out, int warps, int hops) {
  int lane = threadIdx.x % 32, warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (warp >= warps) return;
  int k[LISTS], s[LISTS];
#pragma unroll
  for (int c = 0; c < LISTS; ++c) {
    k[c] = warp * LISTS + c;
    s[c] = 0;
  }
  for (int h = 0; h < hops; ++h) {
#pragma unroll
    for (int c = 0; c < LISTS; ++c) {
      int v = nodes[k[c] * 32 + lane];
      s[c] += v;
      k[c] = __shfl_sync(0xffffffffu, v, 0);
    }
  }
#pragma unroll
  for (int c = 0; c < LISTS; ++c) out[(warp * LISTS + c) * 32 + lane] = s[c];
}

int main(int argc, char** argv) {
  int log_nodes = argc > 1 ? std::atoi(argv[1]) : 16;
  if (argc > 2) repeats = std::max(1, std::atoi(argv[2]));
  int n = 1 << log_nodes, warps = n / LISTS, hops = 64, block = 256;
  int grid = (warps * 32 + block - 1) / block;
  std::vector<int> host = linked_nodes(n, 11);
  int *nodes, *out_a, *out_b;
  CHECK(cudaMalloc(&nodes, n * 32 * sizeof(int)));
  CHECK(cudaMalloc(&out_a, n * 32 * sizeof(int)));
  CHECK(cudaMalloc(&out_b, n * 32 * sizeof(int)));
  CHECK(cudaMemcpy(nodes, host.data(), n * 32 * sizeof(int), cudaMemcpyHostToDevice));
  float a = median_ms([&] { walk_serial<<<grid, block>>>(nodes, out_a, warps, hops); });
  float b = median_ms([&] { walk_interleaved<<<grid, block>>>(nodes, out_b, warps, hops); });
  std::vector<int> ra = fetch(out_a, n * 32), rb = fetch(out_b, n * 32);
  print_pair("walk_serial", a, "walk_interleaved", b, ra == rb, 18);
  return 0;
}
