// Needleman-Wunsch sequence alignment in the style of Rodinia's `nw`: a wavefront over
// 16x16 tiles of the score matrix. Each launch processes one anti-diagonal of tiles with
// one 16-thread block per tile: the grid grows from 1 to n/16 blocks, then shrinks.
//   usage: nw [n=512] [penalty=10]
#include <vector>
#include "../src/common.cuh"

#define BS 16

__device__ int maximum(int a, int b, int c) {
  int k = a > b ? a : b;
  return k > c ? k : c;
}

// Fills tile (bx, by) of the score matrix; `cols` = n + 1 makes every row start 4 bytes
// further from a sector boundary than the last.
__device__ void tile(const int* ref_g, int* score, int cols, int penalty, int bx, int by) {
  int tx = threadIdx.x;
  int index = cols * BS * by + BS * bx + tx + (cols + 1);
  int index_n = cols * BS * by + BS * bx + tx + 1;
  int index_w = cols * BS * by + BS * bx + cols;
  int index_nw = cols * BS * by + BS * bx;
  __shared__ int temp[BS + 1][BS + 1];
  __shared__ int ref[BS][BS];
  if (tx == 0) temp[0][0] = score[index_nw];
  for (int ty = 0; ty < BS; ty++) ref[ty][tx] = ref_g[index + cols * ty];
  __syncthreads();
  temp[tx + 1][0] = score[index_w + cols * tx];
  __syncthreads();
  temp[0][tx + 1] = score[index_n];
  __syncthreads();
  for (int m = 0; m < BS; m++) {
    if (tx <= m) {
      int x = tx + 1, y = m - tx + 1;
      temp[y][x] = maximum(temp[y - 1][x - 1] + ref[y - 1][x - 1], temp[y][x - 1] - penalty,
                           temp[y - 1][x] - penalty);
    }
    __syncthreads();
  }
  for (int m = BS - 2; m >= 0; m--) {
    if (tx <= m) {
      int x = tx + BS - m, y = BS - tx;
      temp[y][x] = maximum(temp[y - 1][x - 1] + ref[y - 1][x - 1], temp[y][x - 1] - penalty,
                           temp[y - 1][x] - penalty);
    }
    __syncthreads();
  }
  for (int ty = 0; ty < BS; ty++) score[index + ty * cols] = temp[ty + 1][tx + 1];
}

// Upper-left triangle of tiles: diagonal i has i tiles.
__global__ void needle_cuda_shared_1(const int* ref, int* score, int cols, int penalty, int i) {
  tile(ref, score, cols, penalty, blockIdx.x, i - 1 - blockIdx.x);
}

// Lower-right triangle.
__global__ void needle_cuda_shared_2(const int* ref, int* score, int cols, int penalty, int i,
                                     int block_width) {
  tile(ref, score, cols, penalty, blockIdx.x + block_width - i, block_width - blockIdx.x - 1);
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 512;
  int penalty = argc > 2 ? atoi(argv[2]) : 10;
  int cols = n + 1, rows = n + 1;
  std::vector<int> href(size_t(rows) * cols), hscore(size_t(rows) * cols, 0);
  srand(7);
  for (auto& v : href) v = rand() % 21 - 10;
  for (int i = 1; i < rows; i++) hscore[size_t(i) * cols] = -i * penalty;
  for (int j = 1; j < cols; j++) hscore[j] = -j * penalty;
  int *ref, *score;
  CHECK(cudaMalloc(&ref, href.size() * sizeof(int)));
  CHECK(cudaMalloc(&score, hscore.size() * sizeof(int)));
  CHECK(cudaMemcpy(ref, href.data(), href.size() * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(score, hscore.data(), hscore.size() * sizeof(int), cudaMemcpyHostToDevice));
  int block_width = n / BS;
  for (int i = 1; i <= block_width; i++)
    needle_cuda_shared_1<<<i, BS>>>(ref, score, cols, penalty, i);
  for (int i = block_width - 1; i >= 1; i--)
    needle_cuda_shared_2<<<i, BS>>>(ref, score, cols, penalty, i, block_width);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(hscore.data(), score, hscore.size() * sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("nw %d: score = %d\n", n, hscore.back());
  return 0;
}
