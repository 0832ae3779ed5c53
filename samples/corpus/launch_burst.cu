// A training step with a per-sample loop (issue #40's launch bursts): each of STEPS steps
// runs one augmentation kernel per sample, BATCH tiny launches of one block each, then one
// long kernel over the whole batch. Inside each burst the GPU waits for the next launch more
// than it runs; over the whole program the long kernels keep it busy most of the time.
//   usage: launch_burst [STEPS [BATCH [PASSES]]]   (default 30 steps of 320 samples; PASSES,
//   default 4000, sets the long kernel's length)
//
// What an expert expects, written from this source before any capture (2026-12-02):
// - augment (STEPS x BATCH launches of ~2-4 us each, launched back to back from one host
//   thread): inside a burst each launch waits roughly as long as it runs, or longer (a
//   launch costs ~3-5 us of host time), so a burst of 320 takes ~1.5-3 ms of which most is
//   waiting. A finding must name the burst (its launches, how long the GPU waited in it,
//   where it falls in the step) with the waiting at stake, and the fix: batch the samples
//   into one launch (a grid over the batch), or a CUDA graph of the step.
// - train_step (STEPS launches of ~1-2 ms): busy, not launch-bound; its own findings if any.
// - Program-wide the GPU is busy about half the time or more, so a whole-program
//   launch-bound judgement alone may stay quiet: the burst is the finding.
// After the capture (lab/runs/2026-12-02-launch-burst.txt): with PASSES 4000 the run waited
// 53% of its active time and launch-bound fired; PASSES was added, and at 24000 (a 2.5 ms
// kernel) the run waited 13%, launch-bound stayed quiet, and only the bursts (57-88% waiting)
// say it: launch-burst was written for that capture.
#include "pairs_timing.cuh"

__global__ void augment(float* x, int sample, int width) {
  int i = threadIdx.x;
  if (i < width) {
    float v = x[sample * width + i];
    x[sample * width + i] = v * 0.9f + 0.1f * float(sample % 5);
  }
}

__global__ void train_step(const float* x, float* w, int n, int passes) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = w[i];
  for (int p = 0; p < passes; ++p) acc = acc * 0.999f + x[(i + p * 977) % n] * 0.001f;
  w[i] = acc;
}

int main(int argc, char** argv) {
  int steps = argc > 1 ? std::atoi(argv[1]) : 30;
  int batch = argc > 2 ? std::atoi(argv[2]) : 320;
  int passes = argc > 3 ? std::atoi(argv[3]) : 4000;
  int width = 256, n = batch * width;
  float *x, *w;
  CHECK(cudaMalloc(&x, size_t(n) * sizeof(float)));
  CHECK(cudaMalloc(&w, size_t(n) * sizeof(float)));
  CHECK(cudaMemset(x, 0, size_t(n) * sizeof(float)));
  CHECK(cudaMemset(w, 0, size_t(n) * sizeof(float)));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start));
  for (int s = 0; s < steps; ++s) {
    for (int b = 0; b < batch; ++b) augment<<<1, width>>>(x, b, width);
    train_step<<<(n + 255) / 256, 256>>>(x, w, n, passes);
  }
  CHECK(cudaEventRecord(stop));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  std::printf("launch_burst: %d steps of %d samples in %.2f ms\n", steps, batch, ms);
  return 0;
}
