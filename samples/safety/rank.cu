// One rank of an MPI-style job: two of these run at once under two_ranks.sh.
// Expected under `gpulint ./two_ranks.sh`: each rank prints its sum in both runs; the
// trace holds two processes, merged, each block naming its rank (RANK, set by the
// launcher); the report gives each rank's share of the GPU time, about half each, on
// device 0; gpulint exits 0 or 1.
#include <cstdio>
#include <cstdlib>

__global__ void ramp(float* x, int n, int rank) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = rank + 1;
}

__global__ void sum(const float* x, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}

int main(int argc, char** argv) {
  int rank = argc > 1 ? atoi(argv[1]) : 0;
  const int n = 1 << 16;
  float *d = nullptr, *out = nullptr;
  cudaMalloc(&d, n * sizeof(float));
  cudaMalloc(&out, sizeof(float));
  cudaMemset(out, 0, sizeof(float));
  for (int step = 0; step < 3; ++step) ramp<<<n / 256, 256>>>(d, n, rank);
  sum<<<n / 256, 256>>>(d, n, out);
  float h = 0;
  cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("rank %d: sum = %.0f\n", rank, h);
  return 0;
}
