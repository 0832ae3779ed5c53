// Does CUPTI work in a program that ncu profiles? (#58 step 4, one run; twenty-fifth
// session.) Preloaded (LD_PRELOAD) with CUPTI_PATH set, it starts CUPTI from its
// constructor as gpulint's preloaded tracer does, writes each step's result to stderr,
// counts the launch callbacks and the kernel records, opens ncu's range (cuProfilerStart /
// cuProfilerStop) around the first launch when OPEN_RANGE is set, and writes the counts
// at exit.
//   c++ -shared -fPIC -O2 -std=c++17 cupti_beside_ncu.cpp -ldl -o cupti_beside_ncu.so
#include <dlfcn.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace {
using Result = int;
using Requested = void (*)(uint8_t**, size_t*, size_t*);
using Completed = void (*)(void*, uint32_t, uint8_t*, size_t, size_t);
using Callback = void (*)(void*, uint32_t, uint32_t, const void*);
struct Record { uint32_t kind; };
struct CallbackData { uint32_t site; const char* function_name; };
Result (*register_callbacks)(Requested, Completed);
Result (*enable)(uint32_t);
Result (*next_record)(uint8_t*, size_t, Record**);
Result (*flush_all)(uint32_t);
Result (*subscribe)(void**, Callback, void*);
Result (*enable_domain)(uint32_t, void*, uint32_t);
Result (*result_string)(Result, const char**);
int (*profiler_start)();
int (*profiler_stop)();
std::atomic<long> callbacks{0}, records{0}, ranges{0};
bool open_range = getenv("OPEN_RANGE") != nullptr;
thread_local bool in_range = false;

void say(const char* step, Result r) {
  const char* text = "?";
  if (result_string) result_string(r, &text);
  fprintf(stderr, "cupti_beside_ncu: %s -> %d (%s)\n", step, r, text);
}
void requested(uint8_t** b, size_t* s, size_t* m) {
  *b = static_cast<uint8_t*>(aligned_alloc(8, 1 << 20));
  *s = 1 << 20;
  *m = 0;
}
void completed(void*, uint32_t, uint8_t* b, size_t, size_t valid) {
  Record* r = nullptr;
  while (next_record(b, valid, &r) == 0)
    if (r->kind == 10 || r->kind == 3) ++records;
  free(b);
}
void on_call(void*, uint32_t domain, uint32_t, const void* data) {
  const auto* call = static_cast<const CallbackData*>(data);
  if (domain != 1 || !strstr(call->function_name, "LaunchKernel")) return;
  if (call->site == 0) {
    ++callbacks;
    if (open_range && ranges == 0) {
      if (!profiler_start) {
        void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
        profiler_start = reinterpret_cast<int (*)()>(dlsym(cuda, "cuProfilerStart"));
        profiler_stop = reinterpret_cast<int (*)()>(dlsym(cuda, "cuProfilerStop"));
      }
      fprintf(stderr, "cupti_beside_ncu: cuProfilerStart -> %d\n", profiler_start());
      in_range = true;
      ++ranges;
    }
  } else if (in_range) {
    in_range = false;
    fprintf(stderr, "cupti_beside_ncu: cuProfilerStop -> %d\n", profiler_stop());
  }
}
void at_exit() {
  if (flush_all) flush_all(1);
  fprintf(stderr, "cupti_beside_ncu: %ld launch callbacks, %ld kernel records, %ld ranges\n",
          callbacks.load(), records.load(), ranges.load());
}
}  // namespace

__attribute__((constructor)) static void start() {
  const char* path = getenv("CUPTI_PATH");
  if (!path) return;
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) return (void)fprintf(stderr, "cupti_beside_ncu: %s\n", dlerror());
  auto find = [lib](auto& f, const char* name) {
    f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(dlsym(lib, name));
  };
  find(register_callbacks, "cuptiActivityRegisterCallbacks");
  find(enable, "cuptiActivityEnable");
  find(next_record, "cuptiActivityGetNextRecord");
  find(flush_all, "cuptiActivityFlushAll");
  find(subscribe, "cuptiSubscribe");
  find(enable_domain, "cuptiEnableDomain");
  find(result_string, "cuptiGetResultString");
  say("cuptiActivityRegisterCallbacks", register_callbacks(requested, completed));
  say("cuptiActivityEnable(CONCURRENT_KERNEL)", enable(10));
  void* subscriber = nullptr;
  Result s = subscribe(&subscriber, on_call, nullptr);
  say("cuptiSubscribe", s);
  if (s == 0) say("cuptiEnableDomain(DRIVER_API)", enable_domain(1, subscriber, 1));
  atexit(at_exit);
}
