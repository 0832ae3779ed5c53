// Each thread follows a chain of dependent loads through a small table: neither compute
// nor memory gets busy. gpulint should call it latency-bound.
#include "common.cuh"

__global__ void chase(const int* next, int* out, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int p = i & 4095;
  for (int s = 0; s < steps; s++) p = next[p];
  out[i] = p;
}

__global__ void init_chain(int* next, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) next[i] = (i * 1103 + 17) % n;
}

int main() {
  int *next = nullptr, *out = nullptr;
  const int table = 4096, threads = 132 * 4 * 256;
  CHECK(cudaMalloc(&next, table * sizeof(int)));
  CHECK(cudaMalloc(&out, threads * sizeof(int)));
  init_chain<<<table / 256, 256>>>(next, table);
  chase<<<threads / 256, 256>>>(next, out, 2000);
  CHECK(cudaDeviceSynchronize());
  std::printf("latency_chase: done\n");
  return 0;
}
