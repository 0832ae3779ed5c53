// Occupancy and latency flaws, each beside its fix, for issue #25's before/after pairs: the
// time at stake of shared-memory-limited-occupancy and latency-bound against the saving the
// fix realises. Every kernel walks `hops` dependent links of a random permutation from each
// of 4 start elements per thread and sums the values it meets (a pointer chase: each load's
// address is the previous load's value, so a warp has one load in flight per chain).
//   1. chase_big_buffer with a 100 KiB dynamic shared buffer ("sized for the worst case"; the
//      kernel stages a block's results in blockDim floats of it) / the same code,
//      chase_staged, launched with the 1 KiB it uses: shared memory limits 2 blocks per SM, then 8.
//   2. chase_staged / chase_interleaved: the 4 chains one after another (one load in flight
//      per warp) / the 4 chains advanced together (four loads in flight).
// Each runs REPEATS times; the program prints each one's median time (cudaEvent) and checks
// that each pair computes the same sums. In ncu's launch order: 0 staged with 100 KiB,
// 1 staged with 1 KiB, 2 interleaved (the first repeat of each, with REPEATS 1).
//   usage: occupancy_pairs [LOG2_N [REPEATS]]   (default 24: 16 Mi elements, 5 times)
//
// What an expert expects, written from this source before any capture (2026-12-01):
// - launch 0: theoretical occupancy 25% (2 blocks of 8 warps per SM, limited by shared
//   memory): shared-memory-limited-occupancy must fire. The chase is latency-bound (memory
//   far below its peak with so few loads in flight); latency-bound may fire beside it. The
//   loads are random 4-byte gathers, so uncoalesced-load may fire too (it is the gather's
//   nature, not this pair's flaw).
// - launch 1: 100% theoretical occupancy, 64 warps per SM, each with one load in flight:
//   still latency-bound, likely below 40% of any unit's peak. No occupancy finding.
//   Expected 2-3x faster than launch 0 (four times the warps in flight).
// - launch 2: four loads in flight per warp: the memory system 2-3x busier than launch 1,
//   which is 1.5-3x slower than it. Not latency-bound if the memory units pass 40%.
#include "pairs_timing.cuh"

constexpr int CHAINS = 4;

// The 4 chains of a thread one after another; results staged in shared memory, as a kernel
// that later reduces them would (it uses blockDim.x floats of whatever it is given).
__device__ __forceinline__ void chase_serial(const int* next, const float* val, float* out,
                                             int threads, int hops, float* stage) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
#pragma unroll 1
  for (int c = 0; c < CHAINS; ++c) {
    int j = t + c * threads;
    float s = 0.0f;
    for (int h = 0; h < hops; ++h) {
      j = next[j];
      s += val[j];
    }
    stage[threadIdx.x] = s;
    out[t + c * threads] = stage[threadIdx.x];
  }
}

// Two kernels of the same code, so that a profile names the two launches apart: the flawed
// launch gets a buffer sized for the worst case, the fixed one what it uses.
__global__ void chase_big_buffer(const int* next, const float* val, float* out, int threads,
                                 int hops) {
  extern __shared__ float stage[];
  chase_serial(next, val, out, threads, hops, stage);
}

__global__ void chase_staged(const int* next, const float* val, float* out, int threads,
                             int hops) {
  extern __shared__ float stage[];
  chase_serial(next, val, out, threads, hops, stage);
}

// The same 4 chains advanced together: four independent loads in flight per thread.
__global__ void chase_interleaved(const int* next, const float* val, float* out, int threads,
                                  int hops) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  int j[CHAINS];
  float s[CHAINS];
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) {
    j[c] = t + c * threads;
    s[c] = 0.0f;
  }
  for (int h = 0; h < hops; ++h) {
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) {
      j[c] = next[j[c]];
      s[c] += val[j[c]];
    }
  }
#pragma unroll
  for (int c = 0; c < CHAINS; ++c) out[t + c * threads] = s[c];
}

int main(int argc, char** argv) {
  int log_n = argc > 1 ? std::atoi(argv[1]) : 24;
  if (argc > 2) repeats = std::max(1, std::atoi(argv[2]));
  int n = 1 << log_n, threads = n / CHAINS, hops = 16, block = 256;
  int grid = (threads + block - 1) / block;
  std::vector<int> perm = random_permutation(n, 7);
  std::vector<float> values(n);
  for (int i = 0; i < n; ++i) values[i] = (i % 1000) * 0.001f;
  int* next;
  float *val, *out_a, *out_b;
  CHECK(cudaMalloc(&next, n * sizeof(int)));
  CHECK(cudaMalloc(&val, n * sizeof(float)));
  CHECK(cudaMalloc(&out_a, n * sizeof(float)));
  CHECK(cudaMalloc(&out_b, n * sizeof(float)));
  CHECK(cudaMemcpy(next, perm.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(val, values.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  int worst_case = 100 * 1024, needed = block * (int)sizeof(float);
  CHECK(cudaFuncSetAttribute(chase_big_buffer, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             worst_case));
  float big = median_ms([&] {
    chase_big_buffer<<<grid, block, worst_case>>>(next, val, out_a, threads, hops);
  });
  std::vector<float> staged_big = fetch(out_a, n);
  float small = median_ms([&] {
    chase_staged<<<grid, block, needed>>>(next, val, out_a, threads, hops);
  });
  std::vector<float> staged = fetch(out_a, n);
  print_pair("chase_big_buffer (100 KiB)", big, "chase_staged (1 KiB)", small,
             staged_big == staged);
  float inter = median_ms([&] {
    chase_interleaved<<<grid, block>>>(next, val, out_b, threads, hops);
  });
  print_pair("chase_staged (serial chains)", small, "chase_interleaved", inter,
             staged == fetch(out_b, n));
  return 0;
}
