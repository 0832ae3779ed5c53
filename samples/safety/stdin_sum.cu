// Sums the numbers it reads from stdin on the GPU.
// Expected under `gpulint ./stdin_sum < numbers.txt`: both runs read all of the file and
// print the same sum. Under `seq 1 1000 | gpulint ./stdin_sum`: the program runs once,
// under ncu (a pipe is read once), and prints the sum 500500.
#include <cstdio>
#include <vector>

__global__ void sum(const float* x, int n, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, x[i]);
}

int main() {
  std::vector<float> values;
  float v;
  while (scanf("%f", &v) == 1) values.push_back(v);
  int n = static_cast<int>(values.size());
  float *d = nullptr, *out = nullptr;
  cudaMalloc(&d, (n + 1) * sizeof(float));
  cudaMalloc(&out, sizeof(float));
  cudaMemset(out, 0, sizeof(float));
  cudaMemcpy(d, values.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  sum<<<(n + 255) / 256 + 1, 256>>>(d, n, out);
  float h = 0;
  cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost);
  printf("sum of %d numbers read from stdin: %.0f\n", n, h);
  return 0;
}
