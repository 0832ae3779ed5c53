// Occupancy limited by two resources at once. `both_limited` keeps 160 values per thread in
// registers (over 128 per thread, so one 256-thread block per SM) and also asks for 120 KiB
// of dynamic shared memory (two blocks would need 242 KiB of the SM's 228): registers and
// shared memory each allow exactly one block, so shrinking either alone changes nothing.
// `regs_limited` and `smem_limited` are the single-resource controls.
//   usage: occupancy_tie
#include "../src/common.cuh"

constexpr int kSharedBytes = 120 * 1024;

template <int N>
__device__ float many_live_values(const float* in, size_t i, size_t n) {
  float acc[N];
#pragma unroll
  for (int k = 0; k < N; k++) acc[k] = in[(i + k * 4099) % n];
  float s = 0.0f;
#pragma unroll
  for (int r = 0; r < 4; r++) {
#pragma unroll
    for (int k = 0; k < N; k++) {
      acc[k] = acc[k] * 1.0001f + acc[(k + 1) % N];
      s += acc[k];
    }
  }
  return s;
}

template <int N>
__global__ void both_limited(const float* in, float* out, size_t n) {
  extern __shared__ float stage[];
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  stage[threadIdx.x] = many_live_values<N>(in, i, n);
  __syncthreads();
  if (i < n) out[i] = stage[blockDim.x - 1 - threadIdx.x];
}

template <int N>
__global__ void regs_limited(const float* in, float* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  float s = many_live_values<N>(in, i, n);
  if (i < n) out[i] = s;
}

__global__ void smem_limited(const float* in, float* out, size_t n) {
  extern __shared__ float tile[];
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  tile[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  if (i < n) out[i] = tile[blockDim.x - 1 - threadIdx.x];
}

int main() {
  float* in = device_floats(kN);
  float* out = device_floats(kN);
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaFuncSetAttribute(both_limited<160>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             kSharedBytes));
  CHECK(cudaFuncSetAttribute(smem_limited, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             kSharedBytes));
  both_limited<160><<<sms * 8, 256, kSharedBytes>>>(in, out, kN);
  regs_limited<160><<<sms * 8, 256>>>(in, out, kN);
  smem_limited<<<kN / 256, 256, kSharedBytes>>>(in, out, kN);
  CHECK(cudaDeviceSynchronize());
  std::printf("occupancy_tie: done\n");
  return 0;
}
