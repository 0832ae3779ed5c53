// The resampling half of a particle filter, in the style of Rodinia's `particlefilter`:
// weigh the particles, sum the weights, normalise them and build the CDF, then find
// each particle's new index by a linear search of the CDF. The sum of the block
// partials and the CDF are computed by one thread, serially, as in the original.
//   usage: particlefilter [particles=65536] [frames=3]
#include <cmath>
#include <vector>
#include "../src/common.cuh"

__global__ void likelihood_kernel(const float* x, const float* y, float* weights,
                                  float* partial_sums, float obs_x, float obs_y, int n) {
  __shared__ float buffer[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float w = 0;
  if (i < n) {
    float dx = x[i] - obs_x, dy = y[i] - obs_y;
    w = weights[i] * expf(-(dx * dx + dy * dy) / 50.0f);
    weights[i] = w;
  }
  buffer[threadIdx.x] = w;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buffer[threadIdx.x] += buffer[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial_sums[blockIdx.x] = buffer[0];
}

__global__ void sum_kernel(float* partial_sums, int blocks) {
  if (blockIdx.x * blockDim.x + threadIdx.x == 0) {
    float sum = 0;
    for (int b = 0; b < blocks; b++) sum += partial_sums[b];
    partial_sums[0] = sum;
  }
}

__global__ void normalize_weights_kernel(const float* weights, float* normalized,
                                         const float* partial_sums, float* cdf, float* u,
                                         float u1, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float sum = partial_sums[0];
  if (i < n) normalized[i] = weights[i] / sum;
  if (i == 0) {
    // The CDF, serially, in one thread of one block.
    float acc = 0;
    for (int k = 0; k < n; k++) {
      acc += weights[k] / sum;
      cdf[k] = acc;
    }
  }
  if (i < n) u[i] = u1 + i / float(n);
}

__global__ void find_index_kernel(const float* cdf, const float* u, const float* x,
                                  const float* y, float* x_new, float* y_new, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int index = n - 1;
  for (int k = 0; k < n; k++) {
    if (cdf[k] >= u[i]) {
      index = k;
      break;
    }
  }
  x_new[i] = x[index];
  y_new[i] = y[index];
}

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 65536;
  int frames = argc > 2 ? atoi(argv[2]) : 3;
  int blocks = (n + 255) / 256;
  float* x = device_floats(n);
  float* y = device_floats(n);
  float* x_new = device_floats(n);
  float* y_new = device_floats(n);
  float* weights = device_floats(n);
  float* normalized = device_floats(n);
  float* cdf = device_floats(n);
  float* u = device_floats(n);
  float* partial = device_floats(blocks);
  std::vector<float> ones(n, 1.0f / n);
  CHECK(cudaMemcpy(weights, ones.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  for (int f = 0; f < frames; f++) {
    likelihood_kernel<<<blocks, 256>>>(x, y, weights, partial, 0.5f * f, 0.25f * f, n);
    sum_kernel<<<blocks, 256>>>(partial, blocks);
    normalize_weights_kernel<<<blocks, 256>>>(weights, normalized, partial, cdf, u, 0.5f / n, n);
    std::swap(weights, normalized);
    find_index_kernel<<<blocks, 256>>>(cdf, u, x, y, x_new, y_new, n);
    std::swap(x, x_new);
    std::swap(y, y_new);
  }
  CHECK(cudaDeviceSynchronize());
  std::printf("particlefilter %d particles, %d frames\n", n, frames);
  return 0;
}
