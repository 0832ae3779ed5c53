// A grid one block over a whole number of waves (the tail effect; nineteenth session): with
// one block per SM (1024 threads and 120 KiB of dynamic shared memory each), SMs + 1 blocks
// run as two waves, the second a single block. Each pair is that grid beside the same work
// spread over exactly one wave. ncu's launch order with REPEATS 1: 0 fma_tail, 1 fma_one_wave,
// 2 copy_tail, 3 copy_one_wave, 4 fma_many_waves.
//   usage: tail_wave [REPEATS]   (default 5; prints each pair's medians)
//
// What an expert expects, written from this source before any capture (2026-12-04):
//  fma_tail: 133 blocks of FMA chains on 132 SMs: 1.008 waves, so the last block runs alone
//    for a whole block's time: about twice the time of the work spread evenly. The SMs
//    average ~50% busy. No rule names it today (small-grid stays quiet: the grid fills half
//    the warp slots, over its 25% bar). A tail rule must fire, stake ~50%; fma_one_wave
//    (132 blocks, each 133/132 of the work) saves 45-50%.
//  copy_tail: the same shape copying 2 MiB a block: the lone last block copies alone, at one
//    SM's bandwidth, slower than its share of the device's: the tail costs less than half,
//    stake capped by the headroom the average leaves; copy_one_wave saves 20-40%.
//  fma_many_waves: 20 waves and one block (2641 blocks of the FMA work): the tail is 1/21
//    of the time; the rule stays quiet.
#include <cmath>

#include "pairs_timing.cuh"

constexpr int THREADS = 1024;
constexpr int SMEM = 120 * 1024;  // one block per SM
constexpr int STEPS = 1 << 14;    // FMA steps per chain in a block's work

// `units` blocks' worth of work for this block: `units_num / units_den` of one block's.
__global__ void fma_work(float* out, int units_num, int units_den) {
  extern __shared__ float scratch[];
  float a = threadIdx.x * 1e-3f, b = a + 1.0f, c = a + 2.0f, d = a + 3.0f;
  long steps = long(STEPS) * units_num / units_den;
  for (long k = 0; k < steps; ++k) {
    a = fmaf(a, 0.9999f, 0.5f);
    b = fmaf(b, 0.9999f, 0.5f);
    c = fmaf(c, 0.9999f, 0.5f);
    d = fmaf(d, 0.9999f, 0.5f);
  }
  scratch[threadIdx.x] = a + b + c + d;
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = scratch[THREADS - 1 - threadIdx.x];
}

// Copies `chunk` floats a block, each block its own chunk of `in` (no grid-stride loop).
__global__ void copy_chunks(const float* in, float* out, long chunk) {
  extern __shared__ float scratch[];
  if (threadIdx.x == 0) scratch[0] = 0.0f;
  const float* src = in + blockIdx.x * chunk;
  float* dst = out + blockIdx.x * chunk;
  for (long i = threadIdx.x; i < chunk; i += blockDim.x) dst[i] = src[i];
}

int main(int argc, char** argv) {
  repeats = argc > 1 ? std::atoi(argv[1]) : 5;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaFuncSetAttribute(fma_work, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
  CHECK(cudaFuncSetAttribute(copy_chunks, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
  const int tail = sms + 1, many = 20 * sms + 1;
  const long chunk = 512 * 1024;  // floats: 2 MiB a block
  float *out, *in, *dst;
  CHECK(cudaMalloc(&out, size_t(many) * THREADS * sizeof(float)));
  CHECK(cudaMalloc(&in, size_t(tail) * chunk * sizeof(float)));
  CHECK(cudaMalloc(&dst, size_t(tail) * chunk * sizeof(float)));
  CHECK(cudaMemset(in, 0, size_t(tail) * chunk * sizeof(float)));

  float a = median_ms([&] { fma_work<<<tail, THREADS, SMEM>>>(out, 1, 1); });
  float b = median_ms([&] { fma_work<<<sms, THREADS, SMEM>>>(out, tail, sms); });
  print_pair("fma_tail (SMs + 1 blocks)", a, "fma_one_wave (SMs blocks)", b, true);
  // The same bytes: the one-wave copy's chunks are tail / sms times as long.
  long even = chunk * tail / sms;
  float c = median_ms([&] { copy_chunks<<<tail, THREADS, SMEM>>>(in, dst, chunk); });
  float d = median_ms([&] { copy_chunks<<<sms, THREADS, SMEM>>>(in, dst, even); });
  print_pair("copy_tail", c, "copy_one_wave", d, true);
  float e = median_ms([&] { fma_work<<<many, THREADS, SMEM>>>(out, 1, 1); });
  std::printf("%-28s %8.3f ms   (control: %d waves and one block)\n", "fma_many_waves", e, 20);
  CHECK(cudaGetLastError());
  return 0;
}
