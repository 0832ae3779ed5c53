// Held-out pairs for partial-wave's second formula (blocks per SM): written after it was
// frozen (docs/time-at-stake.md, hash 9a73e9c8d154147f), on launch shapes it was not written
// on. ncu's launch order with REPEATS 1: pair k is launches 2k (before) and 2k + 1 (after).
//   usage: tail_heldout2 [REPEATS]   (default 5; prints each pair's medians)
//
// What an expert expects, written from this source before any capture (2026-12-04). The
// stake is min(1 - (blocks / SMs) / ceil(blocks / SMs), busiest unit's headroom):
//  0 two blocks per SM (512 threads, 80 KiB of shared memory), 198 blocks on 132 SMs (1.5 a
//    SM): half the SMs run two FMA-bound blocks, sharing the FMA pipe, the other half one.
//    Idle share 1 - 1.5 / 2 = 25%: fires, stake ~25% (the SMs ~75% busy on average);
//    264 blocks of 3/4 the work (two on every SM) save 20-25%.
//  1 one block per SM (1024 threads, 120 KiB), 297 blocks (2.25 a SM): a quarter of the SMs
//    run three blocks, the rest two. Idle share 1 - 2.25 / 3 = 25%: fires, stake ~25%;
//    264 blocks of 9/8 the work save 20-25%.
#include <cmath>

#include "pairs_timing.cuh"

constexpr int STEPS = 1 << 13;  // FMA steps per chain in one unit of a block's work

// `units_num / units_den` units of FMA work per thread; the dynamic shared memory a launch
// asks for only sets how many blocks fit on an SM.
__global__ void fma_units(float* out, int units_num, int units_den) {
  float a = threadIdx.x * 1e-3f, b = a + 1.0f, c = a + 2.0f, d = a + 3.0f;
  long steps = long(STEPS) * units_num / units_den;
  for (long k = 0; k < steps; ++k) {
    a = fmaf(a, 0.9999f, 0.5f);
    b = fmaf(b, 0.9999f, 0.5f);
    c = fmaf(c, 0.9999f, 0.5f);
    d = fmaf(d, 0.9999f, 0.5f);
  }
  out[blockIdx.x * blockDim.x + threadIdx.x] = a + b + c + d;
}

int main(int argc, char** argv) {
  repeats = argc > 1 ? std::atoi(argv[1]) : 5;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaFuncSetAttribute(fma_units, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             120 * 1024));
  float* out;
  CHECK(cudaMalloc(&out, size_t(sms) * 4 * 1024 * sizeof(float)));

  const int two_per_sm = 80 * 1024, one_per_sm = 120 * 1024;
  float a = median_ms([&] { fma_units<<<sms * 3 / 2, 512, two_per_sm>>>(out, 1, 1); });
  float b = median_ms([&] { fma_units<<<sms * 2, 512, two_per_sm>>>(out, 3, 4); });
  print_pair("1.5 blocks a SM (2 fit)", a, "2 a SM, 3/4 the work", b, true);
  float c = median_ms([&] { fma_units<<<sms * 9 / 4, 1024, one_per_sm>>>(out, 1, 1); });
  float d = median_ms([&] { fma_units<<<sms * 2, 1024, one_per_sm>>>(out, 9, 8); });
  print_pair("2.25 blocks a SM (1 fits)", c, "2 a SM, 9/8 the work", d, true);
  CHECK(cudaGetLastError());
  return 0;
}
