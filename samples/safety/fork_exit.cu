// A program that starts CUDA, then forks a child that leaves through exit(), as a data
// loader or a subprocess helper does. Under the tracer before issue 28 the child ran the
// tracer's exit handler, waited for ever on CUPTI threads that only the parent has, and
// the parent waited for the child: a hang.
// Expected under `gpulint ./fork_exit`: both runs print both lines, gpulint exits 0 or 1
// (the 4,096-block fill is clean), the trace counts the parent's 2 launches.
#include <cstdio>
#include <cstdlib>
#include <sys/wait.h>
#include <unistd.h>

__global__ void fill(float* x, int n, float v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = v;
}

int main() {
  const int n = 1 << 20;
  float* d = nullptr;
  cudaMalloc(&d, n * sizeof(float));
  fill<<<n / 256, 256>>>(d, n, 1.f);
  cudaDeviceSynchronize();
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) {
    printf("child: done\n");
    exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  fill<<<n / 256, 256>>>(d, n, 2.f);
  float h = 0;
  cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
  printf("parent: x[0] = %.1f, child exit status %d\n", h, WEXITSTATUS(status));
  return 0;
}
