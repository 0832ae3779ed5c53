// A fake CUPTI and driver entry point: range_probe.cpp linked against this runs its control
// flow without a GPU (see dry_run.sh). Each function does what the probe needs of it and
// counts the calls; evaluated values are rangeIndex * 100 + the metric index.
#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <cstdio>
#include <cstring>
#include <vector>
extern "C" {
CUpti_CallbackFunc g_cb = nullptr;
int starts = 0, stops = 0, pushes = 0, pops = 0, ranges = 0;
bool started = false;
CUptiResult cuptiGetResultString(CUptiResult, const char** s) { *s = "fake"; return CUPTI_SUCCESS; }
CUptiResult cuptiSubscribe(CUpti_SubscriberHandle* h, CUpti_CallbackFunc cb, void*) { g_cb = cb; *h = (CUpti_SubscriberHandle)1; return CUPTI_SUCCESS; }
CUptiResult cuptiEnableCallback(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId) { return CUPTI_SUCCESS; }
CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc) { return CUPTI_SUCCESS; }
CUptiResult cuptiActivityEnable(CUpti_ActivityKind) { return CUPTI_SUCCESS; }
CUptiResult cuptiActivityFlushAll(uint32_t) { return CUPTI_SUCCESS; }
CUptiResult cuptiActivityGetNextRecord(uint8_t*, size_t, CUpti_Activity**) { return CUPTI_ERROR_MAX_LIMIT_REACHED; }
CUptiResult cuptiProfilerInitialize(CUpti_Profiler_Initialize_Params*) { return CUPTI_SUCCESS; }
CUptiResult cuptiDeviceGetChipName(CUpti_Device_GetChipName_Params* p) { p->pChipName = "GH100"; return CUPTI_SUCCESS; }
CUptiResult cuptiProfilerGetCounterAvailability(CUpti_Profiler_GetCounterAvailability_Params* p) { if (!p->pCounterAvailabilityImage) p->counterAvailabilityImageSize = 16; return CUPTI_SUCCESS; }
CUptiResult cuptiProfilerHostInitialize(CUpti_Profiler_Host_Initialize_Params* p) { p->pHostObject = (CUpti_Profiler_Host_Object*)8; return CUPTI_SUCCESS; }
CUptiResult cuptiProfilerHostConfigAddMetrics(CUpti_Profiler_Host_ConfigAddMetrics_Params*) { return CUPTI_SUCCESS; }
CUptiResult cuptiProfilerHostGetConfigImageSize(CUpti_Profiler_Host_GetConfigImageSize_Params* p) { p->configImageSize = 32; return CUPTI_SUCCESS; }
CUptiResult cuptiProfilerHostGetConfigImage(CUpti_Profiler_Host_GetConfigImage_Params*) { return CUPTI_SUCCESS; }
CUptiResult cuptiProfilerHostGetNumOfPasses(CUpti_Profiler_Host_GetNumOfPasses_Params* p) { p->numOfPasses = 7; return CUPTI_SUCCESS; }
CUptiResult cuptiRangeProfilerEnable(CUpti_RangeProfiler_Enable_Params* p) { p->pRangeProfilerObject = (CUpti_RangeProfiler_Object*)16; return CUPTI_SUCCESS; }
CUptiResult cuptiRangeProfilerGetCounterDataSize(CUpti_RangeProfiler_GetCounterDataSize_Params* p) { p->counterDataSize = 64; return CUPTI_SUCCESS; }
CUptiResult cuptiRangeProfilerCounterDataImageInitialize(CUpti_RangeProfiler_CounterDataImage_Initialize_Params*) { return CUPTI_SUCCESS; }
CUptiResult cuptiRangeProfilerSetConfig(CUpti_RangeProfiler_SetConfig_Params* p) { fprintf(stderr, "fake: setconfig range=%d replay=%d\n", (int)p->range, (int)p->replayMode); return CUPTI_SUCCESS; }
CUptiResult cuptiRangeProfilerStart(CUpti_RangeProfiler_Start_Params*) { if (started) return CUPTI_ERROR_INVALID_OPERATION; started = true; starts++; return CUPTI_SUCCESS; }
CUptiResult cuptiRangeProfilerStop(CUpti_RangeProfiler_Stop_Params* p) { if (!started) return CUPTI_ERROR_INVALID_OPERATION; started = false; stops++; p->isAllPassSubmitted = 1; return CUPTI_SUCCESS; }
CUptiResult cuptiRangeProfilerPushRange(CUpti_RangeProfiler_PushRange_Params*) { pushes++; ranges++; return CUPTI_SUCCESS; }
CUptiResult cuptiRangeProfilerPopRange(CUpti_RangeProfiler_PopRange_Params*) { pops++; return CUPTI_SUCCESS; }
CUptiResult cuptiRangeProfilerDecodeData(CUpti_RangeProfiler_DecodeData_Params* p) { p->numOfRangeDropped = 0; return CUPTI_SUCCESS; }
CUptiResult cuptiRangeProfilerGetCounterDataInfo(CUpti_RangeProfiler_GetCounterDataInfo_Params* p) { p->numTotalRanges = ranges ? ranges : starts; return CUPTI_SUCCESS; }
CUptiResult cuptiProfilerHostEvaluateToGpuValues(CUpti_Profiler_Host_EvaluateToGpuValues_Params* p) { for (size_t i = 0; i < p->numMetrics; i++) p->pMetricValues[i] = p->rangeIndex * 100 + i; return CUPTI_SUCCESS; }
CUresult cuCtxGetDevice(CUdevice* d) { *d = 0; return CUDA_SUCCESS; }
// PROBE_FLUSH=1's buffers and copies: the copies are counted and reported at exit.
int copies = 0;
CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute, CUdevice) { *v = 1 << 20; return CUDA_SUCCESS; }
CUresult cuMemAlloc(CUdeviceptr* p, size_t) { *p = 64; return CUDA_SUCCESS; }
CUresult cuMemAllocHost(void** p, size_t) { *p = (void*)64; return CUDA_SUCCESS; }
CUresult cuMemcpyDtoH(void*, CUdeviceptr, size_t) { copies++; return CUDA_SUCCESS; }
// PROBE_FLUSH=2's kernel: loaded once, each launch counted; a launch calls the probe's
// callback as the driver would, which must not take the probe's lock again (it holds it).
int kernel_flushes = 0;
CUresult cuModuleLoadData(CUmodule* m, const void*) { *m = (CUmodule)24; return CUDA_SUCCESS; }
CUresult cuModuleGetFunction(CUfunction* f, CUmodule, const char*) { *f = (CUfunction)32; return CUDA_SUCCESS; }
CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream, void**, void**) {
  CUpti_CallbackData d{}; d.symbolName = "probe_flush"; d.context = (CUcontext)0x1;
  d.callbackSite = CUPTI_API_ENTER; g_cb(nullptr, CUPTI_CB_DOMAIN_DRIVER_API, 307, &d);
  d.callbackSite = CUPTI_API_EXIT; g_cb(nullptr, CUPTI_CB_DOMAIN_DRIVER_API, 307, &d);
  kernel_flushes++;
  return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize() { return CUDA_SUCCESS; }
__attribute__((destructor)) static void report_copies() {
  if (copies) fprintf(stderr, "fake: %d flush copies\n", copies);
  if (kernel_flushes) fprintf(stderr, "fake: %d flush kernels\n", kernel_flushes);
}
}
