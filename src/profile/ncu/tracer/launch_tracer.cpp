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
// With GPULINT_TRACE_WINDOW_S set, it ends the process that many seconds after the first
// CUDA call, once the trace is written: `gpulint run --window` traces a training loop's
// first steps, not its minutes.
//
// With GPULINT_SASS_OUT set (`gpulint run --source`), it also counts, per instruction and
// source line, the first launch of each of the user's kernels (of those GPULINT_SASS_KERNELS
// names, where set) with CUPTI's SASS metrics (namespace sass, below), and marks those
// launches in the trace: they ran instrumented. With GPULINT_STALL_OUT also set, it samples
// the stalls of the user's kernels (namespace stalls).
//
// It needs no CUDA header: it loads CUPTI from the path in GPULINT_CUPTI and declares the
// little of CUPTI's C interface it uses, so any C++ compiler builds it:
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
#include <type_traits>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace {

// CUPTI's C interface as cupti_activity.h declares it: the entry points used here and the
// values they take (CUPTI_SUCCESS, CUPTI_ACTIVITY_KIND_KERNEL and _CONCURRENT_KERNEL).
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
  auto find = [lib](auto& entry, const char* name) {
    entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(dlsym(lib, name));
    return entry != nullptr;
  };
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

// --source's line counters, where GPULINT_SASS_OUT names a file: CUPTI's SASS metrics
// (cupti_sass_metrics.h, CUDA 12.5 on) on the first launch of each of the user's kernels.
// Lazy patching instruments a kernel from its first launch in an enable/disable range to
// the range's end, so a range is open only while such first launches run: before any
// other launch its counts are flushed and it is closed. The counters are summed per
// instruction over the GPU; at exit each instruction's file and line come from its
// module's cubin, kept as it loaded. ncu's SourceCounters section instead instruments
// every launch it profiles (lab/runs/2026-12-04-sass-lines.txt). The declarations are
// those of cupti_sass_metrics.h, cupti_profiler_target.h and cupti_pcsampling.h, checked
// against them by samples/corpus/sass_layout_check.cpp.
namespace sass {
using cupti::Result;
#define GPULINT_SIZE_TO(T, field) (offsetof(T, field) + sizeof(T::field))
struct ProfilerInitializeParams {
  size_t struct_size;
  void* priv;
};
struct ChipNameParams {
  size_t struct_size;
  void* priv;
  size_t device_index;
  const char* chip;
};
struct MetricDetails {
  uint64_t id;
  const char* name;
  const char* description;
};
struct PropertiesParams {
  size_t struct_size;
  void* priv;
  const char* chip;
  const char* metric;
  MetricDetails details;
};
struct Config {
  uint64_t metric_id;
  uint8_t granularity;  // 0: summed over the GPU
};
struct SetConfigParams {
  size_t struct_size;
  void* priv;
  size_t count;
  Config* configs;
  uint32_t device_index;
};
struct EnableParams {
  size_t struct_size;
  void* priv;
  void* context;
  uint8_t lazy_patching;
};
struct DisableParams {
  size_t struct_size;
  void* priv;
  void* context;
  size_t dropped;
};
struct DataPropertiesParams {
  size_t struct_size;
  void* priv;
  void* context;
  size_t records;
  size_t instances;
};
struct InstanceValue {
  uint64_t metric_id;
  uint64_t value;
};
struct Data {
  size_t struct_size;
  void* priv;
  uint32_t cubin_crc;
  uint32_t function_index;
  const char* function_name;
  uint32_t pc_offset;
  InstanceValue* values;
};
struct FlushParams {
  size_t struct_size;
  void* priv;
  void* context;
  size_t records;
  size_t instances;
  Data* data;
};
struct CubinCrcParams {
  size_t size;
  size_t cubin_size;
  const void* cubin;
  uint64_t crc;
};
struct CorrelationParams {
  size_t size;
  const void* cubin;
  const char* function;
  size_t cubin_size;
  uint32_t line;
  uint64_t pc_offset;
  char* file;
  char* dir;
};

Result (*profiler_initialize)(ProfilerInitializeParams*);
Result (*chip_name)(ChipNameParams*);
Result (*device_id)(void* context, uint32_t* device);
Result (*properties)(PropertiesParams*);
Result (*set_config)(SetConfigParams*);
Result (*enable)(EnableParams*);
Result (*disable)(DisableParams*);
Result (*data_properties)(DataPropertiesParams*);
Result (*flush)(FlushParams*);
Result (*cubin_crc)(CubinCrcParams*);
Result (*correlation)(CorrelationParams*);
int (*push_context)(void*);
int (*pop_context)(void**);
int (*synchronize)();

// What gpulint reads per line: instructions, global sectors and their ideal, shared
// wavefronts and their ideal, shared and local instructions, divergent branches, global
// atomics and reductions. A chip without one leaves it out. The instruction count puts a
// row on every instruction, which places an inlined header's instructions after their
// call's line; without it matmul_variants' traced run was slower, not faster
// (lab/runs/2026-12-04-stall-lines.txt).
constexpr const char* kMetrics[] = {
    "smsp__sass_inst_executed",
    "smsp__sass_sectors_mem_global",
    "smsp__sass_sectors_mem_global_ideal",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "smsp__sass_inst_executed_op_shared",
    "smsp__sass_inst_executed_op_local_ld",
    "smsp__sass_inst_executed_op_local_st",
    "smsp__sass_branch_targets_threads_divergent",
    "smsp__sass_inst_executed_op_global_atom",
    "smsp__sass_inst_executed_op_global_red",
};
// A program's kernels beyond these go without lines. Every module loaded while a counted
// launch is under way is kept (CUDA loads a module at its first kernel's first launch);
// others, loaded before (eagerly), only up to the first bytes: a PyTorch process loads
// hundreds of megabytes of its libraries' modules.
constexpr int kMostKernels = 64;
constexpr size_t kMostEagerCubinBytes = size_t(64) << 20;

bool active = false;
bool profiler_ready = false;
std::unordered_set<uint32_t> configured_devices;
std::vector<std::string> metric_names;
std::unordered_map<uint64_t, size_t> column_of;
void* open_context = nullptr;
int kernels = 0;
std::string program;
std::unordered_set<uint32_t> instrumented;  // launches' correlation ids
std::map<std::pair<std::string, uint32_t>, std::vector<uint64_t>> counts;
std::unordered_map<std::string, uint32_t> crc_of;  // kernel -> its cubin's CRC
std::unordered_map<uint32_t, std::string> cubins;  // low 32 bits of the CRC -> bytes
size_t cubin_bytes = 0;
std::unordered_set<uint32_t> graph_launch_calls;  // graph launches' call_key
// The kernels (mangled) to count, from GPULINT_SASS_KERNELS: those the last run of the
// command had a finding on a line in. Empty: every one of the user's.
std::unordered_set<std::string> listed;

uint32_t call_key(uint32_t domain, uint32_t cbid) { return domain << 16 | cbid; }

bool load() {
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  auto find = [](void* lib, auto& entry, const char* name) {
    entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(
        lib ? dlsym(lib, name) : nullptr);
    return entry != nullptr;
  };
  void* lib = cupti::library;
  return find(lib, profiler_initialize, "cuptiProfilerInitialize") &&
         find(lib, chip_name, "cuptiDeviceGetChipName") &&
         find(lib, device_id, "cuptiGetDeviceId") &&
         find(lib, properties, "cuptiSassMetricsGetProperties") &&
         find(lib, set_config, "cuptiSassMetricsSetConfig") &&
         find(lib, enable, "cuptiSassMetricsEnable") &&
         find(lib, disable, "cuptiSassMetricsDisable") &&
         find(lib, data_properties, "cuptiSassMetricsGetDataProperties") &&
         find(lib, flush, "cuptiSassMetricsFlushData") &&
         find(lib, cubin_crc, "cuptiGetCubinCrc") &&
         find(lib, correlation, "cuptiGetSassToSourceCorrelation") &&
         find(cuda, push_context, "cuCtxPushCurrent_v2") &&
         find(cuda, pop_context, "cuCtxPopCurrent_v2") &&
         find(cuda, synchronize, "cuCtxSynchronize");
}

// Whether a kernel launched from `object` is the user's: the program itself, or an object
// outside Python's packages and NVIDIA's libraries (a Triton launcher, an extension).
bool users_object(const std::string& object) {
  if (object.empty()) return false;
  if (object == program) return true;
  for (const char* library :
       {"site-packages/", "dist-packages/", "/lib/python", "/usr/local/cuda", "/opt/nvidia",
        "libcublas", "libcudnn", "libcufft", "libcurand", "libcusparse", "libcusolver",
        "libnccl", "libnvrtc", "libnvjpeg", "libnpp"}) {
    if (object.find(library) != std::string::npos) return false;
  }
  return true;
}

// The SASS counters' configuration on the context's device, once per device.
bool configure(void* context) {
  uint32_t device = 0;
  if (device_id(context, &device) != cupti::kSuccess) return false;
  if (configured_devices.count(device)) return true;
  if (!profiler_ready) {
    ProfilerInitializeParams init{GPULINT_SIZE_TO(ProfilerInitializeParams, priv), nullptr};
    if (profiler_initialize(&init) != cupti::kSuccess) return false;
    profiler_ready = true;
  }
  ChipNameParams chip{GPULINT_SIZE_TO(ChipNameParams, chip), nullptr, device, nullptr};
  if (chip_name(&chip) != cupti::kSuccess) return false;
  std::vector<Config> configs;
  std::vector<std::string> names;
  for (const char* metric : kMetrics) {
    PropertiesParams p{GPULINT_SIZE_TO(PropertiesParams, details), nullptr, chip.chip, metric, {}};
    if (properties(&p) != cupti::kSuccess) continue;
    configs.push_back({p.details.id, 0});
    names.push_back(metric);
  }
  if (configs.empty()) return false;
  SetConfigParams set{GPULINT_SIZE_TO(SetConfigParams, device_index), nullptr, configs.size(),
                      configs.data(), device};
  if (set_config(&set) != cupti::kSuccess) return false;
  // Every device gets the same list: the chips of one machine agree on it.
  if (metric_names.empty()) {
    for (size_t i = 0; i < names.size(); ++i) column_of[configs[i].metric_id] = i;
    metric_names = names;
  }
  configured_devices.insert(device);
  return true;
}

// Moves the counts of the open range into `counts`, once its kernels are done.
void take_counts(void* context) {
  DataPropertiesParams props{GPULINT_SIZE_TO(DataPropertiesParams, instances), nullptr, context,
                             0, 0};
  if (data_properties(&props) != cupti::kSuccess || props.records == 0 || props.instances == 0)
    return;
  std::vector<Data> data(props.records);
  std::vector<InstanceValue> values(props.records * props.instances);
  for (size_t i = 0; i < data.size(); ++i) data[i].values = &values[i * props.instances];
  FlushParams f{GPULINT_SIZE_TO(FlushParams, instances), nullptr, context, props.records,
                props.instances, data.data()};
  if (flush(&f) != cupti::kSuccess) return;
  for (const Data& d : data) {
    if (!d.function_name) continue;
    std::string function = d.function_name;
    free(const_cast<char*>(d.function_name));
    crc_of[function] = d.cubin_crc;
    auto& row = counts[{function, d.pc_offset}];
    row.resize(metric_names.size());
    for (size_t k = 0; k < props.instances; ++k) {
      auto column = column_of.find(d.values[k].metric_id);
      if (column != column_of.end()) row[column->second] += d.values[k].value;
    }
  }
}

void close() {
  if (!open_context) return;
  void* context = open_context;
  open_context = nullptr;
  void* popped = nullptr;
  if (push_context(context) == 0) {
    synchronize();
    pop_context(&popped);
  }
  take_counts(context);
  DisableParams off{GPULINT_SIZE_TO(DisableParams, dropped), nullptr, context, 0};
  disable(&off);
}

bool open(void* context) {
  if (!configure(context)) return false;
  EnableParams on{GPULINT_SIZE_TO(EnableParams, lazy_patching), nullptr, context, 1};
  if (enable(&on) != cupti::kSuccess) return false;
  open_context = context;
  return true;
}

// Before a launch: its kernel is instrumented when this is its first launch and it is the
// user's (`first_object` is then its launching object), and listed where a list was given;
// any other launch closes the range.
void before_launch(const cupti::CallbackData* call, const std::string* first_object) {
  bool wanted = first_object && kernels < kMostKernels && users_object(*first_object) &&
                (listed.empty() || listed.count(call->symbol_name));
  if (!wanted || (open_context && open_context != call->context)) close();
  if (!wanted || (!open_context && !open(call->context))) return;
  ++kernels;
  instrumented.insert(call->correlation_id);
}

void keep_cubin(const void* data) {
  const auto* resource = static_cast<const cupti::ResourceData*>(data);
  const auto* module = resource ? static_cast<const cupti::ModuleResourceData*>(
                                      resource->descriptor)
                                : nullptr;
  if (!module || !module->cubin || module->cubin_size == 0) return;
  if (!open_context && cubin_bytes + module->cubin_size > kMostEagerCubinBytes) return;
  CubinCrcParams crc{GPULINT_SIZE_TO(CubinCrcParams, crc), module->cubin_size, module->cubin, 0};
  if (cubin_crc(&crc) != cupti::kSuccess) return;
  auto& kept = cubins[static_cast<uint32_t>(crc.crc)];
  if (kept.empty()) {
    kept.assign(module->cubin, module->cubin_size);
    cubin_bytes += kept.size();
  }
}

// An instruction's file (its folder and name) and line, from `cubin`; false if unknown.
bool line_in(const std::string& cubin, const std::string& function, uint32_t pc,
             std::string& file, uint32_t& line) {
  CorrelationParams p{GPULINT_SIZE_TO(CorrelationParams, dir), cubin.data(), function.c_str(),
                      cubin.size(), 0, pc, nullptr, nullptr};
  if (correlation(&p) != cupti::kSuccess) return false;
  std::string dir = p.dir ? p.dir : "";
  file = dir.empty() ? std::string(p.file ? p.file : "") : dir + "/" + (p.file ? p.file : "");
  line = p.line;
  free(p.file);
  free(p.dir);
  return !file.empty();
}

// The file and line of `function`'s instruction at `pc`: from the cubin of CRC `crc` where
// it was kept, else from any kept cubin that has the function; false if none.
bool line_of(const std::string& function, uint32_t crc, uint32_t pc, std::string& file,
             uint32_t& line) {
  auto kept = cubins.find(crc);
  if (kept != cubins.end() && line_in(kept->second, function, pc, file, line)) return true;
  for (const auto& [_, cubin] : cubins) {
    if (line_in(cubin, function, pc, file, line)) return true;
  }
  return false;
}

// The counts, one row per instruction with its file and line, to GPULINT_SASS_OUT.
// Appended in one write, under a header of its own: each process of a program that has
// several (a launcher's ranks) writes its block to the same file, as the trace does.
void write_rows() {
  const char* path = getenv("GPULINT_SASS_OUT");
  if (!path || !*path || counts.empty()) return;
  char* text = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  if (!out) return;
  fprintf(out, "function,pc,file,line");
  for (const auto& name : metric_names) fprintf(out, ",%s", name.c_str());
  fputc('\n', out);
  for (const auto& [key, values] : counts) {
    std::string file;
    uint32_t line = 0;
    bool found = line_of(key.first, crc_of[key.first], key.second, file, line);
    write_quoted(out, key.first);
    fprintf(out, ",%u,", key.second);
    write_quoted(out, found ? file : std::string());
    fprintf(out, ",%u", found ? line : 0);
    for (uint64_t v : values) fprintf(out, ",%llu", static_cast<unsigned long long>(v));
    fputc('\n', out);
  }
  fclose(out);
  append_to(path, text, size);
}

void start() {
  const char* out = getenv("GPULINT_SASS_OUT");
  if (!out || !*out || !cupti::enable_domain || !load()) return;
  char self[4096];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) program.assign(self, n);
  if (const char* names = getenv("GPULINT_SASS_KERNELS")) {
    for (const char* at = names; *at;) {
      const char* end = strchr(at, ',');
      if (!end) end = at + strlen(at);
      if (end > at) listed.emplace(at, end - at);
      at = *end ? end + 1 : end;
    }
  }
  active = true;
}

void finish() {
  if (!active) return;
  close();
  write_rows();
}
#undef GPULINT_SIZE_TO
}  // namespace sass

// --source's stall samples, where GPULINT_STALL_OUT names a file: CUPTI's PC sampling
// (cupti_pcsampling.h) on every context from its creation, in continuous mode (kernels
// are not serialized), of the stall reasons ncu's page sums as "All Samples" (not the
// "_not_issued" ones). The samples are drained every 256 launch calls, before a context
// is destroyed, and at exit; each instruction's file and line come from the cubins the
// SASS counters keep. Only the user's kernels' rows are written. ncu's page samples one
// launch per kernel; these are the whole run's (lab/runs/2026-12-04-stall-lines.txt).
namespace stalls {
using cupti::Result;
struct __attribute__((packed, aligned(8))) StallReason {
  uint32_t index;
  uint32_t samples;
};
struct __attribute__((packed, aligned(8))) PcData {
  size_t size;
  uint64_t cubin_crc;
  uint64_t pc_offset;
  uint32_t function_index;
  uint32_t pad;
  char* function_name;
  size_t reason_count;
  StallReason* reasons;
  uint32_t correlation_id;  // CUDA 12.x on; CUPTI fills an array of these by this size
};
struct __attribute__((packed, aligned(8))) Data {
  size_t size;
  size_t collect_pcs;
  uint64_t total_samples;
  uint64_t dropped_samples;
  size_t pcs;
  size_t remaining_pcs;
  uint64_t range_id;
  PcData* pc_data;
  uint64_t non_user_samples;
  uint8_t hardware_buffer_full;
};
// The attribute types (CUpti_PCSamplingConfigurationAttributeType) set here.
constexpr uint32_t kStallReasons = 2;
constexpr uint32_t kCollectionMode = 5;
constexpr uint32_t kOutputFormat = 7;
constexpr uint32_t kDataBuffer = 8;
constexpr uint32_t kContinuous = 1;
constexpr uint32_t kParsed = 1;
struct ConfigurationInfo {
  uint32_t type;
  uint32_t status;
  union {
    uint64_t raw[3];
    uint32_t value;  // collection mode, output format
    struct {
      size_t count;
      uint32_t* indexes;
    } reasons;
    void* buffer;
  } data;
};
struct ConfigurationParams {
  size_t size;
  void* priv;
  void* context;
  size_t count;
  ConfigurationInfo* info;
};
struct ContextParams {  // Enable, Disable
  size_t size;
  void* priv;
  void* context;
};
struct GetDataParams {
  size_t size;
  void* priv;
  void* context;
  void* data;
};
struct NumReasonsParams {
  size_t size;
  void* priv;
  void* context;
  size_t* count;
};
struct ReasonsParams {
  size_t size;
  void* priv;
  void* context;
  size_t count;
  uint32_t* indexes;
  char** names;
};
#define GPULINT_SIZE_TO(T, field) (offsetof(T, field) + sizeof(T::field))

Result (*enable)(ContextParams*);
Result (*disable)(ContextParams*);
Result (*get_data)(GetDataParams*);
Result (*configure_attributes)(ConfigurationParams*);
Result (*num_reasons)(NumReasonsParams*);
Result (*reason_names)(ReasonsParams*);

constexpr size_t kPcsPerDrain = 10000;
constexpr uint32_t kContextCreated = 1;
constexpr uint32_t kContextDestroyStarting = 2;

// One context's sampling: the buffer CUPTI fills, and the reasons it samples.
struct Sampled {
  void* context = nullptr;
  Data data{};
  std::vector<PcData> pcs;
  std::vector<StallReason> reasons;
  std::vector<uint32_t> reason_indexes;  // CUPTI reads them from here
  bool disabled = false;
};

bool active = false;
std::vector<Sampled*> contexts;
std::unordered_map<uint32_t, std::string> reason_name;  // CUPTI's index -> its name
// (kernel, instruction offset, reason index) -> samples over the run
std::map<std::tuple<std::string, uint64_t, uint32_t>, uint64_t> samples;
std::unordered_map<std::string, uint32_t> crc_of;  // kernel -> its cubin's CRC
uint64_t launch_calls = 0;

bool load() {
  auto find = [](auto& entry, const char* name) {
    entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(
        dlsym(cupti::library, name));
    return entry != nullptr;
  };
  return find(enable, "cuptiPCSamplingEnable") && find(disable, "cuptiPCSamplingDisable") &&
         find(get_data, "cuptiPCSamplingGetData") &&
         find(configure_attributes, "cuptiPCSamplingSetConfigurationAttribute") &&
         find(num_reasons, "cuptiPCSamplingGetNumStallReasons") &&
         find(reason_names, "cuptiPCSamplingGetStallReasons");
}

// The indexes of the reasons "All Samples" sums: every one but the "_not_issued" ones.
std::vector<uint32_t> sampled_reasons(void* context) {
  size_t count = 0;
  NumReasonsParams n{GPULINT_SIZE_TO(NumReasonsParams, count), nullptr, context, &count};
  if (num_reasons(&n) != cupti::kSuccess || count == 0) return {};
  std::vector<uint32_t> indexes(count);
  std::vector<std::vector<char>> text(count, std::vector<char>(128));  // CUPTI's 128
  std::vector<char*> names;
  for (auto& t : text) names.push_back(t.data());
  ReasonsParams r{GPULINT_SIZE_TO(ReasonsParams, names), nullptr, context, count,
                  indexes.data(), names.data()};
  if (reason_names(&r) != cupti::kSuccess) return {};
  std::vector<uint32_t> kept;
  for (size_t i = 0; i < count; ++i) {
    std::string name(names[i]);
    if (name.size() >= 11 && name.compare(name.size() - 11, 11, "_not_issued") == 0) continue;
    reason_name[indexes[i]] = name;
    kept.push_back(indexes[i]);
  }
  return kept;
}

void start_on(void* context) {
  ContextParams on{GPULINT_SIZE_TO(ContextParams, context), nullptr, context};
  if (enable(&on) != cupti::kSuccess) return;
  auto* s = new Sampled;
  s->context = context;
  s->reason_indexes = sampled_reasons(context);
  const std::vector<uint32_t>& reasons = s->reason_indexes;
  s->pcs.resize(kPcsPerDrain);
  s->reasons.resize(kPcsPerDrain * reasons.size());
  for (size_t i = 0; i < kPcsPerDrain; ++i) {
    s->pcs[i].size = sizeof(PcData);
    s->pcs[i].reasons = &s->reasons[i * reasons.size()];
  }
  s->data.size = sizeof(Data);
  s->data.collect_pcs = kPcsPerDrain;
  s->data.pc_data = s->pcs.data();
  ConfigurationInfo info[4] = {};
  info[0].type = kStallReasons;
  info[0].data.reasons.count = reasons.size();
  info[0].data.reasons.indexes = const_cast<uint32_t*>(reasons.data());
  info[1].type = kDataBuffer;
  info[1].data.buffer = &s->data;
  info[2].type = kCollectionMode;
  info[2].data.value = kContinuous;
  info[3].type = kOutputFormat;
  info[3].data.value = kParsed;
  ConfigurationParams set{GPULINT_SIZE_TO(ConfigurationParams, info), nullptr, context, 4, info};
  if (reasons.empty() || configure_attributes(&set) != cupti::kSuccess) {
    ContextParams off{GPULINT_SIZE_TO(ContextParams, context), nullptr, context};
    disable(&off);
    delete s;
    return;
  }
  contexts.push_back(s);
}

// Moves what the buffer holds into `samples`.
void take(Sampled& s) {
  for (size_t i = 0; i < s.data.pcs && i < kPcsPerDrain; ++i) {
    const PcData& pc = s.pcs[i];
    if (!pc.function_name) continue;
    // CUPTI may share the name with other records: it is copied, not freed.
    std::string function = pc.function_name;
    crc_of[function] = static_cast<uint32_t>(pc.cubin_crc);
    uint64_t offset = pc.pc_offset;
    for (size_t r = 0; r < pc.reason_count; ++r) {
      uint32_t index = pc.reasons[r].index, n = pc.reasons[r].samples;
      samples[{function, offset, index}] += n;
    }
  }
  s.data.pcs = 0;
}

void drain(Sampled& s) {
  for (int round = 0; round < 64 && !s.disabled; ++round) {
    GetDataParams get{GPULINT_SIZE_TO(GetDataParams, data), nullptr, s.context, &s.data};
    if (get_data(&get) != cupti::kSuccess) return;
    take(s);
    if (s.data.remaining_pcs == 0) return;
  }
}

// Drains and stops the sampling of `context`, or of every context (nullptr).
void stop(void* context) {
  for (Sampled* s : contexts) {
    if (s->disabled || (context && s->context != context)) continue;
    drain(*s);
    ContextParams off{GPULINT_SIZE_TO(ContextParams, context), nullptr, s->context};
    disable(&off);
    take(*s);  // what the disabling copied into the buffer
    s->disabled = true;
  }
}

void on_resource(uint32_t cbid, const void* data) {
  const auto* resource = static_cast<const cupti::ResourceData*>(data);
  if (!active || !resource) return;
  if (cbid == kContextCreated) start_on(resource->context);
  if (cbid == kContextDestroyStarting) stop(resource->context);
}

void on_launch_call() {
  if (active && ++launch_calls % 256 == 0) {
    for (Sampled* s : contexts) drain(*s);
  }
}

// The samples of the user's kernels, one row per instruction and reason with its file
// and line, appended to GPULINT_STALL_OUT under a header of its own (one per process).
void write_rows() {
  const char* path = getenv("GPULINT_STALL_OUT");
  if (!path || !*path || samples.empty()) return;
  char* text = nullptr;
  size_t size = 0;
  FILE* out = open_memstream(&text, &size);
  if (!out) return;
  fprintf(out, "function,pc,file,line,reason,samples\n");
  std::map<std::pair<std::string, uint64_t>, std::pair<std::string, uint32_t>> lines;
  for (const auto& [key, n] : samples) {
    const auto& [function, pc, reason] = key;
    auto object = launching_objects.find(function);
    if (object == launching_objects.end() || !sass::users_object(object->second)) continue;
    auto known = lines.find({function, pc});
    if (known == lines.end()) {
      std::string file;
      uint32_t line = 0;
      auto offset = static_cast<uint32_t>(pc);
      bool found = sass::line_of(function, crc_of[function], offset, file, line);
      known = lines.emplace(std::make_pair(function, pc),
                            found ? std::make_pair(file, line) : std::make_pair("", 0u)).first;
    }
    write_quoted(out, function);
    fprintf(out, ",%llu,", static_cast<unsigned long long>(pc));
    write_quoted(out, known->second.first);
    fprintf(out, ",%u,%s,%llu\n", known->second.second, reason_name[reason].c_str(),
            static_cast<unsigned long long>(n));
  }
  fclose(out);
  append_to(path, text, size);
}

// Needs the SASS counters' cubins and callbacks: sampling comes only with them.
void start() {
  const char* out = getenv("GPULINT_STALL_OUT");
  active = out && *out && sass::active && load();
}

void finish() {
  if (!active) return;
  stop(nullptr);
  write_rows();
}
#undef GPULINT_SIZE_TO
}  // namespace stalls

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
    if (domain == cupti::kDomainRuntime) in_runtime_launch = false;
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
  const std::string* first_object = nullptr;
  std::string& seen = looked_up[call->symbol_name];
  if (seen != call->symbol_name) {
    seen = call->symbol_name;
    if (!launching_objects.count(call->symbol_name))
      first_object = &launching_objects.emplace(call->symbol_name, launching_object()).first->second;
  }
  if (sass::active && !nested) sass::before_launch(call, first_object);
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
    // A launch that ran with --source's SASS counters: its duration is not its own.
    fprintf(out, ",%d\n", sass::instrumented.count(l.correlation_id) ? 1 : 0);
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
  // The concurrent kind's records zero the SASS counters (the serial kind's do not, on the
  // H200 with CUDA 13.0): with them, kernels run one at a time.
  uint32_t kind = sass::active ? cupti::kKindKernel : cupti::kKindConcurrentKernel;
  if (cupti::enable(kind) != cupti::kSuccess) return 0;
  watch_launch_calls();
  // Registered at the first CUDA call, after the CUDA runtime's own exit handler, so it
  // runs before the runtime tears its contexts down and can still flush their records.
  atexit(write_trace);
  const char* window = getenv("GPULINT_TRACE_WINDOW_S");
  long seconds = window ? strtol(window, nullptr, 10) : 0;
  if (seconds > 0) {
    std::thread([seconds] {
      std::this_thread::sleep_for(std::chrono::seconds(seconds));
      window_ended = true;
      write_trace();
      // No exit handlers: the program is cut short, and its own teardown could wait on
      // the work this thread interrupts.
      _exit(0);
    }).detach();
  }
  return 1;
}
