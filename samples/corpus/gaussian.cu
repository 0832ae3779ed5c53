// Gaussian elimination in the style of Rodinia's `gaussian`: for every pivot row t, Fan1
// computes the multipliers of column t and Fan2 updates the rows below. Two launches per
// step with fixed grids: 2 x (size - 1) launches.
//   usage: gaussian [size=1024]
#include <vector>
#include "../src/common.cuh"

__global__ void Fan1(float* m, const float* a, int size, int t) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= size - 1 - t) return;
  // Column t of rows below the pivot: consecutive threads are a whole row apart.
  m[size * (r + t + 1) + t] = a[size * (r + t + 1) + t] / a[size * t + t];
}

__global__ void Fan2(const float* m, float* a, float* b, int size, int t) {
  int xidx = blockIdx.x * blockDim.x + threadIdx.x;  // the row below the pivot
  int yidx = blockIdx.y * blockDim.y + threadIdx.y;  // the column
  if (xidx >= size - 1 - t) return;
  if (yidx >= size - t) return;
  a[size * (xidx + 1 + t) + (yidx + t)] -= m[size * (xidx + 1 + t) + t] * a[size * t + (yidx + t)];
  if (yidx == 0) b[xidx + 1 + t] -= m[size * (xidx + 1 + t) + t] * b[t];
}

int main(int argc, char** argv) {
  int size = argc > 1 ? atoi(argv[1]) : 1024;
  std::vector<float> ha(size_t(size) * size), hb(size, 1.0f);
  for (int i = 0; i < size; i++)
    for (int j = 0; j < size; j++) ha[size_t(i) * size + j] = (i == j) ? size : 1.0f / (1 + i + j);
  float *a, *b, *m;
  CHECK(cudaMalloc(&a, ha.size() * sizeof(float)));
  CHECK(cudaMalloc(&m, ha.size() * sizeof(float)));
  CHECK(cudaMalloc(&b, size * sizeof(float)));
  CHECK(cudaMemcpy(a, ha.data(), ha.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(b, hb.data(), size * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(m, 0, ha.size() * sizeof(float)));
  dim3 block2(16, 16), grid2((size + 15) / 16, (size + 15) / 16);
  for (int t = 0; t < size - 1; t++) {
    Fan1<<<(size + 511) / 512, 512>>>(m, a, size, t);
    Fan2<<<grid2, block2>>>(m, a, b, size, t);
  }
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(hb.data(), b, size * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("gaussian %d: b[last] = %f\n", size, hb.back());
  return 0;
}
