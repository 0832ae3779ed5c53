// One program, two builds, for the CI-gating example (gpulint baseline / diff):
//   -DVARIANT=0  the good version
//   -DVARIANT=1  a regression: scale_rows reads with a 32-word stride under the same
//                name and a different launch configuration; old_helper is gone and
//                new_helper is new.
#include "common.cuh"

__global__ void scale_rows(const float* in, float* out, size_t n, int stride) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) {
    size_t j = (i * stride) % n + (i * stride) / n;
    out[i] = 2.0f * in[j];
  }
}

__global__ void add_bias(float* x, size_t n, float b) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) x[i] += b;
}

#if VARIANT == 0
__global__ void old_helper(float* x, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) x[i] *= 0.5f;
}
#else
__global__ void new_helper(float* x, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (i < n) x[i] = x[i] * x[i];
}
#endif

int main() {
  float* in = device_floats(kN);
  float* out = device_floats(kN);
#if VARIANT == 0
  scale_rows<<<kN / 256, 256>>>(in, out, kN, 1);
  for (int r = 0; r < 3; r++) add_bias<<<kN / 256, 256>>>(out, kN, 1.0f);
  old_helper<<<kN / 256, 256>>>(out, kN);
#else
  scale_rows<<<kN / 128, 128>>>(in, out, kN, 32);
  for (int r = 0; r < 3; r++) add_bias<<<kN / 256, 256>>>(out, kN, 1.0f);
  new_helper<<<kN / 256, 256>>>(out, kN);
#endif
  CHECK(cudaDeviceSynchronize());
  std::printf("pipeline variant %d: done\n", VARIANT);
  return 0;
}
