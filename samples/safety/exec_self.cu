// A program that starts CUDA, then replaces itself with another program (here itself,
// with an argument) through exec, as a launcher or a restart-on-config-change does.
// Expected under `gpulint ./exec_self`: both images print their line in both runs; the
// launches of the first image are not in the trace (exec skips exit handlers), those of
// the second are; gpulint exits 0 or 1.
#include <cstdio>
#include <unistd.h>

__global__ void scale(float* x, int n, float a) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = a * i;
}

int main(int argc, char** argv) {
  const int n = 1 << 20;
  float* d = nullptr;
  cudaMalloc(&d, n * sizeof(float));
  scale<<<n / 256, 256>>>(d, n, argc > 1 ? 3.f : 2.f);
  float h = 0;
  cudaMemcpy(&h, d + 1, sizeof h, cudaMemcpyDeviceToHost);
  if (argc > 1) {
    printf("second image: x[1] = %.1f\n", h);
    return 0;
  }
  printf("first image: x[1] = %.1f; exec'ing the second\n", h);
  fflush(stdout);
  execl(argv[0], argv[0], "second", static_cast<char*>(nullptr));
  perror("execl");
  return 1;
}
