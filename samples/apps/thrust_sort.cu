// Thrust's own kernels, for the names fixture (issue #27): a sort, a reduction, a transform,
// an inclusive scan and a sort by key, as a CUDA program that uses Thrust calls them.
//   build: nvcc -O3 -arch=sm_90 -o thrust_sort thrust_sort.cu
#include <cstdio>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

struct scramble {
  __host__ __device__ unsigned operator()(unsigned x) const { return x * 2654435761u ^ (x >> 7); }
};

int main() {
  const size_t n = 1 << 22;
  thrust::device_vector<unsigned> keys(n), values(n);
  thrust::sequence(keys.begin(), keys.end());
  thrust::transform(keys.begin(), keys.end(), keys.begin(), scramble());
  thrust::sequence(values.begin(), values.end());
  thrust::sort(keys.begin(), keys.end());
  unsigned long long total = thrust::reduce(keys.begin(), keys.end(), 0ull);
  thrust::inclusive_scan(values.begin(), values.end(), values.begin());
  thrust::transform(keys.begin(), keys.end(), keys.begin(), scramble());
  thrust::sort_by_key(keys.begin(), keys.end(), values.begin());
  std::printf("thrust_sort: n=%zu sum=%llu last=%u\n", n, total, static_cast<unsigned>(values[n - 1]));
  return 0;
}
