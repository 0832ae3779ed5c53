// Held-out pairs for partial-wave's time at stake: written after its formula was frozen
// (docs/time-at-stake.md, hash 80a8b395eda1e5d7), on launch shapes it was not written on.
// ncu's launch order with REPEATS 1: pair k is launches 2k (before) and 2k + 1 (after).
//   usage: tail_heldout [REPEATS]   (default 5; prints each pair's medians)
//
// What an expert expects, written from this source before any capture (2026-12-04). The
// stake is min(last wave's idle share, busiest unit's headroom):
//  0 two blocks per SM (512 threads, 80 KiB of shared memory each), 1.5 waves (396 blocks
//    on 132 SMs), each block the same FMA work -> 264 blocks (one wave), each 1.5 times the
//    work. Idle share (2 - 1.5) / 2 = 25%: the rule fires, stake ~25%; saving 20-25%.
//  1 eight blocks per SM (256 threads, no shared memory), 2.125 waves (2244 blocks) ->
//    2112 blocks (two waves), each 2244/2112 of the work. Idle share (3 - 2.125) / 3 = 29%:
//    fires, stake ~29%; saving 20-29% (smaller blocks start and end less in step).
#include <cmath>

#include "pairs_timing.cuh"

constexpr int STEPS = 1 << 13;  // FMA steps per chain in one unit of a block's work

// `units_num / units_den` units of FMA work per thread.
// The dynamic shared memory a launch asks for only sets how many blocks fit on an SM.
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
  const int smem = 80 * 1024;
  CHECK(cudaFuncSetAttribute(fma_units, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  float* out;
  CHECK(cudaMalloc(&out, size_t(sms) * 20 * 1024 * sizeof(float)));

  const int half = sms * 3;  // 1.5 waves of two blocks per SM
  float a = median_ms([&] { fma_units<<<half, 512, smem>>>(out, 1, 1); });
  float b = median_ms([&] { fma_units<<<2 * sms, 512, smem>>>(out, 3, 2); });
  print_pair("1.5 waves, 2 blocks/SM", a, "1 wave, 1.5x work", b, true);

  const int over = sms * 17;  // 2.125 waves of eight blocks per SM
  float c = median_ms([&] { fma_units<<<over, 256>>>(out, 1, 1); });
  float d = median_ms([&] { fma_units<<<16 * sms, 256>>>(out, 17, 16); });
  print_pair("2.125 waves, 8 blocks/SM", c, "2 waves, 17/16 work", d, true);
  CHECK(cudaGetLastError());
  return 0;
}
