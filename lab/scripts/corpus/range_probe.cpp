// One run of the program with counters (#58 step 4, its second option; twenty-seventh
// session, written before any device call). ncu cannot share the program with gpulint's
// launch tracer (lab/runs/2026-12-05-one-run.txt: CUPTI has one subscriber, ncu's), so
// the counters would come from CUPTI's range profiler in the tracer itself. This probe
// asks what that costs and whether it agrees with ncu: loaded through
// CUDA_INJECTION64_PATH, it records every kernel launch (CUPTI's activity records, as the
// tracer does) and profiles the first launch of each kernel function with the range
// profiler in kernel replay (a range per launch, opened in the launch's API_ENTER callback
// and closed in its API_EXIT: with PROBE_RANGE=auto, the default, by starting and stopping
// the profiler around it; with PROBE_RANGE=user, the profiler started once and a range
// pushed and popped around it), then evaluates PROBE_METRICS for each profiled launch with
// the host API and writes them to PROBE_OUT, one row per launch, beside the seconds each
// profiled launch's call took. Each CUPTI step's result goes to stderr.
// Build:
//   g++ -shared -fPIC -O2 -std=c++17 range_probe.cpp -I$CUPTI/include
//       -I/usr/local/cuda/include -L$CUPTI/lib64 -lcupti -lcuda -o range_probe.so
// Run:
//   CUDA_INJECTION64_PATH=$PWD/range_probe.so PROBE_METRICS=$(gpulint metrics)
//       PROBE_OUT=values.csv [PROBE_PICKS=40] [PROBE_ACTIVITY=0] [PROBE_RANGE=user]
//       [PROBE_FLUSH=1|2] [PROBE_SKIP=1] ./program
#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <map>
#include <string>
#include <vector>

namespace {

std::mutex lock;
std::vector<std::string> metric_names;
std::vector<const char*> metrics;
size_t most_picks = 40;
bool activity = true;
// PROBE_RANGE=user: one Start for the run and a pushed range per profiled launch.
bool user_ranges = false;
// PROBE_FLUSH=1: before each profiled launch, read twice the L2's size from the device
// (a copy to the host), so that other work's dirty lines are written back before the
// launch rather than during it; ncu flushes its caches before each pass (--cache-control
// all, its default), CUPTI's range profiler does not.
bool flush_l2 = false;
// PROBE_FLUSH=2: read twice the L2's size with a kernel instead (its loads allocate in the
// L2, where a copy engine's reads evicted nothing that mattered: call 1 of
// lab/runs/2026-12-05-one-run-loops.txt), launched from PTX on the profiled context and
// waited for, before the profiled launch.
bool flush_by_kernel = false;
thread_local bool flushing = false;  // the flush's own launch, seen by on_launch
CUfunction flush_kernel = nullptr;
CUdeviceptr flush_device = 0;
void* flush_host = nullptr;
size_t flush_bytes = 0;
const char* kFlushPtx = R"(
.version 6.0
.target sm_70
.address_size 64
.visible .entry probe_flush(.param .u64 p_buffer, .param .u64 p_words)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [p_buffer];
  ld.param.u64 %rd2, [p_words];
  mov.u32 %r1, %ctaid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %tid.x;
  mad.lo.s32 %r4, %r1, %r2, %r3;
  cvt.u64.u32 %rd3, %r4;
  mov.u32 %r5, %nctaid.x;
  mul.wide.u32 %rd4, %r5, %r2;
LOOP:
  setp.ge.u64 %p1, %rd3, %rd2;
  @%p1 bra DONE;
  shl.b64 %rd5, %rd3, 2;
  add.s64 %rd6, %rd1, %rd5;
  ld.volatile.global.u32 %r6, [%rd6];
  add.s64 %rd3, %rd3, %rd4;
  bra LOOP;
DONE:
  ret;
}
)";

// One context's profiler: the config and counter data images and the range profiler.
struct Session {
  CUcontext context = nullptr;
  CUpti_Profiler_Host_Object* host = nullptr;
  CUpti_RangeProfiler_Object* profiler = nullptr;
  std::vector<uint8_t> config, counter_data;
  size_t passes = 0;
  bool failed = false;
};
Session session;

struct Pick {
  std::string kernel;
  uint64_t launch;
  double seconds;
};
std::vector<Pick> picks;
// Launches seen of each kernel function; PROBE_SKIP=N profiles each function's launch N+1.
std::map<std::string, size_t> seen;
size_t skip = 0;
uint64_t launches = 0;
std::atomic<uint64_t> kernel_records{0};
thread_local bool open_range = false;
// Launch calls this thread is inside: a runtime launch makes a driver launch within it,
// and only the outermost is a launch of its own.
thread_local int depth = 0;
thread_local std::chrono::steady_clock::time_point opened;

bool ok(const char* step, CUptiResult r) {
  if (r == CUPTI_SUCCESS) return true;
  const char* text = "?";
  cuptiGetResultString(r, &text);
  fprintf(stderr, "range_probe: %s -> %d (%s)\n", step, int(r), text);
  return false;
}

// The range profiler on `context`, configured for `metrics`: once, on the first launch.
bool start_session(CUcontext context) {
  if (session.context) return session.context == context && !session.failed;
  session.context = context;
  session.failed = true;
  CUpti_Profiler_Initialize_Params init{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
  if (!ok("cuptiProfilerInitialize", cuptiProfilerInitialize(&init))) return false;
  CUdevice device;
  if (cuCtxGetDevice(&device) != CUDA_SUCCESS) return false;
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = size_t(device);
  if (!ok("cuptiDeviceGetChipName", cuptiDeviceGetChipName(&chip))) return false;
  CUpti_Profiler_GetCounterAvailability_Params avail{
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  avail.ctx = context;
  if (!ok("GetCounterAvailability size", cuptiProfilerGetCounterAvailability(&avail)))
    return false;
  std::vector<uint8_t> availability(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = availability.data();
  if (!ok("GetCounterAvailability", cuptiProfilerGetCounterAvailability(&avail))) return false;
  CUpti_Profiler_Host_Initialize_Params host{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = chip.pChipName;
  host.pCounterAvailabilityImage = availability.data();
  if (!ok("cuptiProfilerHostInitialize", cuptiProfilerHostInitialize(&host))) return false;
  session.host = host.pHostObject;
  CUpti_Profiler_Host_ConfigAddMetrics_Params add{
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = session.host;
  add.ppMetricNames = metrics.data();
  add.numMetrics = metrics.size();
  if (!ok("ConfigAddMetrics", cuptiProfilerHostConfigAddMetrics(&add))) return false;
  CUpti_Profiler_Host_GetConfigImageSize_Params size{
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = session.host;
  if (!ok("GetConfigImageSize", cuptiProfilerHostGetConfigImageSize(&size))) return false;
  session.config.resize(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params image{
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  image.pHostObject = session.host;
  image.configImageSize = session.config.size();
  image.pConfigImage = session.config.data();
  if (!ok("GetConfigImage", cuptiProfilerHostGetConfigImage(&image))) return false;
  CUpti_Profiler_Host_GetNumOfPasses_Params passes{
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  passes.configImageSize = session.config.size();
  passes.pConfigImage = session.config.data();
  if (!ok("GetNumOfPasses", cuptiProfilerHostGetNumOfPasses(&passes))) return false;
  session.passes = passes.numOfPasses;
  CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  enable.ctx = context;
  if (!ok("cuptiRangeProfilerEnable", cuptiRangeProfilerEnable(&enable))) return false;
  session.profiler = enable.pRangeProfilerObject;
  CUpti_RangeProfiler_GetCounterDataSize_Params data{
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  data.pRangeProfilerObject = session.profiler;
  data.pMetricNames = metrics.data();
  data.numMetrics = metrics.size();
  data.maxNumOfRanges = most_picks;
  data.maxNumRangeTreeNodes = uint32_t(most_picks);
  if (!ok("GetCounterDataSize", cuptiRangeProfilerGetCounterDataSize(&data))) return false;
  session.counter_data.resize(data.counterDataSize);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params prepare{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  prepare.pRangeProfilerObject = session.profiler;
  prepare.counterDataSize = session.counter_data.size();
  prepare.pCounterData = session.counter_data.data();
  if (!ok("CounterDataImageInitialize", cuptiRangeProfilerCounterDataImageInitialize(&prepare)))
    return false;
  CUpti_RangeProfiler_SetConfig_Params set{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  set.pRangeProfilerObject = session.profiler;
  set.configSize = session.config.size();
  set.pConfig = session.config.data();
  set.counterDataImageSize = session.counter_data.size();
  set.pCounterDataImage = session.counter_data.data();
  set.range = user_ranges ? CUPTI_UserRange : CUPTI_AutoRange;
  set.replayMode = CUPTI_KernelReplay;
  set.maxRangesPerPass = most_picks;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  if (!ok("cuptiRangeProfilerSetConfig", cuptiRangeProfilerSetConfig(&set))) return false;
  if (user_ranges) {
    CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    start.pRangeProfilerObject = session.profiler;
    if (!ok("cuptiRangeProfilerStart (once)", cuptiRangeProfilerStart(&start))) return false;
  }
  fprintf(stderr, "range_probe: %s, %zu metrics in %zu passes, %s ranges\n", chip.pChipName,
          metrics.size(), session.passes, user_ranges ? "user" : "auto");
  session.failed = false;
  return true;
}

// Writes back the L2's dirty lines by reading twice its size through it.
void evict_l2() {
  if (!flush_bytes) {
    CUdevice device;
    int l2 = 0;
    if (cuCtxGetDevice(&device) != CUDA_SUCCESS ||
        cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device) != CUDA_SUCCESS)
      return;
    flush_bytes = 2 * size_t(l2);
    if (cuMemAlloc(&flush_device, flush_bytes) != CUDA_SUCCESS ||
        cuMemAllocHost(&flush_host, flush_bytes) != CUDA_SUCCESS) {
      fprintf(stderr, "range_probe: no buffer to flush the L2\n");
      flush_l2 = false;
      return;
    }
  }
  if (flush_by_kernel && !flush_kernel) {
    CUmodule module;
    CUresult loaded = cuModuleLoadData(&module, kFlushPtx);
    if (loaded != CUDA_SUCCESS || cuModuleGetFunction(&flush_kernel, module, "probe_flush") != CUDA_SUCCESS) {
      fprintf(stderr, "range_probe: the flush kernel did not load (%d)\n", int(loaded));
      flush_by_kernel = false;
    }
  }
  if (flush_by_kernel) {
    unsigned long long words = flush_bytes / 4;
    void* args[] = {&flush_device, &words};
    flushing = true;
    CUresult ran = cuLaunchKernel(flush_kernel, 1056, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr);
    if (ran == CUDA_SUCCESS) ran = cuCtxSynchronize();
    flushing = false;
    if (ran != CUDA_SUCCESS) fprintf(stderr, "range_probe: the flush kernel failed (%d)\n", int(ran));
    return;
  }
  if (cuMemcpyDtoH(flush_host, flush_device, flush_bytes) != CUDA_SUCCESS)
    fprintf(stderr, "range_probe: the L2 flush's copy failed\n");
}

// Closes the profiler's collection and decodes what it counted into the counter data.
void stop_and_decode() {
  CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  stop.pRangeProfilerObject = session.profiler;
  ok("cuptiRangeProfilerStop", cuptiRangeProfilerStop(&stop));
  if (!stop.isAllPassSubmitted) fprintf(stderr, "range_probe: not every pass submitted\n");
  CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = session.profiler;
  ok("cuptiRangeProfilerDecodeData", cuptiRangeProfilerDecodeData(&decode));
  if (decode.numOfRangeDropped)
    fprintf(stderr, "range_probe: %zu ranges dropped\n", decode.numOfRangeDropped);
}

void CUPTIAPI on_launch(void*, CUpti_CallbackDomain, CUpti_CallbackId, const void* data) {
  if (flushing) return;
  auto* info = static_cast<const CUpti_CallbackData*>(data);
  std::lock_guard<std::mutex> guard(lock);
  if (info->callbackSite == CUPTI_API_ENTER) {
    if (depth++ > 0) return;
    ++launches;
    const char* name = info->symbolName ? info->symbolName : "?";
    if (picks.size() >= most_picks || seen[name]++ != skip) return;
    if (!start_session(info->context)) return;
    if (flush_l2) evict_l2();
    if (user_ranges) {
      CUpti_RangeProfiler_PushRange_Params push{CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
      push.pRangeProfilerObject = session.profiler;
      push.pRangeName = name;
      if (!ok("cuptiRangeProfilerPushRange", cuptiRangeProfilerPushRange(&push))) return;
    } else {
      CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
      start.pRangeProfilerObject = session.profiler;
      if (!ok("cuptiRangeProfilerStart", cuptiRangeProfilerStart(&start))) return;
    }
    picks.push_back({name, launches, 0.0});
    open_range = true;
    opened = std::chrono::steady_clock::now();
  } else if (--depth == 0 && open_range) {
    open_range = false;
    if (user_ranges) {
      CUpti_RangeProfiler_PopRange_Params pop{CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
      pop.pRangeProfilerObject = session.profiler;
      ok("cuptiRangeProfilerPopRange", cuptiRangeProfilerPopRange(&pop));
    } else {
      stop_and_decode();
    }
    picks.back().seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - opened).count();
  }
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* most) {
  *size = 1 << 20;
  *buffer = static_cast<uint8_t*>(aligned_alloc(8, *size));
  *most = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  CUpti_Activity* record = nullptr;
  while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS)
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) ++kernel_records;
  free(buffer);
}

// Each profiled launch's metric values, evaluated on the host, one row per launch.
void write_values() {
  std::lock_guard<std::mutex> guard(lock);
  if (activity) cuptiActivityFlushAll(1);
  if (user_ranges && session.profiler) stop_and_decode();
  const char* path = getenv("PROBE_OUT");
  FILE* out = path ? fopen(path, "w") : stdout;
  if (!out) return;
  fprintf(out, "# launches %llu, kernel records %llu, passes %zu\n",
          (unsigned long long)launches, (unsigned long long)kernel_records.load(),
          session.passes);
  fprintf(out, "pick,launch,kernel,seconds");
  for (auto* m : metrics) fprintf(out, ",%s", m);
  fprintf(out, "\n");
  CUpti_RangeProfiler_GetCounterDataInfo_Params info{
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = session.counter_data.data();
  info.counterDataImageSize = session.counter_data.size();
  if (session.profiler && ok("GetCounterDataInfo", cuptiRangeProfilerGetCounterDataInfo(&info))) {
    std::vector<double> values(metrics.size());
    for (size_t i = 0; i < info.numTotalRanges && i < picks.size(); i++) {
      CUpti_Profiler_Host_EvaluateToGpuValues_Params eval{
          CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
      eval.pHostObject = session.host;
      eval.pCounterDataImage = session.counter_data.data();
      eval.counterDataImageSize = session.counter_data.size();
      eval.rangeIndex = i;
      eval.ppMetricNames = metrics.data();
      eval.numMetrics = metrics.size();
      eval.pMetricValues = values.data();
      if (!ok("EvaluateToGpuValues", cuptiProfilerHostEvaluateToGpuValues(&eval))) continue;
      fprintf(out, "%zu,%llu,%s,%.6f", i, (unsigned long long)picks[i].launch,
              picks[i].kernel.c_str(), picks[i].seconds);
      for (double v : values) fprintf(out, ",%.9g", v);
      fprintf(out, "\n");
    }
    fprintf(stderr, "range_probe: %zu ranges, %zu picks\n", info.numTotalRanges, picks.size());
  }
  if (out != stdout) fclose(out);
}

}  // namespace

extern "C" int InitializeInjection() {
  if (const char* list = getenv("PROBE_METRICS")) {
    std::string all = list;
    for (size_t at = 0; at <= all.size();) {
      size_t comma = all.find(',', at);
      if (comma == std::string::npos) comma = all.size();
      if (comma > at) metric_names.push_back(all.substr(at, comma - at));
      at = comma + 1;
    }
  } else {
    metric_names = {"gpu__time_duration.sum", "sm__throughput.avg.pct_of_peak_sustained_elapsed"};
  }
  for (auto& m : metric_names) metrics.push_back(m.c_str());
  if (const char* n = getenv("PROBE_PICKS")) most_picks = strtoull(n, nullptr, 10);
  if (const char* n = getenv("PROBE_SKIP")) skip = strtoull(n, nullptr, 10);
  activity = !(getenv("PROBE_ACTIVITY") && strcmp(getenv("PROBE_ACTIVITY"), "0") == 0);
  flush_l2 = getenv("PROBE_FLUSH") && (strcmp(getenv("PROBE_FLUSH"), "1") == 0 ||
                                        strcmp(getenv("PROBE_FLUSH"), "2") == 0);
  flush_by_kernel = flush_l2 && strcmp(getenv("PROBE_FLUSH"), "2") == 0;
  user_ranges = getenv("PROBE_RANGE") && strcmp(getenv("PROBE_RANGE"), "user") == 0;
  CUpti_SubscriberHandle subscriber;
  if (!ok("cuptiSubscribe", cuptiSubscribe(&subscriber, on_launch, nullptr))) return 1;
  for (CUpti_CallbackId id :
       {CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz})
    ok("cuptiEnableCallback", cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, id));
  for (CUpti_CallbackId id :
       {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060})
    ok("cuptiEnableCallback", cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, id));
  if (activity) {
    ok("cuptiActivityRegisterCallbacks",
       cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed));
    ok("cuptiActivityEnable", cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  }
  atexit(write_values);
  return 1;
}
