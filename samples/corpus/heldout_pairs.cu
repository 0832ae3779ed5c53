// Held-out before/after pairs for time at stake (issue #40): written after the stake
// formulas were frozen (docs/time-at-stake.md, "Frozen"), on kernels no formula was fitted
// to. Each pair is a flaw and its documented fix, launched one after the other: ncu's
// launch order is before, after, for pairs 0 to 11 (IDs 2k and 2k + 1, REPEATS 1).
//   usage: heldout_pairs [REPEATS]   (default 1; the program prints each pair's median)
//
// What an expert expects, written from this source before any capture (2026-12-02). The
// rule that must fire on the before kernel, its stake, and the saving the fix should show:
//  0 copy_stride3 -> copy_unit: every third float (12-byte stride): a third of each
//    sector used. uncoalesced-load and -store, stake ~67%; saving ~60% (DRAM-bound both).
//  1 row_sum_thread -> row_sum_warp: a thread per row of a 4096-float row, so a warp's
//    lanes read 16 KiB apart; a warp per row with a shuffle sum. uncoalesced-load, stake
//    ~87%, and small-grid too (8192 threads: 32 blocks), which the warp per row also
//    answers; saving ~75-90%.
//  2 aos_xy -> soa_xy: x and y of a 16-byte struct (half of each sector); from two arrays.
//    uncoalesced-load, stake ~50%; saving ~40%.
//  3 matvec_smem_conflicted -> matvec_smem_padded: each thread reads its row of a 32x32
//    shared tile (tile[t][k]: one bank), padded to [32][33]. bank-conflicts, stake high
//    (~90% of wavefronts are replays, capped by the L1 headroom); saving ~50-70%. Both
//    have 32-thread blocks (block-size may fire on both; the pair answers conflicts).
//  4 saxpy_small_grid -> saxpy_full_grid: a grid-stride saxpy on 16 blocks of 256 threads,
//    then on 8 blocks per SM. small-grid, stake ~95%; saving ~85-90% (DRAM caps it).
//  5 scale_block32 -> scale_block256: an elementwise scale in 32-thread blocks (16 blocks
//    per SM at most: 25% occupancy), then 256. block-size, stake ~50%; saving ~40-60%.
//  6 bins_local -> bins_register: 16 bins per thread indexed by data (local memory), then
//    selected by an unrolled compare (registers). local-memory, stake ~80%; saving ~60-80%.
//  7 paths_by_lane -> paths_by_warp: four math paths chosen by lane & 3 (a warp runs all
//    four), then by warp & 3. divergent-warps, stake ~60-75%; saving ~65-75%.
//  8 conv_global_acc -> conv_register_acc: a 1D 63-tap convolution accumulating into
//    out[i] in global memory every tap, then in a register. global-accumulator, stake
//    ~85%; saving ~70-85%.
//  9 chase_one -> chase_four: pointer chases in an L2-resident 8 MiB permutation, four
//    chains per thread walked one after the other, then together (same hops). 512
//    blocks of 128 threads. latency-bound, stake ~50-75%; saving ~50-70%, less if the
//    L2's request rate binds first.
// 10 index_divmod -> index_shift: a 2D index from a flat one by / and % with run-time
//    sizes, in a loop of 16 elements per thread; then by shift and mask. issue-bound,
//    stake ~30-45%; saving ~20-40%.
// 11 chase_big_smem -> chase_small_smem: the one-chain chase launched with 200 KiB of
//    dynamic shared memory (one block per SM), then none. shared-memory-limited-occupancy,
//    stake ~50-85%; saving ~50-80%.
#include <cmath>

#include "pairs_timing.cuh"

constexpr int N = 1 << 24;  // floats in the streaming pairs: 64 MiB, past the L2

__global__ void copy_stride3(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 3) out[3 * i] = in[3 * i];
}
__global__ void copy_unit(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n / 3) out[i] = in[i];
}

constexpr int COLS = 4096;
__global__ void row_sum_thread(const float* m, float* sums, int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = 0; c < COLS; ++c) s += m[size_t(r) * COLS + c];
  sums[r] = s;
}
__global__ void row_sum_warp(const float* m, float* sums, int rows) {
  int r = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
  if (r >= rows) return;
  float s = 0.0f;
  for (int c = lane; c < COLS; c += 32) s += m[size_t(r) * COLS + c];
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  if (lane == 0) sums[r] = s;
}

struct Body { float x, y, z, w; };
__global__ void aos_xy(const Body* b, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = b[i].x * b[i].y;
}
__global__ void soa_xy(const float* x, const float* y, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = x[i] * y[i];
}

// Each block multiplies 32 rows of A (32 columns wide) by x, 64 times over the tile.
__global__ void matvec_smem_conflicted(const float* a, const float* x, float* y, int blocks) {
  __shared__ float tile[32][32];
  int t = threadIdx.x;
  const float* rows = a + size_t(blockIdx.x) * 32 * 32;
  for (int k = 0; k < 32; ++k) tile[k][t] = rows[k * 32 + t];
  __syncthreads();
  float s = 0.0f;
  // The column turns with r, so the compiler cannot keep the row in registers.
  for (int r = 0; r < 64; ++r)
    for (int k = 0; k < 32; ++k) s += tile[t][(k + r) & 31] * x[(k + r) & 31];
  y[blockIdx.x * 32 + t] = s;
}
__global__ void matvec_smem_padded(const float* a, const float* x, float* y, int blocks) {
  __shared__ float tile[32][33];
  int t = threadIdx.x;
  const float* rows = a + size_t(blockIdx.x) * 32 * 32;
  for (int k = 0; k < 32; ++k) tile[k][t] = rows[k * 32 + t];
  __syncthreads();
  float s = 0.0f;
  for (int r = 0; r < 64; ++r)
    for (int k = 0; k < 32; ++k) s += tile[t][(k + r) & 31] * x[(k + r) & 31];
  y[blockIdx.x * 32 + t] = s;
}

__global__ void saxpy_grid_stride(float a, const float* x, float* y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a * x[i] + y[i];
}

__global__ void scale(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}

__global__ void bins_local(const int* keys, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n / 64) return;
  int bins[16] = {0};
  for (int k = 0; k < 64; ++k) bins[keys[k * (n / 64) + i] & 15] += 1;
  int s = 0;
  for (int b = 0; b < 16; ++b) s += bins[b] * (b + 1);
  out[i] = s;
}
__global__ void bins_register(const int* keys, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n / 64) return;
  int bins[16] = {0};
  for (int k = 0; k < 64; ++k) {
    int key = keys[k * (n / 64) + i] & 15;
#pragma unroll
    for (int b = 0; b < 16; ++b) bins[b] += key == b;
  }
  int s = 0;
#pragma unroll
  for (int b = 0; b < 16; ++b) s += bins[b] * (b + 1);
  out[i] = s;
}

__device__ float path(int which, float v) {
  switch (which) {
    case 0: for (int k = 0; k < 48; ++k) v = sinf(v) + 0.25f; break;
    case 1: for (int k = 0; k < 48; ++k) v = cosf(v) - 0.25f; break;
    case 2: for (int k = 0; k < 48; ++k) v = expf(-v * v) + 0.5f; break;
    default: for (int k = 0; k < 48; ++k) v = sqrtf(v * v + 1.0f) - 0.75f; break;
  }
  return v;
}
__global__ void paths_by_lane(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = path(threadIdx.x & 3, in[i]);
}
__global__ void paths_by_warp(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = path((threadIdx.x / 32) & 3, in[i]);
}

constexpr int TAPS = 63;
__global__ void conv_global_acc(const float* in, const float* w, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - TAPS) return;
  out[i] = 0.0f;
  for (int k = 0; k < TAPS; ++k) out[i] += in[i + k] * w[k];
}
__global__ void conv_register_acc(const float* __restrict__ in, const float* __restrict__ w,
                                  float* __restrict__ out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n - TAPS) return;
  float s = 0.0f;
  for (int k = 0; k < TAPS; ++k) s += in[i + k] * w[k];
  out[i] = s;
}

constexpr int HOPS = 256;
constexpr int PERM = 1 << 21;  // ints in the chased permutation: 8 MiB, L2-resident
__global__ void chase_one(const int* next, int* out, int chains) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= chains / 4) return;
  int s = 0;
  for (int c = 0; c < 4; ++c) {
    int k = ((t * 4 + c) * 97) & (PERM - 1);
    for (int h = 0; h < HOPS; ++h) k = next[k];
    s += k;
  }
  out[t] = s;
}
__global__ void chase_four(const int* next, int* out, int chains) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= chains / 4) return;
  int k[4];
  for (int c = 0; c < 4; ++c) k[c] = ((t * 4 + c) * 97) & (PERM - 1);
  for (int h = 0; h < HOPS; ++h)
#pragma unroll
    for (int c = 0; c < 4; ++c) k[c] = next[k[c]];
  out[t] = k[0] + k[1] + k[2] + k[3];
}

__global__ void index_divmod(const float* in, float* out, int n, int width, int height) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int e = 0; e < 16; ++e) {
    int flat = e * (n / 16) + t;  // a warp's lanes on neighbouring elements
    if (flat >= n) return;
    int x = flat % width, y = (flat / width) % height, z = flat / (width * height);
    out[flat] = in[flat] + x + y + z;
  }
}
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

__global__ void chase_smem(const int* next, int* out, int chains) {
  extern __shared__ int unused[];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0 && chains < 0) unused[0] = 0;  // keeps the buffer
  if (t >= chains) return;
  int k = (t * 97) & (PERM - 1);
  for (int h = 0; h < HOPS; ++h) k = next[k];
  out[t] = k;
}

int main(int argc, char** argv) {
  if (argc > 1) repeats = std::max(1, std::atoi(argv[1]));
  float *fa, *fb, *fc, *fd;
  int *ia, *ib;
  CHECK(cudaMalloc(&fa, size_t(N) * 4 * sizeof(float)));
  CHECK(cudaMalloc(&fb, size_t(N) * 4 * sizeof(float)));
  CHECK(cudaMalloc(&fc, size_t(N) * sizeof(float)));
  CHECK(cudaMalloc(&fd, size_t(N) * sizeof(float)));
  CHECK(cudaMalloc(&ia, size_t(N) * sizeof(int)));
  CHECK(cudaMalloc(&ib, size_t(N) * sizeof(int)));
  std::vector<float> ones(size_t(N) * 4, 0.5f);
  CHECK(cudaMemcpy(fa, ones.data(), ones.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(fb, ones.data(), ones.size() * sizeof(float), cudaMemcpyHostToDevice));
  std::vector<int> keys(N);
  for (int k = 0; k < N; ++k) keys[k] = (k * 2654435761u) >> 7;
  CHECK(cudaMemcpy(ib, keys.data(), N * sizeof(int), cudaMemcpyHostToDevice));
  int b = 256, g = (N + b - 1) / b;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  // 0
  float t0 = median_ms([&] { copy_stride3<<<g, b>>>(fa, fb, N); });
  float t1 = median_ms([&] { copy_unit<<<g, b>>>(fa, fb, N); });
  print_pair("copy_stride3", t0, "copy_unit", t1, true, 24);
  // 1: 8192 rows of 4096
  int rows = 8192;
  t0 = median_ms([&] { row_sum_thread<<<rows / 256, 256>>>(fa, fc, rows); });
  t1 = median_ms([&] { row_sum_warp<<<rows * 32 / 256, 256>>>(fa, fd, rows); });
  print_pair("row_sum_thread", t0, "row_sum_warp", t1, true, 24);
  // 2
  t0 = median_ms([&] { aos_xy<<<g, b>>>(reinterpret_cast<const Body*>(fa), fc, N); });
  t1 = median_ms([&] { soa_xy<<<g, b>>>(fa, fb, fd, N); });
  print_pair("aos_xy", t0, "soa_xy", t1, true, 24);
  // 3: 16384 tiles
  int tiles = 16384;
  t0 = median_ms([&] { matvec_smem_conflicted<<<tiles, 32>>>(fa, fb, fc, tiles); });
  t1 = median_ms([&] { matvec_smem_padded<<<tiles, 32>>>(fa, fb, fd, tiles); });
  print_pair("matvec_smem_conflicted", t0, "matvec_smem_padded", t1, true, 24);
  // 4
  t0 = median_ms([&] { saxpy_grid_stride<<<16, 256>>>(2.0f, fa, fc, N); });
  t1 = median_ms([&] { saxpy_grid_stride<<<sms * 8, 256>>>(2.0f, fa, fd, N); });
  print_pair("saxpy_small_grid", t0, "saxpy_full_grid", t1, true, 24);
  // 5
  t0 = median_ms([&] { scale<<<N / 32, 32>>>(fa, fc, N); });
  t1 = median_ms([&] { scale<<<N / 256, 256>>>(fa, fd, N); });
  print_pair("scale_block32", t0, "scale_block256", t1, true, 24);
  // 6
  int* ic = reinterpret_cast<int*>(fc);
  int* id = reinterpret_cast<int*>(fd);
  t0 = median_ms([&] { bins_local<<<(N / 64 + 255) / 256, 256>>>(ib, ic, N); });
  t1 = median_ms([&] { bins_register<<<(N / 64 + 255) / 256, 256>>>(ib, id, N); });
  print_pair("bins_local", t0, "bins_register", t1, fetch(ic, N / 64) == fetch(id, N / 64), 24);
  // 7: 4 Mi elements
  int m = N / 4;
  t0 = median_ms([&] { paths_by_lane<<<m / 256, 256>>>(fa, fc, m); });
  t1 = median_ms([&] { paths_by_warp<<<m / 256, 256>>>(fa, fd, m); });
  print_pair("paths_by_lane", t0, "paths_by_warp", t1, true, 24);
  // 8
  t0 = median_ms([&] { conv_global_acc<<<g, b>>>(fa, fb, fc, N); });
  t1 = median_ms([&] { conv_register_acc<<<g, b>>>(fa, fb, fd, N); });
  print_pair("conv_global_acc", t0, "conv_register_acc", t1, true, 24);
  // 9: a permutation of 2 Mi ints (8 MiB, L2-resident); 256 Ki chains
  int perm_n = PERM, chains = 1 << 18;
  std::vector<int> perm = random_permutation(perm_n, 11);
  CHECK(cudaMemcpy(ia, perm.data(), perm_n * sizeof(int), cudaMemcpyHostToDevice));
  t0 = median_ms([&] { chase_one<<<(chains / 4 + 127) / 128, 128>>>(ia, ic, chains); });
  t1 = median_ms([&] { chase_four<<<(chains / 4 + 127) / 128, 128>>>(ia, id, chains); });
  print_pair("chase_one", t0, "chase_four", t1, true, 24);
  // 10: 256 x 256 x 256
  t0 = median_ms([&] { index_divmod<<<(N / 16 + 255) / 256, 256>>>(fa, fc, N, 256, 256); });
  t1 = median_ms([&] { index_shift<<<(N / 16 + 255) / 256, 256>>>(fa, fd, N, 8, 8); });
  print_pair("index_divmod", t0, "index_shift", t1, fetch(fc, N) == fetch(fd, N), 24);
  // 11: 256 Ki chains of one, 200 KiB of shared memory per block, then none
  int big = 200 * 1024;
  CHECK(cudaFuncSetAttribute(chase_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
  t0 = median_ms([&] { chase_smem<<<chains / 256, 256, big>>>(ia, ic, chains); });
  t1 = median_ms([&] { chase_smem<<<chains / 256, 256, 0>>>(ia, id, chains); });
  print_pair("chase_big_smem", t0, "chase_small_smem", t1, true, 24);
  CHECK(cudaDeviceSynchronize());
  return 0;
}
