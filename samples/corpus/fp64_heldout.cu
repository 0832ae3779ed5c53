// Held-out pairs for double-promotion's time at stake: written after its formula was frozen
// (docs/time-at-stake.md, hash 4ce443d6f0ca491c), on kernels it was not written on. ncu's
// launch order with REPEATS 1: pair k is launches 2k (before) and 2k + 1 (after).
//   usage: fp64_heldout [REPEATS]   (default 5; prints each pair's medians)
//
// What an expert expects, written from this source before any capture (2026-12-04). The
// stake is max(0, 1 - max(FP64 work at the FP32 rate, ALU, memory) / max(XU, FP64 pipe)):
//  0 mixed_double -> mixed_float: 128 steps of `y = y * a + b; y = y * 0.999;` on floats:
//    an FFMA, then a conversion, a DMUL and a conversion back per step: half the FP
//    arithmetic FP64, two conversions per FP64 instruction, the XU pipe the roof. The rule
//    fires; stake ~85-95%; the `f` suffix saves 80-90%.
//  1 stream_double -> stream_float: out[i] = in[i] * 2.5 + 1.0 over 64 Mi floats: two
//    conversions and a DFMA per element, but DRAM-bound (~80% of its bandwidth): the XU
//    pipe under 10%. The rule stays quiet (stake 0); the `f` suffixes save under 5%.
//  2 sine_double -> sine_float: y = sin(x * 0.5) with a float x: `x * 0.5` is double, so
//    the double sine runs in software on the FP64 pipe, with only two conversions per
//    element against dozens of FP64 instructions. Not a stake pair: it probes the rule's
//    blind spot, a promotion with few conversions, which reads like double code on double
//    data. Expected: the rule does not fire; sinf(x * 0.5f) saves 80-95%.
#include <cmath>

#include "pairs_timing.cuh"

constexpr int N = 1 << 22;   // elements of the compute-bound kernels
constexpr int M = 1 << 26;   // elements of the streaming pair

__global__ void mixed_double(const float* in, float* out, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float y = in[i];
  for (int k = 0; k < 128; ++k) {
    y = y * a + b;
    y = y * 0.999;
  }
  out[i] = y;
}
__global__ void mixed_float(const float* in, float* out, float a, float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float y = in[i];
  for (int k = 0; k < 128; ++k) {
    y = y * a + b;
    y = y * 0.999f;
  }
  out[i] = y;
}

__global__ void stream_double(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.5 + 1.0;
}
__global__ void stream_float(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.5f + 1.0f;
}

__global__ void sine_double(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sin(in[i] * 0.5);
}
__global__ void sine_float(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = sinf(in[i] * 0.5f);
}

// Whether two outputs agree to a relative (or, near zero, absolute) 1e-3, sampled.
bool close(const std::vector<float>& o, size_t n) {
  for (size_t i = 0; i < n; i += 4099)
    if (std::fabs(o[i] - o[n + i]) > 1e-3f * std::fmax(1.0f, std::fabs(o[n + i]))) return false;
  return true;
}

int main(int argc, char** argv) {
  repeats = argc > 1 ? std::atoi(argv[1]) : 5;
  const int threads = 256;
  std::vector<float> h(M);
  for (int i = 0; i < M; ++i) h[i] = float(i % 1000) / 1000.0f;
  float *in, *out;
  CHECK(cudaMalloc(&in, M * sizeof(float)));
  CHECK(cudaMalloc(&out, 2 * size_t(M) * sizeof(float)));
  CHECK(cudaMemcpy(in, h.data(), M * sizeof(float), cudaMemcpyHostToDevice));
  const int nb = (N + threads - 1) / threads, mb = (M + threads - 1) / threads;

  float t0 = median_ms([&] { mixed_double<<<nb, threads>>>(in, out, 1.0001f, 0.5f, N); });
  float t1 = median_ms([&] { mixed_float<<<nb, threads>>>(in, out + N, 1.0001f, 0.5f, N); });
  print_pair("mixed_double", t0, "mixed_float", t1, close(fetch(out, 2 * N), N));

  float t2 = median_ms([&] { stream_double<<<mb, threads>>>(in, out, M); });
  float t3 = median_ms([&] { stream_float<<<mb, threads>>>(in, out + M, M); });
  print_pair("stream_double", t2, "stream_float", t3, close(fetch(out, 2 * M), M));

  float t4 = median_ms([&] { sine_double<<<nb, threads>>>(in, out, N); });
  float t5 = median_ms([&] { sine_float<<<nb, threads>>>(in, out + N, N); });
  print_pair("sine_double", t4, "sine_float", t5, close(fetch(out, 2 * N), N));
  CHECK(cudaGetLastError());
  return 0;
}
