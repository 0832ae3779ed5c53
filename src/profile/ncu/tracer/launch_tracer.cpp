// gpulint's launch tracer. The CUDA driver loads it into the profiled program through
// CUDA_INJECTION64_PATH. It records every kernel launch (name, grid, block, start, end)
// with CUPTI's activity API and, at exit, appends them in launch order to the CSV file
// named by GPULINT_TRACE_OUT, under a first line naming its process (and its rank, where a
// launcher set one) and followed by a line that closes the block: a program whose
// processes each use CUDA appends one block per process. It acts only in the process that
// loaded it: a child forked after CUDA started inherits the exit handler, but not CUPTI's
// threads, and flushing there waits for ever. Unlike an ncu pass it neither replays nor
// serializes the kernels, so counting every launch costs about what running the program
// does.
//
// It also records, once per kernel, the shared object that launched it: the first caller
// outside CUDA's own libraries on the stack of the launch call (libtorch_cuda.so,
// libcublasLt.so, a Triton launcher, the program itself). That says whose kernel it is
// better than its name does.
//
// With GPULINT_TRACE_WINDOW_S set, it ends the process that many seconds after its first
// kernel launch (its first CUDA call, where the launch calls cannot be watched), once the
// trace is written: `gpulint run --window` traces a training loop's first steps, not its
// minutes.
//
// With GPULINT_SASS_OUT set (`gpulint run --source`), it also counts, per instruction and
// source line, the first launch of each of the user's kernels (of those GPULINT_SASS_KERNELS
// names, where set) with CUPTI's SASS metrics (namespace sass, launch_tracer_sass.inc), and
// marks those launches in the trace: they ran instrumented. With GPULINT_STALL_OUT also
// set, it samples the stalls of the user's kernels (namespace stalls,
// launch_tracer_stalls.inc).
//
// With GPULINT_COUNTERS_OUT and GPULINT_COUNTER_METRICS set, it profiles the first launch
// of each kernel, and launches of it with unlike grids, with CUPTI's range profiler
// and writes the metrics' values (namespace counters, launch_tracer_counters.inc):
// counters from the program's one run.
//
// It needs no CUDA header: it loads CUPTI from the path in GPULINT_CUPTI and declares the
// little of CUPTI's C interface it uses, so any C++ compiler builds it (gpulint gives it
// the source on stdin, its two parts put in place of their #include lines):
//   c++ -shared -fPIC -O2 -std=c++17 launch_tracer.cpp -ldl -o launch_tracer.so
#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

// CUPTI's C interface as cupti_activity.h declares it: the entry points used here and the
// values they take (CUPTI_SUCCESS, CUPTI_ACTIVITY_KIND_KERNEL and _CONCURRENT_KERNEL).
// Points `entry` at the symbol `name` of the loaded library `lib`; false where it has none.
template <typename Entry>
bool find_in(void* lib, Entry& entry, const char* name) {
  entry = reinterpret_cast<Entry>(lib ? dlsym(lib, name) : nullptr);
  return entry != nullptr;
}

namespace cupti {
using Result = int;
constexpr Result kSuccess = 0;
constexpr uint32_t kKindKernel = 3;
constexpr uint32_t kKindConcurrentKernel = 10;
struct Activity {
  uint32_t kind;
};
using BufferRequested = void (*)(uint8_t** buffer, size_t* size, size_t* max_records);
using BufferCompleted = void (*)(void* context, uint32_t stream, uint8_t* buffer, size_t size,
                                 size_t valid);
Result (*register_callbacks)(BufferRequested, BufferCompleted);
Result (*enable)(uint32_t kind);
Result (*next_record)(uint8_t* buffer, size_t valid, Activity** record);
Result (*flush_all)(uint32_t flag);
Result (*dropped_records)(void* context, uint32_t stream, size_t* dropped);

// The callback API (cupti_callbacks.h), for the launch calls' call stacks.
constexpr uint32_t kDomainDriver = 1;
constexpr uint32_t kDomainRuntime = 2;
constexpr uint32_t kApiEnter = 0;
struct CallbackData {
  uint32_t callback_site;
  const char* function_name;
  const void* function_params;
  void* function_return_value;
  const char* symbol_name;
  void* context;
  uint32_t context_uid;
  uint64_t* correlation_data;
  uint32_t correlation_id;
};
// The resource domain (cupti_callbacks.h): a module's cubin as it loads, for the source
// lines of --source's SASS counters.
constexpr uint32_t kDomainResource = 3;
constexpr uint32_t kModuleLoaded = 6;
struct ResourceData {
  void* context;
  void* stream;
  void* descriptor;
};
struct ModuleResourceData {
  uint32_t module_id;
  size_t cubin_size;
  const char* cubin;
};
using Callback = void (*)(void* userdata, uint32_t domain, uint32_t cbid, const void* data);
Result (*subscribe)(void** subscriber, Callback callback, void* userdata);
Result (*enable_callback)(uint32_t enable, void* subscriber, uint32_t domain, uint32_t cbid);
Result (*callback_name)(uint32_t domain, uint32_t cbid, const char** name);
Result (*enable_domain)(uint32_t enable, void* subscriber, uint32_t domain);
void* library = nullptr;

// Loads libcupti from `path` and finds each entry point; false when one is missing.
bool load(const char* path) {
  void* lib = path && *path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : nullptr;
  if (!lib) return false;
  library = lib;
  auto find = [lib](auto& entry, const char* name) { return find_in(lib, entry, name); };
  return find(register_callbacks, "cuptiActivityRegisterCallbacks") &&
         find(enable, "cuptiActivityEnable") &&
         find(next_record, "cuptiActivityGetNextRecord") &&
         find(flush_all, "cuptiActivityFlushAll") &&
         find(dropped_records, "cuptiActivityGetNumDroppedRecords") &&
         // Optional: without them launches are recorded with no launching object.
         (find(subscribe, "cuptiSubscribe"), find(enable_callback, "cuptiEnableCallback"),
          find(callback_name, "cuptiGetCallbackName"), find(enable_domain, "cuptiEnableDomain"),
          true);
}
}  // namespace cupti

// The leading fields of CUpti_ActivityKernel4 and of every later version (9 in CUDA 12.4),
// at the same offsets in each: the tracer reads only these, so one build works with the
// record version of any CUPTI since CUDA 9.
struct __attribute__((packed, aligned(8))) KernelRecord {
  uint32_t kind;
  uint8_t cache_config;
  uint8_t shared_memory_config;
  uint16_t registers_per_thread;
  uint32_t partitioned_global_cache_requested;
  uint32_t partitioned_global_cache_executed;
  uint64_t start;
  uint64_t end;
  uint64_t completed;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  int32_t grid[3];
  int32_t block[3];
  int32_t static_shared_memory;
  int32_t dynamic_shared_memory;
  uint32_t local_memory_per_thread;
  uint32_t local_memory_total;
  uint32_t correlation_id;
  int64_t grid_id;
  const char* name;
};

struct Launch {
  uint32_t correlation_id;
  uint32_t device_id;
  uint32_t stream_id;
  uint64_t start;
  uint64_t end;
  int32_t grid[3];
  int32_t block[3];
  uint16_t registers_per_thread;
  int32_t shared_memory;
  const std::string* name;
  const std::string* mangled;
  const std::string* launched_from;
};

std::mutex recorded_lock;
std::vector<Launch> recorded;
// Kernel names, demangled once each: a training loop launches a few kernels many times.
std::unordered_map<std::string, std::string> demangled_names;
uint64_t dropped_records = 0;
// The process that initialised CUPTI; a forked child (another pid) leaves CUPTI alone.
pid_t traced_pid = 0;

// Mangled kernel name -> the shared object whose code made its first launch call.
std::mutex objects_lock;
std::unordered_map<std::string, std::string> launching_objects;
// The name last seen at each symbol-name pointer: CUPTI passes the same one for every
// launch of a function, so a launch after the first costs a lookup and a compare.
std::unordered_map<const void*, std::string> looked_up;
std::string own_object;
const std::string unknown_object;

bool is_cuda_own(const char* path) {
  return path == own_object || strstr(path, "libcupti") || strstr(path, "libcuda.so") ||
         strstr(path, "libcudart") || strstr(path, "libcudadebugger");
}

// The first object on the call stack that is not CUDA's, cupti's or the tracer's: the
// library or program that called the launch API. The program itself, which dladdr names
// as it was started (`./prog`), gets its real path.
std::string launching_object() {
  void* frames[48];
  int depth = backtrace(frames, 48);
  for (int i = 0; i < depth; ++i) {
    Dl_info info{};
    if (!dladdr(frames[i], &info) || !info.dli_fname) continue;
    if (is_cuda_own(info.dli_fname)) continue;
    if (info.dli_fname[0] == '/') return info.dli_fname;
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    return n > 0 ? std::string(self, n) : std::string(info.dli_fname);
  }
  return "";
}

void write_quoted(FILE* out, const std::string& s);

// Appends `size` bytes of `text` (an open_memstream's, freed here) to the file at `path`, in
// one write: each process of a program appends its block whole.
void append_to(const char* path, char* text, size_t size) {
  if (FILE* file = fopen(path, "a")) {
    fwrite(text, 1, size, file);
    fclose(file);
  }
  free(text);
}

// The size a CUPTI parameter struct is told it has: up to and including `field`, the last
// one the tracer's declaration holds (CUPTI's own *_STRUCT_SIZE macros are so made), for
// the three parts below.
#define GPULINT_SIZE_TO(T, field) (offsetof(T, field) + sizeof(T::field))

// The window's seconds (GPULINT_TRACE_WINDOW_S), 0 without one: read by the window's
// timer and by the counters' picks alike.
long window_seconds() {
  const char* window = getenv("GPULINT_TRACE_WINDOW_S");
  return window ? strtol(window, nullptr, 10) : 0;
}

#include "launch_tracer_sass.inc"

#include "launch_tracer_stalls.inc"

#include "launch_tracer_counters.inc"

#undef GPULINT_SIZE_TO

// Whether the launch calls are watched, and whether a kernel launch has come: a window's
// clock starts at the program's first launch, not at its first CUDA call (a script's
// imports between the two, torch.compile's among them, are not its GPU work).
bool launches_watched = false;
std::atomic<bool> first_launch_came{false};

void on_launch(void*, uint32_t domain, uint32_t cbid, const void* data) {
  if (getpid() != traced_pid) return;
  std::lock_guard<std::mutex> guard(objects_lock);
  if (domain == cupti::kDomainResource) {
    if (cbid == cupti::kModuleLoaded && sass::active) sass::keep_cubin(data);
    stalls::on_resource(cbid, data);
    return;
  }
  const auto* call = static_cast<const cupti::CallbackData*>(data);
  // A runtime launch calls the driver's: one launch, two calls, decided at the first.
  thread_local bool in_runtime_launch = false;
  if (call->callback_site != cupti::kApiEnter) {
    bool outermost = domain == cupti::kDomainRuntime || !in_runtime_launch;
    if (domain == cupti::kDomainRuntime) in_runtime_launch = false;
    if (outermost) counters::after_launch();
    return;
  }
  bool nested = domain == cupti::kDomainDriver && in_runtime_launch;
  if (domain == cupti::kDomainRuntime) in_runtime_launch = true;
  if (!call->symbol_name) {
    // A graph's kernels are not first launches: the counters' range closes before them.
    if (sass::active && !nested && sass::graph_launch_calls.count(sass::call_key(domain, cbid)))
      sass::close();
    return;
  }
  if (!first_launch_came.load(std::memory_order_relaxed)) first_launch_came = true;
  const std::string* first_object = nullptr;
  std::string& seen = looked_up[call->symbol_name];
  if (seen != call->symbol_name) {
    seen = call->symbol_name;
    if (!launching_objects.count(call->symbol_name))
      first_object = &launching_objects.emplace(call->symbol_name, launching_object()).first->second;
  }
  if (sass::active && !nested) sass::before_launch(call, first_object);
  if (counters::active && !nested) counters::before_launch(call);
  if (!nested) stalls::on_launch_call();
}

// Subscribes to the launch calls of the driver and runtime APIs (by name: their ids differ
// between CUDA versions). A CUPTI without the callback API records no launching object.
void watch_launch_calls() {
  if (!cupti::subscribe || !cupti::enable_callback || !cupti::callback_name) return;
  Dl_info self{};
  if (dladdr(reinterpret_cast<void*>(&watch_launch_calls), &self) && self.dli_fname)
    own_object = self.dli_fname;
  void* subscriber = nullptr;
  if (cupti::subscribe(&subscriber, on_launch, nullptr) != cupti::kSuccess) return;
  launches_watched = true;
  for (uint32_t domain : {cupti::kDomainDriver, cupti::kDomainRuntime}) {
    for (uint32_t cbid = 1; cbid < 2048; ++cbid) {
      const char* name = nullptr;
      if (cupti::callback_name(domain, cbid, &name) != cupti::kSuccess || !name) continue;
      if (strstr(name, "Launch") && !strstr(name, "HostFunc") && !strstr(name, "Graph")) {
        cupti::enable_callback(1, subscriber, domain, cbid);
      } else if (sass::active && strstr(name, "GraphLaunch")) {
        cupti::enable_callback(1, subscriber, domain, cbid);
        sass::graph_launch_calls.insert(sass::call_key(domain, cbid));
      }
    }
  }
  if (sass::active) cupti::enable_domain(1, subscriber, cupti::kDomainResource);
}

const std::string* object_of(const char* mangled) {
  std::lock_guard<std::mutex> guard(objects_lock);
  auto found = launching_objects.find(mangled);
  return found == launching_objects.end() ? &unknown_object : &found->second;
}

constexpr size_t kBufferBytes = 4 << 20;

// A kernel's names: the mangled one it was compiled with (the key, which ncu matches
// exactly with --kernel-name-base mangled) and the demangled one.
const std::pair<const std::string, std::string>* names_of(const char* mangled) {
  auto found = demangled_names.find(mangled);
  if (found != demangled_names.end()) return &*found;
  int status = 0;
  char* readable = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  std::string name = status == 0 && readable ? readable : mangled;
  free(readable);
  return &*demangled_names.emplace(mangled, name).first;
}

void buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, kBufferBytes));
  *size = *buffer ? kBufferBytes : 0;
  *max_records = 0;
}

void buffer_completed(void*, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  std::lock_guard<std::mutex> guard(recorded_lock);
  cupti::Activity* record = nullptr;
  while (cupti::next_record(buffer, valid, &record) == cupti::kSuccess) {
    if (record->kind != cupti::kKindConcurrentKernel && record->kind != cupti::kKindKernel)
      continue;
    const auto* k = reinterpret_cast<const KernelRecord*>(record);
    const auto* names = names_of(k->name ? k->name : "?");
    Launch l{k->correlation_id, k->device_id, k->stream_id, k->start, k->end, {}, {},
             k->registers_per_thread, k->static_shared_memory + k->dynamic_shared_memory,
             &names->second, &names->first, object_of(k->name ? k->name : "?")};
    std::copy(k->grid, k->grid + 3, l.grid);
    std::copy(k->block, k->block + 3, l.block);
    recorded.push_back(l);
  }
  size_t dropped = 0;
  if (cupti::dropped_records(nullptr, 0, &dropped) == cupti::kSuccess)
    dropped_records += dropped;
  free(buffer);
}

// CSV quoting: a kernel name holds commas and may hold quotes.
void write_quoted(FILE* out, const std::string& s) {
  fputc('"', out);
  for (char c : s) {
    if (c == '"') fputc('"', out);
    fputc(c, out);
  }
  fputc('"', out);
}

// The process's rank in a job of several, as its launcher numbers it (torchrun, Open MPI,
// MPICH, Slurm), or -1: the report names each rank by it, where a pid says nothing.
long launcher_rank() {
  for (const char* name : {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"}) {
    const char* value = getenv(name);
    char* end = nullptr;
    long rank = value && *value ? strtol(value, &end, 10) : -1;
    if (end && *end == '\0' && rank >= 0) return rank;
  }
  return -1;
}

// Set once the trace is written: at exit, or at the end of the window, not both.
std::atomic<bool> trace_written{false};
// Set when the window ended the process: the trace says so.
std::atomic<bool> window_ended{false};

void write_trace() {
  if (getpid() != traced_pid || trace_written.exchange(true)) return;
  {
    std::lock_guard<std::mutex> guard(objects_lock);
    sass::finish();
    stalls::finish();
    counters::finish();
  }
  cupti::flush_all(1);
  const char* path = getenv("GPULINT_TRACE_OUT");
  if (!path || !*path) return;
  std::lock_guard<std::mutex> guard(recorded_lock);
  // Correlation ids number the launch calls in the order the program made them; the
  // kernels of one CUDA graph launch share its id, and run in their order.
  std::sort(recorded.begin(), recorded.end(), [](const Launch& a, const Launch& b) {
    return a.correlation_id != b.correlation_id ? a.correlation_id < b.correlation_id
                                                : a.start < b.start;
  });
  FILE* out = fopen(path, "a");
  if (!out) return;
  fprintf(out, "# gpulint launch trace 1, process %ld, ", static_cast<long>(getpid()));
  if (long rank = launcher_rank(); rank >= 0) fprintf(out, "rank %ld, ", rank);
  fprintf(out, "dropped records: %llu\n", static_cast<unsigned long long>(dropped_records));
  fprintf(out,
          "correlation,device,stream,start_ns,end_ns,grid_x,grid_y,grid_z,block_x,block_y,"
          "block_z,registers_per_thread,shared_memory_bytes,name,launched_from,mangled,"
          "instrumented\n");
  std::unordered_set<const std::string*> named;
  for (const Launch& l : recorded) {
    fprintf(out, "%u,%u,%u,%llu,%llu,%d,%d,%d,%d,%d,%d,%u,%d,", l.correlation_id, l.device_id,
            l.stream_id, static_cast<unsigned long long>(l.start),
            static_cast<unsigned long long>(l.end), l.grid[0], l.grid[1], l.grid[2], l.block[0],
            l.block[1], l.block[2], static_cast<unsigned>(l.registers_per_thread),
            l.shared_memory);
    write_quoted(out, *l.name);
    fputc(',', out);
    write_quoted(out, *l.launched_from);
    fputc(',', out);
    // The mangled name on a kernel's first row only: the reader carries it to the rest
    // (a PyTorch kernel's runs to hundreds of bytes, over 100,000 launches a minute).
    write_quoted(out, named.insert(l.mangled).second ? *l.mangled : std::string());
    // A launch that ran with --source's SASS counters, or replayed for the range
    // profiler's: its duration is not its own.
    bool replayed = sass::instrumented.count(l.correlation_id) ||
                    counters::profiled_ids.count(l.correlation_id);
    fprintf(out, ",%d\n", replayed ? 1 : 0);
  }
  if (window_ended) fprintf(out, "# stopped at the end of its window\n");
  // gpulint's watchdog reads this: the process is done with CUDA, whatever it does next.
  fprintf(out, "# end of process %ld\n", static_cast<long>(getpid()));
  fclose(out);
}

}  // namespace

// Called by the CUDA driver when it loads the library; returning 1 says it succeeded.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
  traced_pid = getpid();
  if (!cupti::load(getenv("GPULINT_CUPTI"))) return 0;
  if (cupti::register_callbacks(buffer_requested, buffer_completed) != cupti::kSuccess) return 0;
  sass::start();
  stalls::start();
  counters::start();
  // The concurrent kind's records zero the SASS counters (the serial kind's do not, on the
  // H200 with CUDA 13.0): with them, kernels run one at a time.
  uint32_t kind = sass::active ? cupti::kKindKernel : cupti::kKindConcurrentKernel;
  if (cupti::enable(kind) != cupti::kSuccess) return 0;
  watch_launch_calls();
  // Registered at the first CUDA call, after the CUDA runtime's own exit handler, so it
  // runs before the runtime tears its contexts down and can still flush their records.
  atexit(write_trace);
  long seconds = window_seconds();
  if (seconds > 0) {
    std::thread([seconds] {
      // The window runs from the program's first launch, profiling included (a bounded
      // report time: the script's start, the window, the reading), and never ends it
      // inside a range: the launch callbacks open and close ranges under objects_lock,
      // and once none is open no other is.
      while (launches_watched && !first_launch_came)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      std::this_thread::sleep_for(std::chrono::seconds(seconds));
      for (;;) {
        {
          std::lock_guard<std::mutex> guard(objects_lock);
          if (!counters::open_launch) {
            counters::closed = true;
            break;
          }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      window_ended = true;
      write_trace();
      // No exit handlers: the program is cut short, and its own teardown could wait on
      // the work this thread interrupts.
      _exit(0);
    }).detach();
  }
  return 1;
}
