// Issues #37 and #39: could the per-line counters that `--source` takes from ncu's
// SourceCounters section come from CUPTI's SASS metrics in the traced run instead, at the
// cost of one instrumented launch per kernel and no second ncu run? A probe, not part of
// gpulint: an injection library (CUDA_INJECTION64_PATH) that, on each context, patches
// every kernel at its first launch (lazy patching) for the metrics in GPULINT_SASS_METRICS
// (unknown names are skipped and logged), and writes one CSV row per patched SASS
// instruction to GPULINT_SASS_OUT: the kernel's mangled name, the instruction's offset,
// its source file and line (cuptiGetSassToSourceCorrelation on the module's cubin), then
// each metric summed over the GPU. GPULINT_SASS_OFF=1 subscribes and keeps the cubins but
// patches nothing (CUPTI's own cost); GPULINT_SASS_LIST=FILE writes the chip's metric list.
// Built on the device against the toolkit's CUPTI (lab/scripts/corpus/sass_lines.sh):
//   g++ -shared -fPIC -O2 sass_lines_probe.cpp -I$CUPTI/include -L$CUPTI/lib64 -lcupti -lcuda
#include <cuda.h>
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

std::mutex lock;
std::map<uint64_t, std::string> cubins;  // by CRC, copied when the module loads
std::vector<CUcontext> contexts;
std::vector<std::string> metric_names;
std::map<uint64_t, size_t> column_of;  // metric id -> column
bool off = false;
bool initialized = false;
auto start = std::chrono::steady_clock::now();

double seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void log(const char* what, CUptiResult result) {
  const char* text = "";
  cuptiGetResultString(result, &text);
  std::fprintf(stderr, "sass probe: %.3f s: %s: %s\n", seconds(), what, text);
}

std::vector<std::string> split(const char* list) {
  std::vector<std::string> out;
  std::string current;
  for (const char* c = list; c && *c; ++c) {
    if (*c == ',') {
      if (!current.empty()) out.push_back(current);
      current.clear();
    } else {
      current += *c;
    }
  }
  if (!current.empty()) out.push_back(current);
  return out;
}

void list_metrics(const char* chip) {
  const char* path = std::getenv("GPULINT_SASS_LIST");
  if (!path) return;
  CUpti_SassMetrics_GetNumOfMetrics_Params count{CUpti_SassMetrics_GetNumOfMetrics_Params_STRUCT_SIZE};
  count.pChipName = chip;
  if (cuptiSassMetricsGetNumOfMetrics(&count) != CUPTI_SUCCESS) return;
  std::vector<CUpti_SassMetrics_MetricDetails> details(count.numOfMetrics);
  CUpti_SassMetrics_GetMetrics_Params get{CUpti_SassMetrics_GetMetrics_Params_STRUCT_SIZE};
  get.pChipName = chip;
  get.numOfMetrics = count.numOfMetrics;
  get.pMetricsList = details.data();
  if (cuptiSassMetricsGetMetrics(&get) != CUPTI_SUCCESS) return;
  if (FILE* f = std::fopen(path, "w")) {
    for (auto& d : details) std::fprintf(f, "%s\t%s\n", d.pMetricName, d.pMetricDescription);
    std::fclose(f);
  }
}

void configure(CUcontext ctx) {
  uint32_t device = 0;
  cuptiGetDeviceId(ctx, &device);
  if (!initialized) {
    CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CUptiResult r = cuptiProfilerInitialize(&init);
    if (r != CUPTI_SUCCESS) return log("profiler initialize", r);
    CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = device;
    r = cuptiDeviceGetChipName(&chip);
    if (r != CUPTI_SUCCESS) return log("chip name", r);
    list_metrics(chip.pChipName);
    std::vector<CUpti_SassMetrics_Config> configs;
    for (auto& name : split(std::getenv("GPULINT_SASS_METRICS"))) {
      CUpti_SassMetrics_GetProperties_Params p{CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE};
      p.pChipName = chip.pChipName;
      p.pMetricName = name.c_str();
      r = cuptiSassMetricsGetProperties(&p);
      if (r != CUPTI_SUCCESS) {
        log(("unknown metric " + name).c_str(), r);
        continue;
      }
      column_of[p.metric.metricId] = metric_names.size();
      metric_names.push_back(name);
      configs.push_back({p.metric.metricId, static_cast<uint8_t>(CUPTI_SASS_METRICS_OUTPUT_GRANULARITY_GPU)});
    }
    CUpti_SassMetricsSetConfig_Params set{CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE};
    set.numOfMetricConfig = configs.size();
    set.pConfigs = configs.data();
    set.deviceIndex = device;
    r = cuptiSassMetricsSetConfig(&set);
    if (r != CUPTI_SUCCESS) return log("set config", r);
    initialized = true;
    log("configured", CUPTI_SUCCESS);
  }
  CUpti_SassMetricsEnable_Params enable{CUpti_SassMetricsEnable_Params_STRUCT_SIZE};
  enable.ctx = ctx;
  enable.enableLazyPatching = 1;
  CUptiResult r = cuptiSassMetricsEnable(&enable);
  log("enable", r);
  if (r == CUPTI_SUCCESS) contexts.push_back(ctx);
}

// The source line of one instruction, "file,line" ("?,0" when the cubin has no line info).
// The record's CRC is 32 bits where cuptiGetCubinCrc gives 64: the cubins are kept by the
// low 32 bits, and when none matches each is tried in turn.
bool correlate(const std::string& cubin, const char* function, uint32_t pc,
               CUpti_GetSassToSourceCorrelationParams& p) {
  p = {CUpti_GetSassToSourceCorrelationParamsSize};
  p.cubin = cubin.data();
  p.cubinSize = cubin.size();
  p.functionName = function;
  p.pcOffset = pc;
  return cuptiGetSassToSourceCorrelation(&p) == CUPTI_SUCCESS;
}

std::string line_of(uint64_t crc, const char* function, uint32_t pc) {
  CUpti_GetSassToSourceCorrelationParams p{};
  auto cubin = cubins.find(crc & 0xffffffffu);
  bool found = cubin != cubins.end() && correlate(cubin->second, function, pc, p);
  for (auto it = cubins.begin(); !found && it != cubins.end(); ++it) {
    found = correlate(it->second, function, pc, p);
  }
  if (!found) return "?,0";
  std::string out = std::string(p.dirName ? p.dirName : "") + "/" +
                    (p.fileName ? p.fileName : "?") + "," + std::to_string(p.lineNumber);
  std::free(p.fileName);
  std::free(p.dirName);
  return out;
}

void flush(CUcontext ctx, const char* when) {
  double t0 = seconds();
  CUpti_SassMetricsGetDataProperties_Params props{CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE};
  props.ctx = ctx;
  CUptiResult r = cuptiSassMetricsGetDataProperties(&props);
  if (r != CUPTI_SUCCESS) return log("data properties", r);
  if (props.numOfPatchedInstructionRecords == 0 || props.numOfInstances == 0) return;
  std::vector<CUpti_SassMetrics_Data> data(props.numOfPatchedInstructionRecords);
  std::vector<CUpti_SassMetrics_InstanceValue> values(props.numOfPatchedInstructionRecords *
                                                      props.numOfInstances);
  for (size_t i = 0; i < data.size(); ++i) {
    data[i].pInstanceValues = &values[i * props.numOfInstances];
  }
  CUpti_SassMetricsFlushData_Params f{CUpti_SassMetricsFlushData_Params_STRUCT_SIZE};
  f.ctx = ctx;
  f.numOfPatchedInstructionRecords = props.numOfPatchedInstructionRecords;
  f.numOfInstances = props.numOfInstances;
  f.pMetricsData = data.data();
  r = cuptiSassMetricsFlushData(&f);
  if (r != CUPTI_SUCCESS) return log("flush", r);
  FILE* out = std::fopen(std::getenv("GPULINT_SASS_OUT"), "a");
  if (!out) return;
  for (auto& d : data) {
    std::vector<uint64_t> sums(metric_names.size(), 0);
    for (size_t k = 0; k < props.numOfInstances; ++k) {
      auto c = column_of.find(d.pInstanceValues[k].metricId);
      if (c != column_of.end()) sums[c->second] += d.pInstanceValues[k].value;
    }
    std::fprintf(out, "%s,%u,%s", d.functionName, d.pcOffset,
                 line_of(d.cubinCrc, d.functionName, d.pcOffset).c_str());
    for (auto s : sums) std::fprintf(out, ",%llu", static_cast<unsigned long long>(s));
    std::fprintf(out, "\n");
    std::free(const_cast<char*>(d.functionName));
  }
  std::fclose(out);
  std::fprintf(stderr, "sass probe: %.3f s: flushed %zu records x %zu instances at %s in %.3f s\n",
               seconds(), props.numOfPatchedInstructionRecords, props.numOfInstances, when,
               seconds() - t0);
}

void keep_cubin(const CUpti_ModuleResourceData* module) {
  if (!module || !module->pCubin || module->cubinSize == 0) return;
  CUpti_GetCubinCrcParams crc{CUpti_GetCubinCrcParamsSize};
  crc.cubin = module->pCubin;
  crc.cubinSize = module->cubinSize;
  if (cuptiGetCubinCrc(&crc) != CUPTI_SUCCESS) return;
  cubins[crc.cubinCrc & 0xffffffffu] = std::string(module->pCubin, module->cubinSize);
}

void CUPTIAPI on_resource(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                          const void* data) {
  if (domain != CUPTI_CB_DOMAIN_RESOURCE) return;
  auto* resource = static_cast<const CUpti_ResourceData*>(data);
  std::lock_guard<std::mutex> guard(lock);
  switch (id) {
    case CUPTI_CBID_RESOURCE_CONTEXT_CREATED:
      if (!off) configure(resource->context);
      break;
    case CUPTI_CBID_RESOURCE_MODULE_LOADED:
      keep_cubin(static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor));
      break;
    case CUPTI_CBID_RESOURCE_MODULE_UNLOAD_STARTING:
      if (!off) flush(resource->context, "module unload");
      break;
    case CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
      if (!off) flush(resource->context, "context destroy");
      break;
    default:
      break;
  }
}

void at_exit() {
  std::lock_guard<std::mutex> guard(lock);
  for (CUcontext ctx : contexts) flush(ctx, "exit");
  std::fprintf(stderr, "sass probe: %.3f s: exit, %zu cubins kept\n", seconds(), cubins.size());
}

}  // namespace

extern "C" int InitializeInjection() {
  off = std::getenv("GPULINT_SASS_OFF") != nullptr;
  CUpti_SubscriberHandle subscriber;
  CUptiResult r = cuptiSubscribe(&subscriber, (CUpti_CallbackFunc)on_resource, nullptr);
  if (r != CUPTI_SUCCESS) {
    log("subscribe", r);
    return 1;
  }
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE);
  std::atexit(at_exit);
  return 1;
}
