// An iterative solver: conjugate gradients on the 5-point Laplacian of an n x n grid, the
// way a first GPU port writes it. Every scalar stays on the device, so one iteration is
// ten launches and no copy. What an expert expects of each kernel, written before gpulint
// was run on it:
// - `spmv_csr_scalar` (one thread per row, the CSR layout): in step j each lane reads
//   col[5i + j] and val[5i + j], 20 bytes from its neighbour, so a warp's request spans 20
//   sectors for 128 useful bytes: uncoalesced loads. The gather of x is near-diagonal
//   (i, i +- 1, i +- n): mostly coalesced. It takes the largest share of the time.
// - `spmv_ell` (the same matrix in column-major ELL, the fix): lane i reads entry i of each
//   column, stride 1: coalesced, memory-bound. Quiet.
// - `dot_partial` (grid-stride, one partial per block, 2 x 132 blocks of 256): coalesced,
//   memory-bound. Quiet.
// - `dot_final` (one block of 256 threads sums the partials) and `cg_scalars` (one thread
//   computes alpha and beta): a grid of one block, but a few microseconds of the iteration:
//   small-grid (and block-size for the single thread) at most as info, never a warning.
// - `axpy` and `xpay` (stride 1, 256-thread blocks over n^2 elements): memory-bound, quiet.
// On the H200 (fixtures/h200-corpus/expectations.toml): spmv_csr_scalar and spmv_ell as
// expected. At n = 1024 every launch is 1-18 us, so the rest did not: dot_final and
// cg_scalars take 4-10% of the GPU time (warnings, whose notes say to fuse them), and
// dot_partial, axpy and xpay never ramp up to DRAM's peak (latency-bound).
//   usage: cg_solver [n=1024] [iterations=20]
#include <cstdlib>
#include "../src/common.cuh"

__global__ void spmv_csr_scalar(int rows, const int* row_ptr, const int* col,
                                const float* val, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  float s = 0.0f;
  for (int j = row_ptr[i]; j < row_ptr[i + 1]; j++) s += val[j] * x[col[j]];
  y[i] = s;
}

// ELL with 5 slots per row, column-major: slot k of row i at k * rows + i; col -1 pads.
__global__ void spmv_ell(int rows, const int* col, const float* val, const float* x,
                         float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < 5; k++) {
    int c = col[k * rows + i];
    if (c >= 0) s += val[k * rows + i] * x[c];
  }
  y[i] = s;
}

__global__ void dot_partial(const float* a, const float* b, float* partial, int n) {
  __shared__ float buf[256];
  float s = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    s += a[i] * b[i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) buf[threadIdx.x] += buf[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[blockIdx.x] = buf[0];
}

__global__ void dot_final(const float* partial, int count, float* out) {
  __shared__ float buf[256];
  float s = 0.0f;
  for (int i = threadIdx.x; i < count; i += blockDim.x) s += partial[i];
  buf[threadIdx.x] = s;
  __syncthreads();
  for (int w = blockDim.x / 2; w > 0; w /= 2) {
    if (threadIdx.x < w) buf[threadIdx.x] += buf[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) *out = buf[0];
}

// scal[0] = r.r, scal[1] = p.Ap, scal[2] = new r.r; alpha and beta from them.
__global__ void cg_scalars(float* scal, float* alpha, float* beta, int phase) {
  if (phase == 0) {
    *alpha = scal[0] / scal[1];
  } else {
    *beta = scal[2] / scal[0];
    scal[0] = scal[2];
  }
}

// y += sign * a * x
__global__ void axpy(const float* a, float sign, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += sign * (*a) * x[i];
}

// p = r + b * p
__global__ void xpay(const float* r, const float* b, float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = r[i] + (*b) * p[i];
}

int main(int argc, char** argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 1024;
  int iterations = argc > 2 ? std::atoi(argv[2]) : 20;
  int rows = n * n;
  // The 5-point Laplacian, CSR and ELL, built on the host.
  int* row_ptr = (int*)std::malloc((rows + 1) * sizeof(int));
  int* col = (int*)std::malloc(size_t(rows) * 5 * sizeof(int));
  float* val = (float*)std::malloc(size_t(rows) * 5 * sizeof(float));
  int* ell_col = (int*)std::malloc(size_t(rows) * 5 * sizeof(int));
  float* ell_val = (float*)std::malloc(size_t(rows) * 5 * sizeof(float));
  int nnz = 0;
  for (int i = 0; i < rows; i++) {
    row_ptr[i] = nnz;
    int r = i / n, c = i % n;
    int cols[5] = {r > 0 ? i - n : -1, c > 0 ? i - 1 : -1, i, c < n - 1 ? i + 1 : -1,
                   r < n - 1 ? i + n : -1};
    for (int k = 0; k < 5; k++) {
      float v = k == 2 ? 4.0f : -1.0f;
      ell_col[size_t(k) * rows + i] = cols[k];
      ell_val[size_t(k) * rows + i] = cols[k] >= 0 ? v : 0.0f;
      if (cols[k] >= 0) {
        col[nnz] = cols[k];
        val[nnz] = v;
        nnz++;
      }
    }
  }
  row_ptr[rows] = nnz;
  int *d_row_ptr, *d_col, *d_ell_col;
  float *d_val, *d_ell_val, *x, *r, *p, *ap, *partial, *scal, *alpha, *beta;
  CHECK(cudaMalloc(&d_row_ptr, (rows + 1) * sizeof(int)));
  CHECK(cudaMalloc(&d_col, nnz * sizeof(int)));
  CHECK(cudaMalloc(&d_val, nnz * sizeof(float)));
  CHECK(cudaMalloc(&d_ell_col, size_t(rows) * 5 * sizeof(int)));
  CHECK(cudaMalloc(&d_ell_val, size_t(rows) * 5 * sizeof(float)));
  CHECK(cudaMemcpy(d_row_ptr, row_ptr, (rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_col, col, nnz * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_val, val, nnz * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_ell_col, ell_col, size_t(rows) * 5 * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(d_ell_val, ell_val, size_t(rows) * 5 * sizeof(float), cudaMemcpyHostToDevice));
  const int kPartials = 264;
  float* zeros = (float*)std::calloc(rows, sizeof(float));
  float* ones = (float*)std::malloc(rows * sizeof(float));
  for (int i = 0; i < rows; i++) ones[i] = 1.0f;
  for (float** v : {&x, &r, &p, &ap}) CHECK(cudaMalloc(v, rows * sizeof(float)));
  CHECK(cudaMalloc(&partial, kPartials * sizeof(float)));
  CHECK(cudaMalloc(&scal, 3 * sizeof(float)));
  CHECK(cudaMalloc(&alpha, sizeof(float)));
  CHECK(cudaMalloc(&beta, sizeof(float)));
  // Solve A x = 1 from x = 0: r = p = 1.
  CHECK(cudaMemcpy(x, zeros, rows * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(r, ones, rows * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(p, ones, rows * sizeof(float), cudaMemcpyHostToDevice));
  int blocks = (rows + 255) / 256;
  dot_partial<<<kPartials, 256>>>(r, r, partial, rows);
  dot_final<<<1, 256>>>(partial, kPartials, scal + 0);
  for (int it = 0; it < iterations; it++) {
    // The CSR product on even iterations, the ELL one on odd: the same matrix.
    if (it % 2 == 0)
      spmv_csr_scalar<<<blocks, 256>>>(rows, d_row_ptr, d_col, d_val, p, ap);
    else
      spmv_ell<<<blocks, 256>>>(rows, d_ell_col, d_ell_val, p, ap);
    dot_partial<<<kPartials, 256>>>(p, ap, partial, rows);
    dot_final<<<1, 256>>>(partial, kPartials, scal + 1);
    cg_scalars<<<1, 1>>>(scal, alpha, beta, 0);
    axpy<<<blocks, 256>>>(alpha, 1.0f, p, x, rows);
    axpy<<<blocks, 256>>>(alpha, -1.0f, ap, r, rows);
    dot_partial<<<kPartials, 256>>>(r, r, partial, rows);
    dot_final<<<1, 256>>>(partial, kPartials, scal + 2);
    cg_scalars<<<1, 1>>>(scal, alpha, beta, 1);
    xpay<<<blocks, 256>>>(r, beta, p, rows);
  }
  CHECK(cudaDeviceSynchronize());
  float rr = 0;
  CHECK(cudaMemcpy(&rr, scal, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("cg_solver n=%d, %d iterations: r.r = %g\n", n, iterations, rr);
  return 0;
}
