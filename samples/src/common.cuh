// Shared helpers for the gpulint CUDA samples.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                              \
  do {                                                                           \
    cudaError_t err_ = (call);                                                   \
    if (err_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                    \
                   cudaGetErrorString(err_));                                    \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

// 16 Mi floats (64 MiB): large enough to reach DRAM bandwidth, small enough for ncu.
constexpr size_t kN = size_t(1) << 24;

inline float* device_floats(size_t n, float value = 1.0f) {
  float* p = nullptr;
  CHECK(cudaMalloc(&p, n * sizeof(float)));
  CHECK(cudaMemset(p, 0, n * sizeof(float)));
  (void)value;
  return p;
}
