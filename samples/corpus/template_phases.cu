// Two instantiations of one templated kernel, in two phases, and a kernel whose last launches
// change grid: what a per-kernel sample must not miss (issue 16).
//
// What an expert expects, written before profiling:
// - scale<1>: one float per thread, stride 1: coalesced (4 sectors per request), nothing.
// - scale<4>: each thread scales 4 consecutive floats, one load each, so a warp's load spans
//   32 x 16 bytes: 16 sectors per request, 8 useful bytes per sector: uncoalesced loads and
//   stores. Its 20 launches come after scale<1>'s 40: a sample that counts invocations by
//   function name ("scale") sees it first at launch 41 and, with 1, 2, 3, 4, 8, ..., 64,
//   never profiles it.
// - block_sum: 30 launches over 1 M floats (4,096 blocks), then 2 over 256 floats (1 block):
//   the 1-block launches are a small grid, but a negligible share of its time.
//
// What gpulint said on the H200 (lab/runs/2026-11-30-spread-default.txt), with the spread and
// with every launch alike: scale<4> uncoalesced loads and stores (8 useful bytes per sector),
// as expected. Two differ from the above:
// - scale<1> and scale<4> are also latency-bound: 4 MB in 4.9 us reaches 18% of peak, a launch
//   too short to fill the memory system; the finding's note says to fuse or batch it. Right.
// - block_sum's two 1-block launches are a small-grid warning: 5.1 us of the run's 646 us
//   (0.8%), where I expected nothing. The grid is small because the work is (256 floats);
//   the finding's note says so (launch overhead: fuse it). A warning where info would do:
//   the rule's floor counted the kernel's share (47%), not the flagged launches'. It now
//   weighs the launches a finding covers, and this one is info
//   (fixtures/h200-corpus/all_template_phases.csv, tests/corpus.rs).
//   usage: template_phases
#include <cstdio>
#include <cuda_runtime.h>

template <int PER_THREAD>
__global__ void scale(float *x, float a, int n) {
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * PER_THREAD;
    for (int k = 0; k < PER_THREAD; ++k)
        if (base + k < n) x[base + k] *= a;
}

__global__ void block_sum(const float *x, float *out, int n) {
    __shared__ float part[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < n ? x[i] : 0.f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

int main() {
    const int n = 1 << 20;
    float *x, *out;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&out, sizeof(float));
    cudaMemset(x, 0, n * sizeof(float));
    for (int i = 0; i < 40; ++i) scale<1><<<n / 256, 256>>>(x, 1.0001f, n);
    for (int i = 0; i < 20; ++i) scale<4><<<n / 4 / 256, 256>>>(x, 0.9999f, n);
    for (int i = 0; i < 30; ++i) block_sum<<<n / 256, 256>>>(x, out, n);
    for (int i = 0; i < 2; ++i) block_sum<<<1, 256>>>(x, out, 256);
    float sum;
    cudaMemcpy(&sum, out, sizeof(float), cudaMemcpyDeviceToHost);
    printf("template_phases: sum %f\n", sum);
    cudaFree(x);
    cudaFree(out);
    return 0;
}
