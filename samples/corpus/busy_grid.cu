// Held-out pairs for small-grid's cap by the busiest unit's headroom (13f6f98, 2026-12-03):
// written after that cap, on kernels it was not fitted to. Each pair is one kernel on a
// grid of one block of 4 warps per SM, then on 8 blocks per SM, doing the same work
// (a grid-stride loop over the same elements): ncu's launch order is before, after.
//   usage: busy_grid
//
// What an expert expects, written from this source before any capture (2026-12-03):
//  0 fma_chains<8>, 132 -> 1056 blocks of 128 threads: eight independent FMA chains per
//    thread, so one warp per SM sub-partition nearly fills its FP32 pipe already (FMA
//    latency ~4 cycles, 8 chains in flight; the loop's own instructions take some issue
//    slots). Before: SM throughput ~75-90%. small-grid fires (6.1% of the warp slots);
//    its stake with the cap ~10-25% (76% without it); more blocks save ~5-20%.
//  1 fma_chains<1>, 132 -> 1056 blocks of 128 threads: one dependent chain per thread:
//    one warp per sub-partition issues an FMA every ~4 cycles. Before: SM throughput
//    ~20-30%. small-grid's stake ~70-76% either way (the cap is loose here); eight warps
//    per sub-partition fill the pipe: saving ~65-75%. latency-bound may fire as well.
#include <cstdio>
#include <cuda_runtime.h>

template <int CHAINS>
__global__ void fma_chains(float* out, int n, int iters) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float a[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) a[c] = i + c;
    for (int k = 0; k < iters; ++k) {
#pragma unroll
      for (int c = 0; c < CHAINS; ++c) a[c] = fmaf(a[c], 0.999f, 0.5f);
    }
    float s = 0.0f;
#pragma unroll
    for (int c = 0; c < CHAINS; ++c) s += a[c];
    out[i] = s;
  }
}

int main() {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int threads = 128;
  const int n = sms * 8 * threads;  // one element a thread with 8 blocks per SM
  float* out = nullptr;
  cudaMalloc(&out, n * sizeof(float));
  fma_chains<8><<<sms, threads>>>(out, n, 4096);
  fma_chains<8><<<sms * 8, threads>>>(out, n, 4096);
  fma_chains<1><<<sms, threads>>>(out, n, 16384);
  fma_chains<1><<<sms * 8, threads>>>(out, n, 16384);
  float h = 0.0f;
  cudaMemcpy(&h, out, sizeof(float), cudaMemcpyDeviceToHost);
  cudaError_t e = cudaGetLastError();
  printf("busy_grid: %d SMs, out[0] %.3f, %s\n", sms, h, cudaGetErrorString(e));
  cudaFree(out);
  return e == cudaSuccess ? 0 : 1;
}
