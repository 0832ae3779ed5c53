// A solver step captured once into a CUDA graph and replayed, as PyTorch's CUDA graphs and
// many iterative codes do: every kernel launch of a replay shares the graph launch's call,
// so a launch trace must order the kernels of one replay itself (issue 16).
//
// What an expert expects, written before profiling:
// - axpy over 16 M floats, stride 1: coalesced, memory-bound at high bandwidth: nothing.
// - transpose_naive of a 2048 x 2048 matrix, one thread per element, reading rows and
//   writing columns: each warp's store touches 32 rows, 32 sectors per request, 4 useful
//   bytes per sector: uncoalesced stores, the loads clean.
// - norm_partial: 8 blocks of 256 threads striding over 16 M floats: a small grid (8 of
//   132 SMs busy), and the longest kernel of the step.
// - The program launches axpy once outside the graph, then replays the 3-kernel graph 30
//   times: 91 launches. The default run should count all 91 and warn as every launch does.
//
// What gpulint said on the H200 (lab/runs/2026-12-01-graph-check.txt): as expected. The
// default run counted 91 launches, sampled 9 (3 per configuration) in 7.8 s against 22.5 s
// for every launch, and both warned of transpose_naive's uncoalesced stores and
// norm_partial's small grid (97% of the GPU time), with shares 0.1 points apart. The trace
// showed the 3 kernels of each graph launch under one correlation id, as expected.
//   usage: graph_steps
#include <cstdio>
#include <cuda_runtime.h>

__global__ void axpy(const float *x, float *y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

__global__ void transpose_naive(const float *in, float *out, int n) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < n && col < n) out[col * n + row] = in[row * n + col];
}

__global__ void norm_partial(const float *x, float *partial, int n) {
    __shared__ float sum[256];
    float s = 0.f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        s += x[i] * x[i];
    sum[threadIdx.x] = s;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) sum[threadIdx.x] += sum[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sum[0];
}

int main() {
    const int n = 1 << 24, side = 2048;
    float *x, *y, *m, *mt, *partial;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    cudaMalloc(&m, side * side * sizeof(float));
    cudaMalloc(&mt, side * side * sizeof(float));
    cudaMalloc(&partial, 8 * sizeof(float));
    cudaMemset(x, 0, n * sizeof(float));
    cudaMemset(y, 0, n * sizeof(float));
    cudaMemset(m, 0, side * side * sizeof(float));
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    axpy<<<n / 256, 256, 0, stream>>>(x, y, 0.5f, n);
    cudaGraph_t graph;
    cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
    axpy<<<n / 256, 256, 0, stream>>>(x, y, 0.5f, n);
    transpose_naive<<<dim3(side / 16, side / 16), dim3(16, 16), 0, stream>>>(m, mt, side);
    norm_partial<<<8, 256, 0, stream>>>(y, partial, n);
    cudaStreamEndCapture(stream, &graph);
    cudaGraphExec_t exec;
    cudaGraphInstantiate(&exec, graph, 0);
    for (int step = 0; step < 30; ++step) cudaGraphLaunch(exec, stream);
    cudaStreamSynchronize(stream);
    float p[8];
    cudaMemcpy(p, partial, sizeof(p), cudaMemcpyDeviceToHost);
    printf("graph_steps done: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
