// Double-precision math in float kernels (nineteenth session): the unsuffixed literal
// (`1.0001` for `1.0001f`) that promotes float arithmetic to double, beside its fix, and
// two kernels whose double math is intended. ncu's launch order with REPEATS 1:
// 0 poly_double_literals, 1 poly_float_literals, 2 sum_double_acc, 3 daxpy.
//   usage: fp64_promotion [REPEATS]   (default 5; prints the pair's medians)
//
// What an expert expects, written from this source before any capture (2026-12-04):
//  poly_double_literals: 4M floats, each through 256 steps of `y = y * 1.0001 + 0.5` with y
//    a float: every step converts y to double (F2F), does a DFMA and converts back, since
//    the assignment rounds to float. Compute-bound on the FP64 pipe or on the conversions
//    (the H200 runs FP64 FMAs at half the FP32 rate; conversions may be slower still). No
//    rule names the cause today: pipe-bound or issue-bound may fire on the symptom. A rule
//    on double promotion must fire, naming the literal and the `f` suffix. The fix saves
//    50-90%.
//  poly_float_literals: the same with `1.0001f` and `0.5f`: FFMAs only, compute-bound on
//    the FMA pipe; no finding on double math.
//  sum_double_acc: a float array summed into a double accumulator per thread (an intended
//    double, for accuracy), one conversion and one DADD per element read: DRAM-bound, the
//    FP64 pipe nearly idle. No warning on double math (info at most).
//  daxpy: y = a * x + y on doubles: DRAM-bound, no float math at all: no finding on double
//    math.
#include <cmath>

#include "pairs_timing.cuh"

constexpr int N = 1 << 22;   // elements of the polynomial pair
constexpr int M = 1 << 24;   // elements of the DRAM-bound kernels
constexpr int STEPS = 256;

__global__ void poly_double_literals(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float y = in[i];
  for (int k = 0; k < STEPS; ++k) y = y * 1.0001 + 0.5;
  out[i] = y;
}
__global__ void poly_float_literals(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float y = in[i];
  for (int k = 0; k < STEPS; ++k) y = y * 1.0001f + 0.5f;
  out[i] = y;
}

__global__ void sum_double_acc(const float* in, double* sums, int n) {
  double acc = 0.0;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    acc += in[i];
  sums[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

__global__ void daxpy(double a, const double* x, double* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

int main(int argc, char** argv) {
  repeats = argc > 1 ? std::atoi(argv[1]) : 5;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int threads = 256, blocks = (N + threads - 1) / threads;
  const int stride_blocks = sms * 8;

  std::vector<float> h(M);
  std::vector<double> hd(M);
  for (int i = 0; i < M; ++i) {
    h[i] = float(i % 1000) / 1000.0f;
    hd[i] = double(i % 777) / 777.0;
  }
  float *in, *out;
  double *sums, *x, *y;
  CHECK(cudaMalloc(&in, M * sizeof(float)));
  CHECK(cudaMalloc(&out, 2 * N * sizeof(float)));
  CHECK(cudaMalloc(&sums, stride_blocks * threads * sizeof(double)));
  CHECK(cudaMalloc(&x, M * sizeof(double)));
  CHECK(cudaMalloc(&y, M * sizeof(double)));
  CHECK(cudaMemcpy(in, h.data(), M * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(x, hd.data(), M * sizeof(double), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(y, hd.data(), M * sizeof(double), cudaMemcpyHostToDevice));

  float a = median_ms([&] { poly_double_literals<<<blocks, threads>>>(in, out, N); });
  float b = median_ms([&] { poly_float_literals<<<blocks, threads>>>(in, out + N, N); });
  std::vector<float> ho = fetch(out, 2 * N);
  // Rounding differs between the two (double steps rounded to float each step, against
  // float FMAs): the same to a relative 1e-3.
  bool close = true;
  for (int i = 0; i < N; i += 4099)
    close = close && std::fabs(ho[i] - ho[N + i]) <= 1e-3f * std::fabs(ho[N + i]);
  print_pair("poly_double_literals", a, "poly_float_literals", b, close);

  float c = median_ms([&] { sum_double_acc<<<stride_blocks, threads>>>(in, sums, M); });
  float d = median_ms([&] { daxpy<<<(M + threads - 1) / threads, threads>>>(1.5, x, y, M); });
  std::printf("%-28s %8.3f ms   %-28s %8.3f ms   (intended doubles)\n", "sum_double_acc", c,
              "daxpy", d);
  CHECK(cudaGetLastError());
  return 0;
}
