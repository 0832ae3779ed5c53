// Warps that wait on their loads one at a time, beside their fixes (issue #40, "a pointer
// walk at mid utilisation"): held-out pairs for the serial-loads rule, written before the
// rule's first capture on them. Each pair is launched before, after (ncu IDs 2k, 2k + 1 at
// REPEATS 1); the program prints each pair's median times and whether both agree.
//   usage: serial_loads [REPEATS]   (default 5)
//
// What an expert expects, written from this source before any capture (2026-12-02). The
// rule estimates a warp's loads in flight by Little's law (global load requests x their
// average latency / warp-cycles resident): about 1 for a chain, 4 for four chains.
//  0 sum_l2_serial -> sum_l2_four: a grid-stride sum over an L2-resident 24 MiB array, 8
//    passes, with `#pragma unroll 1` (each add waits for its load before the next load
//    issues), then four independent accumulators. Coalesced. serial-loads must fire on the
//    first (loads in flight ~1, hundreds of loads per warp), with the L2 between the 40%
//    latency bar and saturation; stake 1 - busiest/100, ~40-60%; saving ~35-55%.
//  1 sum_dram_serial -> sum_dram_four: the same on 256 MiB (DRAM), one pass. DRAM ~25-35%
//    (below 40%: latency-bound's case, which defers to serial-loads); serial-loads fires,
//    stake ~65-75%; saving ~50-65%.
//  2 btree_one -> btree_four: a warp looks up keys in a 32-ary search tree of 32 Mi keys
//    (5 levels, one coalesced 128-byte node per level, each level's node chosen by the
//    last: a dependent chain), 16 keys per warp one after another, then 4 at a time.
//    serial-loads fires on the first; saving ~40-65%. No uncoalesced finding (nodes are
//    read whole).
//  3 walk_dram_serial -> walk_dram_four: latency_pairs.cu's walk on 4 Mi nodes (512 MiB,
//    DRAM): 4 lists a warp, one after another, then together. DRAM ~25-35%;
//    serial-loads fires, stake ~65-75%; saving ~55-70%.
// On every "after" kernel serial-loads must stay quiet (loads in flight ~3-4).
#include "pairs_timing.cuh"

__global__ void sum_serial(const int* in, int* out, int n, int passes) {
  int t = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
  int s = 0;
  for (int p = 0; p < passes; ++p) {
#pragma unroll 1
    for (int i = t; i < n; i += stride) s += in[i];
  }
  out[t] = s;
}

__global__ void sum_four(const int* in, int* out, int n, int passes) {
  int t = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
  int s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (int p = 0; p < passes; ++p) {
    int i = t;
#pragma unroll 1
    for (; i + 3 * stride < n; i += 4 * stride) {
      s0 += in[i];
      s1 += in[i + stride];
      s2 += in[i + 2 * stride];
      s3 += in[i + 3 * stride];
    }
    for (; i < n; i += stride) s0 += in[i];
  }
  out[t] = s0 + s1 + s2 + s3;
}

// A 32-ary tree over keys 0, 2, 4, ...: level l holds 32^(l+1) separators, node j's 32 in
// level[l][32 j .. 32 j + 31]; the last level is the keys themselves.
constexpr int LEVELS = 5;
struct Tree {
  const int* level[LEVELS];
};

__device__ int descend(const Tree& tree, int key, int lane) {
  int node = 0;
  for (int l = 0; l < LEVELS; ++l) {
    int v = tree.level[l][node * 32 + lane];
    int below = __popc(__ballot_sync(0xffffffffu, v < key));
    node = node * 32 + min(below, 31);
  }
  return node;
}

__global__ void btree_one(Tree tree, const int* keys, int* found, int warps) {
  int lane = threadIdx.x % 32, warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (warp >= warps) return;
#pragma unroll 1
  for (int q = 0; q < 16; ++q) {
    int i = warp * 16 + q;
    int node = descend(tree, keys[i], lane);
    if (lane == 0) found[i] = node;
  }
}

__global__ void btree_four(Tree tree, const int* keys, int* found, int warps) {
  int lane = threadIdx.x % 32, warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  if (warp >= warps) return;
#pragma unroll 1
  for (int q = 0; q < 16; q += 4) {
    int base = warp * 16 + q, key[4], node[4];
#pragma unroll
    for (int c = 0; c < 4; ++c) {
      key[c] = keys[base + c];
      node[c] = 0;
    }
    for (int l = 0; l < LEVELS; ++l) {
      int v[4];
#pragma unroll
      for (int c = 0; c < 4; ++c) v[c] = tree.level[l][node[c] * 32 + lane];
#pragma unroll
      for (int c = 0; c < 4; ++c)
        node[c] = node[c] * 32 + min(__popc(__ballot_sync(0xffffffffu, v[c] < key[c])), 31);
    }
    if (lane == 0)
      for (int c = 0; c < 4; ++c) found[base + c] = node[c];
  }
}

constexpr int LISTS = 4;
__global__ void walk_dram_serial(const int* nodes, int* out, int warps, int hops) {
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

__global__ void walk_dram_four(const int* nodes, int* out, int warps, int hops) {
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
  if (argc > 1) repeats = std::max(1, std::atoi(argv[1]));
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  int block = 256, grid = sms * 8, threads = grid * block;

  // 0 and 1: sums over 24 MiB (L2) and 256 MiB (DRAM).
  int n_big = 1 << 26, n_l2 = 6 << 20;
  int *data, *out_a, *out_b;
  CHECK(cudaMalloc(&data, size_t(n_big) * sizeof(int)));
  size_t outs = size_t(1) << 27;  // ints: the walk's 4 Mi nodes x 32 lanes
  CHECK(cudaMalloc(&out_a, outs * sizeof(int)));
  CHECK(cudaMalloc(&out_b, outs * sizeof(int)));
  std::vector<int> ones(n_big);
  for (int i = 0; i < n_big; ++i) ones[i] = i % 5;
  CHECK(cudaMemcpy(data, ones.data(), size_t(n_big) * sizeof(int), cudaMemcpyHostToDevice));
  auto total = [&](int* d) {
    std::vector<int> h = fetch(d, threads);
    long long s = 0;
    for (int v : h) s += v;
    return s;
  };
  float a = median_ms([&] { sum_serial<<<grid, block>>>(data, out_a, n_l2, 8); });
  float b = median_ms([&] { sum_four<<<grid, block>>>(data, out_b, n_l2, 8); });
  print_pair("sum_l2_serial", a, "sum_l2_four", b, total(out_a) == total(out_b), 18);
  a = median_ms([&] { sum_serial<<<grid, block>>>(data, out_a, n_big, 1); });
  b = median_ms([&] { sum_four<<<grid, block>>>(data, out_b, n_big, 1); });
  print_pair("sum_dram_serial", a, "sum_dram_four", b, total(out_a) == total(out_b), 18);

  // 2: a 32-ary tree over 32 Mi keys (the even numbers), looked up by 1 Mi random keys.
  Tree tree;
  std::vector<int*> levels(LEVELS);
  long long width = 1;
  for (int l = 0; l < LEVELS; ++l) {
    width *= 32;
    long long span = (1LL << 25) / width;  // keys under each separator
    std::vector<int> sep(width);
    for (long long j = 0; j < width; ++j) sep[j] = int(2 * ((j + 1) * span - 1));
    CHECK(cudaMalloc(&levels[l], width * sizeof(int)));
    CHECK(cudaMemcpy(levels[l], sep.data(), width * sizeof(int), cudaMemcpyHostToDevice));
    tree.level[l] = levels[l];
  }
  int lookups = 1 << 20, tree_warps = lookups / 16;
  std::vector<int> keys(lookups);
  std::mt19937 rng(7);
  for (int& k : keys) k = int(rng() % (1u << 26));
  int* dkeys;
  CHECK(cudaMalloc(&dkeys, lookups * sizeof(int)));
  CHECK(cudaMemcpy(dkeys, keys.data(), lookups * sizeof(int), cudaMemcpyHostToDevice));
  int tree_grid = (tree_warps * 32 + block - 1) / block;
  a = median_ms([&] { btree_one<<<tree_grid, block>>>(tree, dkeys, out_a, tree_warps); });
  b = median_ms([&] { btree_four<<<tree_grid, block>>>(tree, dkeys, out_b, tree_warps); });
  print_pair("btree_one", a, "btree_four", b, fetch(out_a, lookups) == fetch(out_b, lookups), 18);

  // 3: 4 Mi linked 128-byte nodes (512 MiB), 32 hops a list.
  int nodes_n = 1 << 22, walk_warps = nodes_n / LISTS, hops = 32;
  std::vector<int> host = linked_nodes(nodes_n, 11);
  int* nodes;
  CHECK(cudaMalloc(&nodes, size_t(nodes_n) * 32 * sizeof(int)));
  CHECK(cudaMemcpy(nodes, host.data(), size_t(nodes_n) * 32 * sizeof(int), cudaMemcpyHostToDevice));
  int walk_grid = (walk_warps * 32 + block - 1) / block;
  a = median_ms([&] { walk_dram_serial<<<walk_grid, block>>>(nodes, out_a, walk_warps, hops); });
  b = median_ms([&] { walk_dram_four<<<walk_grid, block>>>(nodes, out_b, walk_warps, hops); });
  print_pair("walk_dram_serial", a, "walk_dram_four", b,
             fetch(out_a, nodes_n * 32) == fetch(out_b, nodes_n * 32), 18);
  return 0;
}
