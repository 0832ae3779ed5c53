// A 60-step training loop of a one-hidden-layer perceptron, the shape of every training
// script: the same five kernels, with the same grids, every step (issue 16's third program).
//
// What an expert expects, written before profiling:
// - linear_forward: one thread per output, each reading a row of X (the same address across a
//   warp: broadcast) and a column of W (consecutive across the warp): coalesced, about 2 FLOP
//   per 8 bytes from L1; L1-bound, no memory-access finding.
// - relu_bias: elementwise, stride 1, coalesced, memory-bound at a good fraction of DRAM: nothing.
// - grad_weight: dW[i][j] = sum_b X[b][i] * dY[b][j], one thread per (i, j) with j along x:
//   X[b][i] is a broadcast, dY[b][j] coalesced: nothing.
// - grad_input_strided: dX[b][i] = sum_j dY[b][j] * W[i][j], one thread per (b, i) with i
//   along x: W[i][j] across a warp is a stride of `hidden` floats: uncoalesced loads
//   (32 sectors per request), the bug of the program.
// - sgd_update: elementwise over the weights, coalesced: nothing.
// Every step launches the same grids, so 3 launches per configuration give the same findings
// as all 300.
//   usage: train_loop [steps] [batch] [hidden]
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void linear_forward(const float *x, const float *w, float *y, int batch, int in,
                               int out) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (j >= out || b >= batch) return;
    float acc = 0.f;
    for (int k = 0; k < in; ++k) acc += x[b * in + k] * w[k * out + j];
    y[b * out + j] = acc;
}

__global__ void relu_bias(float *y, const float *bias, int n, int out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(y[i] + bias[i % out], 0.f);
}

__global__ void grad_weight(const float *x, const float *dy, float *dw, int batch, int in,
                            int out) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y;
    if (j >= out || i >= in) return;
    float acc = 0.f;
    for (int b = 0; b < batch; ++b) acc += x[b * in + i] * dy[b * out + j];
    dw[i * out + j] = acc;
}

__global__ void grad_input_strided(const float *dy, const float *w, float *dx, int batch, int in,
                                   int out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int b = blockIdx.y;
    if (i >= in || b >= batch) return;
    float acc = 0.f;
    for (int j = 0; j < out; ++j) acc += dy[b * out + j] * w[i * out + j];
    dx[b * in + i] = acc;
}

__global__ void sgd_update(float *w, const float *dw, float lr, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * dw[i];
}

int main(int argc, char **argv) {
    int steps = argc > 1 ? atoi(argv[1]) : 60;
    int batch = argc > 2 ? atoi(argv[2]) : 256;
    int hidden = argc > 3 ? atoi(argv[3]) : 1024;
    int in = hidden, out = hidden;
    size_t nx = (size_t)batch * in, nw = (size_t)in * out, ny = (size_t)batch * out;
    float *x, *w, *y, *bias, *dw, *dx;
    cudaMalloc(&x, nx * 4);
    cudaMalloc(&w, nw * 4);
    cudaMalloc(&y, ny * 4);
    cudaMalloc(&bias, out * 4);
    cudaMalloc(&dw, nw * 4);
    cudaMalloc(&dx, nx * 4);
    cudaMemset(x, 0, nx * 4);
    cudaMemset(w, 0, nw * 4);
    cudaMemset(bias, 0, out * 4);
    dim3 block(256);
    for (int s = 0; s < steps; ++s) {
        linear_forward<<<dim3((out + 255) / 256, batch), block>>>(x, w, y, batch, in, out);
        relu_bias<<<(ny + 255) / 256, block>>>(y, bias, (int)ny, out);
        grad_weight<<<dim3((out + 255) / 256, in), block>>>(x, y, dw, batch, in, out);
        grad_input_strided<<<dim3((in + 255) / 256, batch), block>>>(y, w, dx, batch, in, out);
        sgd_update<<<(nw + 255) / 256, block>>>(w, dw, 1e-3f, (int)nw);
    }
    cudaError_t err = cudaDeviceSynchronize();
    printf("train_loop: %d steps, batch %d, hidden %d: %s\n", steps, batch, hidden,
           cudaGetErrorString(err));
    return err == cudaSuccess ? 0 : 1;
}
