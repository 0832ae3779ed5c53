// What the before/after pair programs share (compute_classes.cu, occupancy_pairs.cu,
// latency_pairs.cu, register_pairs.cu): error checks, each kernel's median time over
// `repeats` runs (cudaEvent), fetching a result to compare the pair's outputs, the line
// that reports a pair, and the linked structures the chases walk.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  std::printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); std::exit(1); } } while (0)

// Set from the command line by each program.
inline int repeats = 5;

template <typename F>
float median_ms(F launch) {
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  std::vector<float> ms;
  for (int r = 0; r < repeats; ++r) {
    CHECK(cudaEventRecord(start));
    launch();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, start, stop));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

template <typename T>
std::vector<T> fetch(const T* d, unsigned n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// One pair's line: each kernel's median time, what the fix gained, and whether both
// computed the same (`width` is the programs' name column).
inline void print_pair(const char* a, float ms_a, const char* b, float ms_b, bool same,
                       int width = 28) {
  std::printf("%-*s %8.3f ms   %-*s %8.3f ms   gain %5.1f%%   %s\n", width, a, ms_a, width, b,
              ms_b, 100.0 * (1.0 - ms_b / ms_a), same ? "same result" : "DIFFERENT");
}

// 0 .. n-1 shuffled: each element's next one in a pointer chase.
inline std::vector<int> random_permutation(int n, unsigned seed) {
  std::vector<int> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), std::mt19937(seed));
  return perm;
}

// n linked nodes of 32 ints (128 bytes, one per lane of a warp): lane 0's int is the next
// node's index (a random permutation, so consecutive hops land anywhere), the others small
// values to sum.
inline std::vector<int> linked_nodes(int n, unsigned seed) {
  std::vector<int> next = random_permutation(n, seed);
  std::vector<int> host(n * 32);
  for (int k = 0; k < n; ++k) {
    host[k * 32] = next[k];
    for (int lane = 1; lane < 32; ++lane) host[k * 32 + lane] = (k + lane) % 7;
  }
  return host;
}
