// Checks, against the toolkit's CUPTI headers, the declarations the launch tracer makes by
// hand for the range profiler (src/profile/ncu/tracer/launch_tracer_counters.inc): the
// offset of every field read or written, the sizes CUPTI is told, the enum values, and the
// driver's numbers of the device attributes it reads.
// It compiles only where they agree: checked against CUPTI 13.0.85's headers (the wheel
// nvidia-cuda-cupti==13.0.85, with nvidia-cuda-runtime's cuda.h) with
//   g++ -std=c++17 -fsyntax-only -I$CUPTI/include -I$CUDA/include counters_layout_check.cpp
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "../../src/profile/ncu/tracer/launch_tracer.cpp"

#include "layout_check.h"

using namespace counters;
static_assert(kRangeProfilerType == CUPTI_PROFILER_TYPE_RANGE_PROFILER, "profiler type");
static_assert(kAutoRange == CUPTI_AutoRange, "auto range");
static_assert(kKernelReplay == CUPTI_KernelReplay, "kernel replay");
static_assert(sizeof(CUpti_ProfilerType) == sizeof(uint32_t), "profiler type's size");
static_assert(sizeof(CUpti_ProfilerRange) == sizeof(int32_t), "range's size");
static_assert(sizeof(CUpti_ProfilerReplayMode) == sizeof(int32_t), "replay's size");

SAME_AT(AvailabilityParams, CUpti_Profiler_GetCounterAvailability_Params, context, ctx);
SAME_AT(AvailabilityParams, CUpti_Profiler_GetCounterAvailability_Params, image_size,
        counterAvailabilityImageSize);
SAME_AT(AvailabilityParams, CUpti_Profiler_GetCounterAvailability_Params, image,
        pCounterAvailabilityImage);
SAME_SIZE(AvailabilityParams, image, CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);

SAME_AT(HostInitializeParams, CUpti_Profiler_Host_Initialize_Params, profiler_type, profilerType);
SAME_AT(HostInitializeParams, CUpti_Profiler_Host_Initialize_Params, chip, pChipName);
SAME_AT(HostInitializeParams, CUpti_Profiler_Host_Initialize_Params, availability,
        pCounterAvailabilityImage);
SAME_AT(HostInitializeParams, CUpti_Profiler_Host_Initialize_Params, host, pHostObject);
SAME_SIZE(HostInitializeParams, host, CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);

SAME_AT(AddMetricsParams, CUpti_Profiler_Host_ConfigAddMetrics_Params, host, pHostObject);
SAME_AT(AddMetricsParams, CUpti_Profiler_Host_ConfigAddMetrics_Params, names, ppMetricNames);
SAME_AT(AddMetricsParams, CUpti_Profiler_Host_ConfigAddMetrics_Params, count, numMetrics);
SAME_SIZE(AddMetricsParams, count, CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);

SAME_AT(ConfigImageParams, CUpti_Profiler_Host_GetConfigImageSize_Params, host, pHostObject);
SAME_AT(ConfigImageParams, CUpti_Profiler_Host_GetConfigImageSize_Params, image_size,
        configImageSize);
SAME_SIZE(ConfigImageParams, image_size, CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
SAME_AT(ConfigImageParams, CUpti_Profiler_Host_GetConfigImage_Params, host, pHostObject);
SAME_AT(ConfigImageParams, CUpti_Profiler_Host_GetConfigImage_Params, image_size,
        configImageSize);
SAME_AT(ConfigImageParams, CUpti_Profiler_Host_GetConfigImage_Params, image, pConfigImage);
SAME_SIZE(ConfigImageParams, image, CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);

SAME_AT(PassesParams, CUpti_Profiler_Host_GetNumOfPasses_Params, image_size, configImageSize);
SAME_AT(PassesParams, CUpti_Profiler_Host_GetNumOfPasses_Params, image, pConfigImage);
SAME_AT(PassesParams, CUpti_Profiler_Host_GetNumOfPasses_Params, passes, numOfPasses);
SAME_SIZE(PassesParams, passes, CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);

SAME_AT(EnableParams, CUpti_RangeProfiler_Enable_Params, context, ctx);
SAME_AT(EnableParams, CUpti_RangeProfiler_Enable_Params, profiler, pRangeProfilerObject);
SAME_SIZE(EnableParams, profiler, CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);

SAME_AT(DataSizeParams, CUpti_RangeProfiler_GetCounterDataSize_Params, profiler,
        pRangeProfilerObject);
SAME_AT(DataSizeParams, CUpti_RangeProfiler_GetCounterDataSize_Params, names, pMetricNames);
SAME_AT(DataSizeParams, CUpti_RangeProfiler_GetCounterDataSize_Params, count, numMetrics);
SAME_AT(DataSizeParams, CUpti_RangeProfiler_GetCounterDataSize_Params, most_ranges,
        maxNumOfRanges);
SAME_AT(DataSizeParams, CUpti_RangeProfiler_GetCounterDataSize_Params, most_tree_nodes,
        maxNumRangeTreeNodes);
SAME_AT(DataSizeParams, CUpti_RangeProfiler_GetCounterDataSize_Params, data_size,
        counterDataSize);
SAME_SIZE(DataSizeParams, data_size, CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);

SAME_AT(DataInitializeParams, CUpti_RangeProfiler_CounterDataImage_Initialize_Params, profiler,
        pRangeProfilerObject);
SAME_AT(DataInitializeParams, CUpti_RangeProfiler_CounterDataImage_Initialize_Params, data_size,
        counterDataSize);
SAME_AT(DataInitializeParams, CUpti_RangeProfiler_CounterDataImage_Initialize_Params, data,
        pCounterData);
SAME_SIZE(DataInitializeParams, data,
          CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);

SAME_AT(SetConfigParams, CUpti_RangeProfiler_SetConfig_Params, profiler, pRangeProfilerObject);
SAME_AT(SetConfigParams, CUpti_RangeProfiler_SetConfig_Params, config_size, configSize);
SAME_AT(SetConfigParams, CUpti_RangeProfiler_SetConfig_Params, config, pConfig);
SAME_AT(SetConfigParams, CUpti_RangeProfiler_SetConfig_Params, data_size, counterDataImageSize);
SAME_AT(SetConfigParams, CUpti_RangeProfiler_SetConfig_Params, data, pCounterDataImage);
SAME_AT(SetConfigParams, CUpti_RangeProfiler_SetConfig_Params, range, range);
SAME_AT(SetConfigParams, CUpti_RangeProfiler_SetConfig_Params, replay, replayMode);
SAME_AT(SetConfigParams, CUpti_RangeProfiler_SetConfig_Params, most_ranges_per_pass,
        maxRangesPerPass);
SAME_AT(SetConfigParams, CUpti_RangeProfiler_SetConfig_Params, nesting_levels, numNestingLevels);
SAME_AT(SetConfigParams, CUpti_RangeProfiler_SetConfig_Params, min_nesting_level,
        minNestingLevel);
SAME_AT(SetConfigParams, CUpti_RangeProfiler_SetConfig_Params, pass_index, passIndex);
SAME_AT(SetConfigParams, CUpti_RangeProfiler_SetConfig_Params, target_nesting_level,
        targetNestingLevel);
SAME_SIZE(SetConfigParams, target_nesting_level,
          CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);

SAME_AT(StartParams, CUpti_RangeProfiler_Start_Params, profiler, pRangeProfilerObject);
SAME_SIZE(StartParams, profiler, CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
SAME_AT(StopParams, CUpti_RangeProfiler_Stop_Params, profiler, pRangeProfilerObject);
SAME_AT(StopParams, CUpti_RangeProfiler_Stop_Params, all_passes_submitted, isAllPassSubmitted);
SAME_SIZE(StopParams, all_passes_submitted, CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
SAME_AT(DecodeParams, CUpti_RangeProfiler_DecodeData_Params, profiler, pRangeProfilerObject);
SAME_AT(DecodeParams, CUpti_RangeProfiler_DecodeData_Params, ranges_dropped, numOfRangeDropped);
SAME_SIZE(DecodeParams, ranges_dropped, CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);

SAME_AT(DataInfoParams, CUpti_RangeProfiler_GetCounterDataInfo_Params, data, pCounterDataImage);
SAME_AT(DataInfoParams, CUpti_RangeProfiler_GetCounterDataInfo_Params, data_size,
        counterDataImageSize);
SAME_AT(DataInfoParams, CUpti_RangeProfiler_GetCounterDataInfo_Params, ranges, numTotalRanges);
SAME_SIZE(DataInfoParams, ranges, CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);

SAME_AT(EvaluateParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params, host, pHostObject);
SAME_AT(EvaluateParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params, data, pCounterDataImage);
SAME_AT(EvaluateParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params, data_size,
        counterDataImageSize);
SAME_AT(EvaluateParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params, range, rangeIndex);
SAME_AT(EvaluateParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params, names, ppMetricNames);
SAME_AT(EvaluateParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params, count, numMetrics);
SAME_AT(EvaluateParams, CUpti_Profiler_Host_EvaluateToGpuValues_Params, values, pMetricValues);
SAME_SIZE(EvaluateParams, values, CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);

// The device's attributes, by cuda.h's numbers, in the order the tracer lists them.
constexpr CUdevice_attribute kCudaNumbers[] = {
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
    CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
    CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
    CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
};
static_assert(sizeof(kCudaNumbers) / sizeof(kCudaNumbers[0]) ==
                  sizeof(kDeviceAttributes) / sizeof(kDeviceAttributes[0]),
              "device attributes");
constexpr bool same_numbers() {
  for (size_t i = 0; i < sizeof(kCudaNumbers) / sizeof(kCudaNumbers[0]); ++i)
    if (kDeviceAttributes[i].id != kCudaNumbers[i]) return false;
  return true;
}
static_assert(same_numbers(), "device attribute numbers");
static_assert(kWarpSize == CU_DEVICE_ATTRIBUTE_WARP_SIZE, "warp size");
static_assert(kMaxThreadsPerSm == CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
              "threads per SM");
static_assert(sizeof(CUdevice) == sizeof(int), "CUdevice");

// The launch calls' parameters the picks read a grid from (generated_cuda_meta.h and
// generated_cuda_runtime_api_meta.h, which cupti.h includes): the grid after the
// function, or a configuration that starts with it.
SAME_AT(GridFirst, cuLaunchKernel_params, grid, gridDimX);
SAME_AT(GridFirst, cuLaunchKernel_ptsz_params, grid, gridDimX);
SAME_AT(GridFirst, cuLaunchCooperativeKernel_params, grid, gridDimX);
SAME_AT(GridFirst, cudaLaunchKernel_v7000_params, grid, gridDim);
SAME_AT(GridFirst, cudaLaunchKernel_ptsz_v7000_params, grid, gridDim);
SAME_AT(GridFirst, cudaLaunchCooperativeKernel_v9000_params, grid, gridDim);
SAME_AT(ConfigFirst, cuLaunchKernelEx_params, config, config);
SAME_AT(ConfigFirst, cudaLaunchKernelExC_v11060_params, config, config);
static_assert(offsetof(CUlaunchConfig, gridDimX) == 0 && offsetof(CUlaunchConfig, gridDimZ) == 8,
              "CUlaunchConfig's grid");
static_assert(offsetof(cudaLaunchConfig_t, gridDim) == 0 && sizeof(dim3) == sizeof(Dim3),
              "cudaLaunchConfig_t's grid");
