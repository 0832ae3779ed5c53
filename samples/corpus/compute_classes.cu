// Compute-side flaws, each beside its fix, for issue #26: the time goes to instructions,
// not bytes. Each pair does the same work and checks the same result.
//   1. torus_divmod / torus_shift: a 4-neighbour sum on a torus whose wrapped indices divide
//      by the run-time width and height (`/` and `%` compile to a dozen instructions each) /
//      the same with shifts and masks.
//   2. hash_loop / hash_unrolled: 48 rounds of an integer hash per element in a loop the
//      compiler may not unroll (#pragma unroll 1: a run-time trip count) / unrolled.
//   3. sfu_heavy / sfu_light: special functions (the XU pipe, 16 lanes a cycle): 1/sqrtf and
//      two __expf per term / rsqrtf and one __expf of the sum, the same values.
//   4. branch_divergent / branch_uniform: two long integer paths chosen by the parity of the
//      element, so every warp runs both / the same elements regrouped so that each warp takes
//      one path.
//   5. byte_histogram: a 256-bin histogram of bytes in shared memory: no floating-point work
//      at all (placed by instructions, not FLOPs).
// Each kernel runs REPEATS times; the program prints each one's median time (cudaEvent).
//   usage: compute_classes [LOG2_N [REPEATS]]   (default 26: 64 Mi elements, 5 times)
#include <cmath>

#include "pairs_timing.cuh"

// 1. A 4-neighbour sum on a torus of W x H (wrapping at the edges): the neighbours' indices
// by run-time division / by shifts and masks (W and H are powers of two).
__global__ void torus_divmod(const unsigned* in, unsigned* out, unsigned n, unsigned w,
                             unsigned h) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned row = i / w, col = i % w;
  unsigned left = (col + w - 1) % w, right = (col + 1) % w;
  unsigned up = (row + h - 1) % h, down = (row + 1) % h;
  out[i] = in[row * w + left] + in[row * w + right] + in[up * w + col] + in[down * w + col];
}

__global__ void torus_shift(const unsigned* in, unsigned* out, unsigned n, unsigned log_w,
                            unsigned log_h) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned mask_w = (1u << log_w) - 1, mask_h = (1u << log_h) - 1;
  unsigned row = i >> log_w, col = i & mask_w;
  unsigned left = (col - 1) & mask_w, right = (col + 1) & mask_w;
  unsigned up = (row - 1) & mask_h, down = (row + 1) & mask_h;
  out[i] = in[(row << log_w) + left] + in[(row << log_w) + right] + in[(up << log_w) + col] +
           in[(down << log_w) + col];
}

// 2. An integer mixing hash (xorshift-multiply), rounds a run-time value / a constant.
__device__ __forceinline__ unsigned mix(unsigned x, unsigned k) {
  x ^= x >> 15;
  x *= 0x2c1b3c6dU + k;
  x ^= x >> 12;
  return x;
}

__global__ void hash_loop(const unsigned* in, unsigned* out, unsigned n, int rounds) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i];
#pragma unroll 1
  for (int k = 0; k < rounds; ++k) x = mix(x, k);
  out[i] = x;
}

template <int kRounds>
__global__ void hash_unrolled(const unsigned* in, unsigned* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i];
#pragma unroll
  for (int k = 0; k < kRounds; ++k) x = mix(x, k);
  out[i] = x;
}

// 3. Sum over 16 terms of exp(a) * exp(b) / sqrt(x), special functions per term: 3 / 2.
__global__ void sfu_heavy(const float* in, float* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i], acc = 0.f;
#pragma unroll
  for (int k = 1; k <= 16; ++k) {
    float a = v * 0.01f * k, b = 0.5f - v * 0.001f * k, x = v + k;
    acc += __expf(a) * __expf(b) * (1.0f / sqrtf(x));
  }
  out[i] = acc;
}

__global__ void sfu_light(const float* in, float* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = in[i], acc = 0.f;
#pragma unroll
  for (int k = 1; k <= 16; ++k) {
    float a = v * 0.01f * k, b = 0.5f - v * 0.001f * k, x = v + k;
    acc += __expf(a + b) * rsqrtf(x);
  }
  out[i] = acc;
}

// 4. Two paths of 64 rounds each; path by element parity.
__device__ unsigned path_a(unsigned x) {
#pragma unroll 8
  for (int k = 0; k < 64; ++k) x = mix(x, k);
  return x;
}
__device__ unsigned path_b(unsigned x) {
#pragma unroll 8
  for (int k = 0; k < 64; ++k) x = (x << 5) + (x >> 3) + 0x9e3779b9U + k;
  return x;
}

__global__ void branch_divergent(const unsigned* in, unsigned* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned x = in[i];
  out[i] = (i & 1) ? path_a(x) : path_b(x);
}

// The fix: each block stages its elements in shared memory (coalesced), and lanes of a warp
// take elements of one parity: of 64 consecutive threads, the first warp the even elements,
// the second the odd ones. Then the results go back coalesced.
__global__ void branch_uniform(const unsigned* in, unsigned* out, unsigned n) {
  __shared__ unsigned stage[256];
  unsigned base = blockIdx.x * blockDim.x, t = threadIdx.x;
  if (base + t < n) stage[t] = in[base + t];
  __syncthreads();
  unsigned mine = (t & ~63u) | ((t >> 5) & 1u) | ((t & 31u) << 1);
  unsigned x = stage[mine];
  x = (mine & 1) ? path_a(x) : path_b(x);
  __syncthreads();
  stage[mine] = x;
  __syncthreads();
  if (base + t < n) out[base + t] = stage[t];
}

// 5. 256-bin histogram of bytes, per block in shared memory, then merged.
__global__ void byte_histogram(const unsigned* in, unsigned* bins, unsigned n) {
  __shared__ unsigned local[256];
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    unsigned word = in[i];
    atomicAdd(&local[word & 255], 1);
    atomicAdd(&local[(word >> 8) & 255], 1);
    atomicAdd(&local[(word >> 16) & 255], 1);
    atomicAdd(&local[word >> 24], 1);
  }
  __syncthreads();
  for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&bins[b], local[b]);
}

int main(int argc, char** argv) {
  unsigned log_n = argc > 1 ? std::atoi(argv[1]) : 26;
  if (argc > 2) repeats = std::max(1, std::atoi(argv[2]));
  unsigned n = 1u << log_n, log_w = log_n / 2;
  unsigned block = 256, grid = (n + block - 1) / block;
  std::vector<unsigned> host(n);
  for (unsigned i = 0; i < n; ++i) host[i] = i * 2654435761u;
  unsigned *in, *out_a, *out_b, *bins;
  float *fin, *fout_a, *fout_b;
  CHECK(cudaMalloc(&in, n * 4));
  CHECK(cudaMalloc(&out_a, n * 4));
  CHECK(cudaMalloc(&out_b, n * 4));
  CHECK(cudaMalloc(&bins, 256 * 4));
  CHECK(cudaMalloc(&fin, n * 4));
  CHECK(cudaMalloc(&fout_a, n * 4));
  CHECK(cudaMalloc(&fout_b, n * 4));
  CHECK(cudaMemcpy(in, host.data(), n * 4, cudaMemcpyHostToDevice));
  std::vector<float> fhost(n);
  for (unsigned i = 0; i < n; ++i) fhost[i] = (i % 1000) * 0.001f;
  CHECK(cudaMemcpy(fin, fhost.data(), n * 4, cudaMemcpyHostToDevice));

  unsigned log_h = log_n - log_w, w = 1u << log_w, h = 1u << log_h;
  float a = median_ms([&] { torus_divmod<<<grid, block>>>(in, out_a, n, w, h); });
  float b = median_ms([&] { torus_shift<<<grid, block>>>(in, out_b, n, log_w, log_h); });
  print_pair("torus_divmod", a, "torus_shift", b, fetch(out_a, n) == fetch(out_b, n), 18);

  unsigned hn = n / 4;
  a = median_ms([&] { hash_loop<<<hn / block, block>>>(in, out_a, hn, 48); });
  b = median_ms([&] { hash_unrolled<48><<<hn / block, block>>>(in, out_b, hn); });
  print_pair("hash_loop", a, "hash_unrolled", b, fetch(out_a, hn) == fetch(out_b, hn), 18);

  a = median_ms([&] { sfu_heavy<<<grid, block>>>(fin, fout_a, n); });
  b = median_ms([&] { sfu_light<<<grid, block>>>(fin, fout_b, n); });
  std::vector<float> fa = fetch(fout_a, n), fb = fetch(fout_b, n);
  bool close = true;
  for (unsigned i = 0; i < n; i += 997) close &= std::abs(fa[i] - fb[i]) <= 1e-3f * std::abs(fa[i]) + 1e-5f;
  print_pair("sfu_heavy", a, "sfu_light", b, close, 18);

  unsigned dn = n / 4;
  a = median_ms([&] { branch_divergent<<<dn / block, block>>>(in, out_a, dn); });
  b = median_ms([&] { branch_uniform<<<dn / block, block>>>(in, out_b, dn); });
  print_pair("branch_divergent", a, "branch_uniform", b, fetch(out_a, dn) == fetch(out_b, dn), 18);

  CHECK(cudaMemset(bins, 0, 256 * 4));
  float hist_ms = median_ms([&] { byte_histogram<<<132 * 8, block>>>(in, bins, n); });
  std::vector<unsigned> counts = fetch(bins, 256);
  unsigned long long total = 0;
  for (unsigned c : counts) total += c;
  std::printf("%-18s %8.3f ms   counted %llu bytes of %llu\n", "byte_histogram", hist_ms, total / repeats,
              4ull * n);
  return 0;
}
