// 160 independent accumulators per thread: about 170 registers, one 256-thread block per
// SM, 12.5% occupancy, while neither compute nor memory is busy. gpulint should flag
// register-limited occupancy.
#include "common.cuh"

template <int N>
__global__ void reg_heavy(const float* in, float* out, size_t n) {
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
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
  if (i < n) out[i] = s;
}

int main() {
  float* in = device_floats(kN);
  float* out = device_floats(kN);
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  reg_heavy<160><<<sms * 8, 256>>>(in, out, kN);
  CHECK(cudaDeviceSynchronize());
  std::printf("register_heavy: done\n");
  return 0;
}
