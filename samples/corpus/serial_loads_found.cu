// Two kernels that serial-loads (GL507) flagged where no expectation had: index_shift
// (heldout_pairs.cu, pair 10's fixed twin) and reduce_many_per_thread (reduction.cu), each
// copied here unchanged beside the fix the finding names. ncu's launch order: 0 index_shift,
// 1 index_shift_prefetch, 2 reduce_many_per_thread, 3 reduce_four_per_thread (REPEATS 1).
//   usage: serial_loads_found [REPEATS]   (default 5)
//
// What the finding predicts, written from the first capture's figures before this program
// ran (2026-12-02, lab/runs/2026-12-02-serial-loads.txt):
//  index_shift: 1.0 load in flight while its warps wait, 16 loads a warp, busiest unit 55%:
//    the store of each element may alias the next element's load (no __restrict__), so
//    each load waits for the one before. Stake 45%. The fix loads all 16 elements first
//    (__restrict__, unrolled): saving ~25-45%.
//  reduce_many_per_thread: 1.0 in flight, 8 loads a warp, busiest 43%: a grid-stride loop
//    the compiler left rolled. Stake 57%. The fix keeps four accumulators: saving ~30-50%,
//    less where the block's shared-memory tree takes its share.
#include "pairs_timing.cuh"

constexpr int N = 1 << 24;

__global__ void index_shift(const float* in, float* out, int n, int wshift, int hshift) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int e = 0; e < 16; ++e) {
    int flat = e * (n / 16) + t;
    if (flat >= n) return;
    int x = flat & ((1 << wshift) - 1), y = (flat >> wshift) & ((1 << hshift) - 1);
    int z = flat >> (wshift + hshift);
    out[flat] = in[flat] + x + y + z;
  }
}

__global__ void index_shift_prefetch(const float* __restrict__ in, float* __restrict__ out,
                                     int n, int wshift, int hshift) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float v[16];
#pragma unroll
  for (int e = 0; e < 16; ++e) {
    int flat = e * (n / 16) + t;
    v[e] = flat < n ? in[flat] : 0.0f;
  }
#pragma unroll
  for (int e = 0; e < 16; ++e) {
    int flat = e * (n / 16) + t;
    if (flat >= n) return;
    int x = flat & ((1 << wshift) - 1), y = (flat >> wshift) & ((1 << hshift) - 1);
    int z = flat >> (wshift + hshift);
    out[flat] = v[e] + x + y + z;
  }
}

constexpr unsigned kBlock = 256;

__device__ void block_sum(int sum, int* out) {
  __shared__ int s[kBlock];
  unsigned tid = threadIdx.x;
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

__global__ void reduce_many_per_thread(const int* in, int* out, unsigned n) {
  int sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    sum += in[i];
  block_sum(sum, out);
}

__global__ void reduce_four_per_thread(const int* __restrict__ in, int* out, unsigned n) {
  unsigned stride = gridDim.x * blockDim.x, i = blockIdx.x * blockDim.x + threadIdx.x;
  int s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (; i + 3 * stride < n; i += 4 * stride) {
    s0 += in[i];
    s1 += in[i + stride];
    s2 += in[i + 2 * stride];
    s3 += in[i + 3 * stride];
  }
  for (; i < n; i += stride) s0 += in[i];
  block_sum(s0 + s1 + s2 + s3, out);
}

int main(int argc, char** argv) {
  if (argc > 1) repeats = std::max(1, std::atoi(argv[1]));
  float *fa, *fb, *fc;
  CHECK(cudaMalloc(&fa, size_t(N) * sizeof(float)));
  CHECK(cudaMalloc(&fb, size_t(N) * sizeof(float)));
  CHECK(cudaMalloc(&fc, size_t(N) * sizeof(float)));
  std::vector<float> half(N, 0.5f);
  CHECK(cudaMemcpy(fa, half.data(), size_t(N) * sizeof(float), cudaMemcpyHostToDevice));
  int g16 = (N / 16 + 255) / 256;
  float a = median_ms([&] { index_shift<<<g16, 256>>>(fa, fb, N, 8, 8); });
  float b = median_ms([&] { index_shift_prefetch<<<g16, 256>>>(fa, fc, N, 8, 8); });
  print_pair("index_shift", a, "index_shift_prefetch", b, fetch(fb, N) == fetch(fc, N), 22);

  std::vector<int> host(N);
  for (int i = 0; i < N; ++i) host[i] = i % 7 - 3;
  int *in, *pa, *pb;
  CHECK(cudaMalloc(&in, size_t(N) * sizeof(int)));
  unsigned blocks = N / kBlock / 8;
  CHECK(cudaMalloc(&pa, blocks * sizeof(int)));
  CHECK(cudaMalloc(&pb, blocks * sizeof(int)));
  CHECK(cudaMemcpy(in, host.data(), size_t(N) * sizeof(int), cudaMemcpyHostToDevice));
  a = median_ms([&] { reduce_many_per_thread<<<blocks, kBlock>>>(in, pa, N); });
  b = median_ms([&] { reduce_four_per_thread<<<blocks, kBlock>>>(in, pb, N); });
  std::vector<int> ra = fetch(pa, blocks), rb = fetch(pb, blocks);
  long long sa = 0, sb = 0;
  for (unsigned k = 0; k < blocks; ++k) sa += ra[k], sb += rb[k];
  print_pair("reduce_many_per_thread", a, "reduce_four_per_thread", b, sa == sb, 22);
  return 0;
}
