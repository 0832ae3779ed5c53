// Blocked LU decomposition in the style of Rodinia's `lud`: per 16x16 diagonal step, one
// kernel factors the diagonal block, one the perimeter row and column, one updates the
// trailing matrix. The trailing grid shrinks by one block per dimension every step.
//   usage: lud [matrix_dim=2048]
#include <vector>
#include "../src/common.cuh"

#define BS 16

__global__ void lud_diagonal(float* m, int dim, int offset) {
  __shared__ float shadow[BS][BS];
  int base = offset * dim + offset;
  for (int i = 0; i < BS; i++) shadow[i][threadIdx.x] = m[base + i * dim + threadIdx.x];
  __syncthreads();
  for (int i = 0; i < BS - 1; i++) {
    if (threadIdx.x > i) {
      for (int j = 0; j < i; j++) shadow[threadIdx.x][i] -= shadow[threadIdx.x][j] * shadow[j][i];
      shadow[threadIdx.x][i] /= shadow[i][i];
    }
    __syncthreads();
    if (threadIdx.x > i) {
      for (int j = 0; j < i + 1; j++) shadow[i + 1][threadIdx.x] -= shadow[i + 1][j] * shadow[j][threadIdx.x];
    }
    __syncthreads();
  }
  for (int i = 1; i < BS; i++) m[base + i * dim + threadIdx.x] = shadow[i][threadIdx.x];
}

__global__ void lud_perimeter(float* m, int dim, int offset) {
  __shared__ float dia[BS][BS];
  __shared__ float peri_row[BS][BS];
  __shared__ float peri_col[BS][BS];
  int base = offset * dim + offset;
  if (threadIdx.x < BS) {
    int idx = threadIdx.x;
    for (int i = 0; i < BS / 2; i++) dia[i][idx] = m[base + i * dim + idx];
    for (int i = 0; i < BS; i++) peri_row[i][idx] = m[base + i * dim + (blockIdx.x + 1) * BS + idx];
  } else {
    int idx = threadIdx.x - BS;
    for (int i = BS / 2; i < BS; i++) dia[i][idx] = m[base + i * dim + idx];
    int col_base = (offset + (blockIdx.x + 1) * BS) * dim + offset;
    for (int i = 0; i < BS; i++) peri_col[i][idx] = m[col_base + i * dim + idx];
  }
  __syncthreads();
  if (threadIdx.x < BS) {
    int idx = threadIdx.x;
    for (int i = 1; i < BS; i++)
      for (int j = 0; j < i; j++) peri_row[i][idx] -= dia[i][j] * peri_row[j][idx];
  } else {
    int idx = threadIdx.x - BS;
    for (int i = 0; i < BS; i++) {
      for (int j = 0; j < i; j++) peri_col[idx][i] -= peri_col[idx][j] * dia[j][i];
      peri_col[idx][i] /= dia[i][i];
    }
  }
  __syncthreads();
  if (threadIdx.x < BS) {
    int idx = threadIdx.x;
    for (int i = 1; i < BS; i++) m[base + i * dim + (blockIdx.x + 1) * BS + idx] = peri_row[i][idx];
  } else {
    int idx = threadIdx.x - BS;
    int col_base = (offset + (blockIdx.x + 1) * BS) * dim + offset;
    for (int i = 0; i < BS; i++) m[col_base + i * dim + idx] = peri_col[i][idx];
  }
}

__global__ void lud_internal(float* m, int dim, int offset) {
  __shared__ float peri_row[BS][BS];
  __shared__ float peri_col[BS][BS];
  int row = offset + (blockIdx.y + 1) * BS;
  int col = offset + (blockIdx.x + 1) * BS;
  peri_row[threadIdx.y][threadIdx.x] = m[(offset + threadIdx.y) * dim + col + threadIdx.x];
  peri_col[threadIdx.y][threadIdx.x] = m[(row + threadIdx.y) * dim + offset + threadIdx.x];
  __syncthreads();
  float sum = 0;
  for (int i = 0; i < BS; i++) sum += peri_col[threadIdx.y][i] * peri_row[i][threadIdx.x];
  m[(row + threadIdx.y) * dim + col + threadIdx.x] -= sum;
}

int main(int argc, char** argv) {
  int dim = argc > 1 ? atoi(argv[1]) : 2048;
  std::vector<float> h(size_t(dim) * dim);
  // Diagonally dominant, so the factorisation needs no pivoting.
  for (int i = 0; i < dim; i++)
    for (int j = 0; j < dim; j++) h[size_t(i) * dim + j] = (i == j) ? dim : 1.0f / (1 + i + j);
  float* m;
  CHECK(cudaMalloc(&m, h.size() * sizeof(float)));
  CHECK(cudaMemcpy(m, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  int i = 0;
  for (; i < dim - BS; i += BS) {
    lud_diagonal<<<1, BS>>>(m, dim, i);
    lud_perimeter<<<(dim - i) / BS - 1, BS * 2>>>(m, dim, i);
    dim3 grid((dim - i) / BS - 1, (dim - i) / BS - 1);
    lud_internal<<<grid, dim3(BS, BS)>>>(m, dim, i);
  }
  lud_diagonal<<<1, BS>>>(m, dim, i);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(h.data(), m, h.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("lud %d: U[last] = %f\n", dim, h.back());
  return 0;
}
