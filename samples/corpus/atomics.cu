// Global atomics, contended and not (nineteenth session): a flaw no rule named yet. Each
// pair is a flaw and its usual fix, launched one after the other; then a control whose
// atomics are spread. ncu's launch order with REPEATS 1: 0 hist_global, 1 hist_shared,
// 2 sum_atomic, 3 sum_warp_reduce, 4 scatter_add.
//   usage: atomics [REPEATS]   (default 5; prints each pair's medians)
//
// What an expert expects, written from this source before any capture (2026-12-04):
//  hist_global: 16M elements, each an atomicAdd on one of 16 adjacent words (64 bytes: one
//    or two sectors, so one L2 slice): that slice's atomic unit near 100% busy, the others
//    idle; DRAM and the SMs far from their peaks. No existing rule names the cause (latency-
//    bound or load-store-bound may fire on the throttled LSU queue); a rule on contended
//    atomics must, stake ~90%. hist_shared saves 90-98%.
//  hist_shared: the same histogram in shared memory per block, 16 global atomics a block:
//    a 64 MiB streaming read, no finding on global atomics. Shared atomics on 16 words may
//    read as bank conflicts.
//  sum_atomic: a float sum, every element an atomicAdd on one word: the worst contention
//    (no hardware reduction for floats); the rule must fire, stake ~95%. sum_warp_reduce
//    saves >= 95%.
//  sum_warp_reduce: a register sum per thread, a warp shuffle sum, one atomic a warp:
//    DRAM-bound streaming read, no finding on atomics.
//  scatter_add: 16M float atomics at random indices over 4M words (16 MiB, L2-resident):
//    every slice's atomic unit about equally busy; the contention rule must not fire (the
//    busiest slice near the average). L2 may be its busiest unit; no coalescing finding
//    (the index and value reads are contiguous).
#include <cmath>

#include "pairs_timing.cuh"

constexpr int N = 1 << 24;      // elements
constexpr int BINS = 16;        // histogram bins: adjacent words
constexpr int TARGETS = 1 << 22;  // scatter_add's words

__global__ void hist_global(const unsigned* in, unsigned* bins, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&bins[in[i] % BINS], 1u);
}
__global__ void hist_shared(const unsigned* in, unsigned* bins, int n) {
  __shared__ unsigned local[BINS];
  if (threadIdx.x < BINS) local[threadIdx.x] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[in[i] % BINS], 1u);
  __syncthreads();
  if (threadIdx.x < BINS) atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

__global__ void sum_atomic(const float* in, float* sum, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(sum, in[i]);
}
__global__ void sum_warp_reduce(const float* in, float* sum, int n) {
  float acc = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += in[i];
  for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(sum, acc);
}

__global__ void scatter_add(const int* idx, const float* val, float* out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&out[idx[i]], val[i]);
}

int main(int argc, char** argv) {
  repeats = argc > 1 ? std::atoi(argv[1]) : 5;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms * 8, threads = 256;

  std::vector<unsigned> h_keys(N);
  std::vector<float> h_vals(N);
  std::vector<int> h_idx(N);
  std::mt19937 rng(7);
  for (int i = 0; i < N; ++i) {
    h_keys[i] = rng();
    h_vals[i] = float(i % 8) * 0.125f;
    h_idx[i] = int(rng() % TARGETS);
  }
  unsigned *keys, *bins;
  float *vals, *sum, *out;
  int* idx;
  CHECK(cudaMalloc(&keys, N * sizeof(unsigned)));
  CHECK(cudaMalloc(&vals, N * sizeof(float)));
  CHECK(cudaMalloc(&idx, N * sizeof(int)));
  CHECK(cudaMalloc(&bins, 2 * BINS * sizeof(unsigned)));
  CHECK(cudaMalloc(&sum, 2 * sizeof(float)));
  CHECK(cudaMalloc(&out, TARGETS * sizeof(float)));
  CHECK(cudaMemcpy(keys, h_keys.data(), N * sizeof(unsigned), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(vals, h_vals.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(idx, h_idx.data(), N * sizeof(int), cudaMemcpyHostToDevice));

  // Each timed launch starts from zeros (cudaMemset is no kernel: ncu sees only the five).
  auto timed = [&](auto launch, void* zero, size_t bytes) {
    return median_ms([&] {
      CHECK(cudaMemset(zero, 0, bytes));
      launch();
    });
  };
  float a = timed([&] { hist_global<<<blocks, threads>>>(keys, bins, N); }, bins,
                  BINS * sizeof(unsigned));
  float b = timed([&] { hist_shared<<<blocks, threads>>>(keys, bins + BINS, N); }, bins + BINS,
                  BINS * sizeof(unsigned));
  std::vector<unsigned> hb = fetch(bins, 2 * BINS);
  bool same_hist = std::equal(hb.begin(), hb.begin() + BINS, hb.begin() + BINS);
  print_pair("hist_global", a, "hist_shared", b, same_hist);

  float c = timed([&] { sum_atomic<<<blocks, threads>>>(vals, sum, N); }, sum, sizeof(float));
  float d = timed([&] { sum_warp_reduce<<<blocks, threads>>>(vals, sum + 1, N); }, sum + 1,
                  sizeof(float));
  std::vector<float> hs = fetch(sum, 2);
  print_pair("sum_atomic", c, "sum_warp_reduce", d,
             std::fabs(hs[0] - hs[1]) <= 1e-3f * std::fabs(hs[1]));

  float e = timed([&] { scatter_add<<<blocks, threads>>>(idx, vals, out, N); }, out,
                  TARGETS * sizeof(float));
  std::printf("%-28s %8.3f ms   (control: spread atomics)\n", "scatter_add", e);
  CHECK(cudaGetLastError());
  return 0;
}
