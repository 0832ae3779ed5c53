// k-nearest-neighbour search over an array of 32-byte records, in the style of Rodinia's
// `nn`: one kernel computes every record's distance to the query from its x, y and z
// fields; a second reduces each block's distances to its nearest record.
//   usage: knn [records=4194304] [queries=4]
#include <cfloat>
#include "../src/common.cuh"

struct Record {
  float x, y, z;
  int label;
  float features[4];
};

__global__ void distances(const Record* records, float qx, float qy, float qz, float* dist,
                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float dx = records[i].x - qx, dy = records[i].y - qy, dz = records[i].z - qz;
  dist[i] = sqrtf(dx * dx + dy * dy + dz * dz);
}

__global__ void block_nearest(const float* dist, float* best, int* best_index, int n) {
  __shared__ float d[256];
  __shared__ int idx[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  d[threadIdx.x] = i < n ? dist[i] : FLT_MAX;
  idx[threadIdx.x] = i;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && d[threadIdx.x + s] < d[threadIdx.x]) {
      d[threadIdx.x] = d[threadIdx.x + s];
      idx[threadIdx.x] = idx[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    best[blockIdx.x] = d[0];
    best_index[blockIdx.x] = idx[0];
  }
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1 << 22;
  int queries = argc > 2 ? atoi(argv[2]) : 4;
  Record* records;
  float *dist, *best;
  int* best_index;
  int blocks = (n + 255) / 256;
  CHECK(cudaMalloc(&records, size_t(n) * sizeof(Record)));
  CHECK(cudaMemset(records, 0, size_t(n) * sizeof(Record)));
  CHECK(cudaMalloc(&dist, n * sizeof(float)));
  CHECK(cudaMalloc(&best, blocks * sizeof(float)));
  CHECK(cudaMalloc(&best_index, blocks * sizeof(int)));
  for (int q = 0; q < queries; q++) {
    distances<<<blocks, 256>>>(records, 0.1f * q, 0.2f * q, 0.3f * q, dist, n);
    block_nearest<<<blocks, 256>>>(dist, best, best_index, n);
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("knn %d records, %d queries\n", n, queries);
  return 0;
}
