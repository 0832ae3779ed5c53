// The classic steps of a parallel sum (Mark Harris, "Optimizing Parallel Reduction in
// CUDA"), on 16 Mi ints: 65,536 blocks of 256 threads, each block summing its share into
// one partial. Every step keeps the same result and removes one cost; none of them does
// floating-point work, so the cost is instruction overhead, divergence and shared memory.
//   usage: reduction [LOG2_N]   (default 24: 16 Mi elements)
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr unsigned kBlock = 256;

// 1. Interleaved addressing, divergent: `tid % (2*s)` leaves most lanes of every warp idle.
__global__ void reduce_divergent(const int* in, int* out) {
  __shared__ int s[kBlock];
  unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = in[i];
  __syncthreads();
  for (unsigned d = 1; d < blockDim.x; d *= 2) {
    if (tid % (2 * d) == 0) s[tid] += s[tid + d];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 2. Interleaved addressing, uniform per warp: `index = 2*d*tid` keeps the active threads
// contiguous, but strides shared memory: bank conflicts.
__global__ void reduce_strided_index(const int* in, int* out) {
  __shared__ int s[kBlock];
  unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = in[i];
  __syncthreads();
  for (unsigned d = 1; d < blockDim.x; d *= 2) {
    unsigned index = 2 * d * tid;
    if (index < blockDim.x) s[index] += s[index + d];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 3. Sequential addressing: contiguous threads, conflict-free; half the threads idle from
// the first step.
__global__ void reduce_sequential(const int* in, int* out) {
  __shared__ int s[kBlock];
  unsigned tid = threadIdx.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  s[tid] = in[i];
  __syncthreads();
  for (unsigned d = blockDim.x / 2; d > 0; d >>= 1) {
    if (tid < d) s[tid] += s[tid + d];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 4. The first add during the load: half the blocks, each thread adds two elements.
__global__ void reduce_first_add(const int* in, int* out) {
  __shared__ int s[kBlock];
  unsigned tid = threadIdx.x, i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  s[tid] = in[i] + in[i + blockDim.x];
  __syncthreads();
  for (unsigned d = blockDim.x / 2; d > 0; d >>= 1) {
    if (tid < d) s[tid] += s[tid + d];
    __syncthreads();
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}

// 5. The last warp with shuffles: no barrier and no shared memory in its five steps.
__global__ void reduce_warp_shuffle(const int* in, int* out) {
  __shared__ int s[kBlock];
  unsigned tid = threadIdx.x, i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;
  s[tid] = in[i] + in[i + blockDim.x];
  __syncthreads();
  for (unsigned d = blockDim.x / 2; d > 32; d >>= 1) {
    if (tid < d) s[tid] += s[tid + d];
    __syncthreads();
  }
  if (tid < 32) {
    int v = s[tid] + s[tid + 32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (tid == 0) out[blockIdx.x] = v;
  }
}

// 6. Several elements per thread (a grid-stride loop over 8 per thread), then as in 5.
__global__ void reduce_many_per_thread(const int* in, int* out, unsigned n) {
  __shared__ int s[kBlock];
  unsigned tid = threadIdx.x;
  int sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) sum += in[i];
  s[tid] = sum;
  __syncthreads();
  for (unsigned d = blockDim.x / 2; d > 32; d >>= 1) {
    if (tid < d) s[tid] += s[tid + d];
    __syncthreads();
  }
  if (tid < 32) {
    int v = s[tid] + s[tid + 32];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (tid == 0) out[blockIdx.x] = v;
  }
}

int main(int argc, char** argv) {
  unsigned log2n = argc > 1 ? std::atoi(argv[1]) : 24;
  unsigned n = 1u << log2n;
  std::vector<int> host(n);
  long long expect = 0;
  for (unsigned i = 0; i < n; ++i) { host[i] = int(i % 7) - 3; expect += host[i]; }
  int *in, *out;
  CHECK(cudaMalloc(&in, n * sizeof(int)));
  CHECK(cudaMalloc(&out, (n / kBlock) * sizeof(int)));
  CHECK(cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  auto check = [&](const char* name, unsigned partials) {
    std::vector<int> p(partials);
    CHECK(cudaMemcpy(p.data(), out, partials * sizeof(int), cudaMemcpyDeviceToHost));
    long long sum = 0;
    for (int v : p) sum += v;
    std::printf("%-24s %s\n", name, sum == expect ? "ok" : "WRONG");
  };
  unsigned blocks = n / kBlock;
  reduce_divergent<<<blocks, kBlock>>>(in, out);
  check("reduce_divergent", blocks);
  reduce_strided_index<<<blocks, kBlock>>>(in, out);
  check("reduce_strided_index", blocks);
  reduce_sequential<<<blocks, kBlock>>>(in, out);
  check("reduce_sequential", blocks);
  reduce_first_add<<<blocks / 2, kBlock>>>(in, out);
  check("reduce_first_add", blocks / 2);
  reduce_warp_shuffle<<<blocks / 2, kBlock>>>(in, out);
  check("reduce_warp_shuffle", blocks / 2);
  reduce_many_per_thread<<<blocks / 8, kBlock>>>(in, out, n);
  check("reduce_many_per_thread", blocks / 8);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
