// An array-of-structs copy over several element types, each as declared (the compiler
// splits an element whose alignment is smaller than its size into narrow loads) and
// aligned (one wide load), for split-load (GL104) and its time at stake. Written on
// 2026-12-05, before any capture: no device was lent that day. ncu's launch order with
// REPEATS 1: pair k is launches 2k (as declared) and 2k + 1 (aligned).
//   usage: split_structs [REPEATS]   (default 5; prints each pair's medians)
//
// What an expert expects, written from this source before any capture. n elements of
// each type are copied, out[i] = in[i]; one element per thread, 256-thread blocks. With
// the L1's load hits collected (`gpulint run`), on the "as declared" kernels:
//  0 Rgb8 {uint8 r, g, b}, 3 bytes, 1-byte aligned: three 1-byte loads at 3-byte spacing,
//    3 sectors per request where 1 holds the data, the L1 hitting 2/3 of them: split-load,
//    "__align__(4)"; its stores split the same way (uncoalesced-store, not split-load,
//    which judges loads).
//  1 Rgba8 {uint8 r, g, b, a}, 4 bytes, 1-byte aligned: four 1-byte loads, 75% hits:
//    split-load, "__align__(4)" (the zoo's bytes_interleaved in a struct).
//  2 Half2 {short a, b}, 4 bytes, 2-byte aligned: two 2-byte loads, 50% hits: split-load,
//    "__align__(4)".
//  3 Pair {float x, y}, 8 bytes, 4-byte aligned: two 4-byte loads at 8-byte spacing, 8
//    sectors per request where 4 hold the data, 50% hits: split-load, "__align__(8)".
//  4 Vec3 {float x, y, z}, 12 bytes: three 4-byte loads, 12 sectors per request, 67% hits:
//    split-load, "__align__(16)".
// and on every aligned kernel (the same fields, `__align__` on the type: one 4-, 8- or
// 16-byte load per element) nothing from split-load or uncoalesced-load; the padded Rgb8
// and Vec3 read their padding too (the load is the whole 4 or 16 bytes), which the
// useful-bytes counter counts as used. The aligned kernels should run at least as fast;
// where DRAM bounds both, the gain is small (the zoo: a copy by 4-byte loads took 2.6% less
// than one by four 1-byte loads, by 16-byte loads 39% less).
#include <cstdint>
#include <cstring>

#include "pairs_timing.cuh"

struct Rgb8 { uint8_t r, g, b; };
struct __align__(4) Rgb8A { uint8_t r, g, b; };
struct Rgba8 { uint8_t r, g, b, a; };
struct __align__(4) Rgba8A { uint8_t r, g, b, a; };
struct Half2 { short a, b; };
struct __align__(4) Half2A { short a, b; };
struct Pair { float x, y; };
struct __align__(8) PairA { float x, y; };
struct Vec3 { float x, y, z; };
struct __align__(16) Vec3A { float x, y, z; };

template <typename T>
__global__ void copy_elements(const T* in, T* out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

// Each type's pair, on n elements; the aligned copy's bytes compared with the declared one's.
template <typename T, typename A>
void pair(const char* name, const char* aligned, unsigned n) {
  T *in, *out;
  A *in_a, *out_a;
  CHECK(cudaMalloc(&in, n * sizeof(T)));
  CHECK(cudaMalloc(&out, n * sizeof(T)));
  CHECK(cudaMalloc(&in_a, n * sizeof(A)));
  CHECK(cudaMalloc(&out_a, n * sizeof(A)));
  CHECK(cudaMemset(in, 7, n * sizeof(T)));
  CHECK(cudaMemset(in_a, 7, n * sizeof(A)));
  unsigned blocks = (n + 255) / 256;
  float a = median_ms([&] { copy_elements<<<blocks, 256>>>(in, out, n); });
  float b = median_ms([&] { copy_elements<<<blocks, 256>>>(in_a, out_a, n); });
  auto got = fetch(out, 1);
  auto got_a = fetch(out_a, 1);
  bool same = std::memcmp(&got[0], &got_a[0], sizeof(T)) == 0;
  print_pair(name, a, aligned, b, same);
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
  CHECK(cudaFree(in_a));
  CHECK(cudaFree(out_a));
}

int main(int argc, char** argv) {
  repeats = argc > 1 ? std::atoi(argv[1]) : 5;
  const unsigned n = 1u << 24;
  pair<Rgb8, Rgb8A>("Rgb8 (3 bytes)", "__align__(4)", n);
  pair<Rgba8, Rgba8A>("Rgba8 (4 bytes)", "__align__(4)", n);
  pair<Half2, Half2A>("Half2 (4 bytes)", "__align__(4)", n);
  pair<Pair, PairA>("Pair (8 bytes)", "__align__(8)", n);
  pair<Vec3, Vec3A>("Vec3 (12 bytes)", "__align__(16)", n);
  CHECK(cudaGetLastError());
  return 0;
}
