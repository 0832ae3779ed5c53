// Checks, against the toolkit's CUPTI headers, the declarations the launch tracer makes by
// hand for --source's SASS counters and stall samples
// (src/profile/ncu/tracer/launch_tracer.cpp): each struct's size, the offset of every
// field read or written, the sizes CUPTI is told, and the callback ids. It compiles only
// where they agree (lab/scripts/corpus/sass_lines.sh).
#include <cupti.h>
#include <cupti_pcsampling.h>
#include <cupti_profiler_target.h>
#include <cupti_sass_metrics.h>
#include <cupti_target.h>

#include "../../src/profile/ncu/tracer/launch_tracer.cpp"

#include "layout_check.h"

using namespace sass;
SAME_AT(cupti::CallbackData, CUpti_CallbackData, symbol_name, symbolName);
SAME_AT(cupti::CallbackData, CUpti_CallbackData, context, context);
SAME_AT(cupti::CallbackData, CUpti_CallbackData, correlation_id, correlationId);
SAME_AT(cupti::ResourceData, CUpti_ResourceData, descriptor, resourceDescriptor);
SAME_AT(cupti::ModuleResourceData, CUpti_ModuleResourceData, cubin_size, cubinSize);
SAME_AT(cupti::ModuleResourceData, CUpti_ModuleResourceData, cubin, pCubin);
static_assert(cupti::kDomainResource == CUPTI_CB_DOMAIN_RESOURCE, "resource domain");
static_assert(cupti::kModuleLoaded == CUPTI_CBID_RESOURCE_MODULE_LOADED, "module loaded");
SAME_SIZE(ProfilerInitializeParams, priv, CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
SAME_AT(ChipNameParams, CUpti_Device_GetChipName_Params, device_index, deviceIndex);
SAME_AT(ChipNameParams, CUpti_Device_GetChipName_Params, chip, pChipName);
SAME_SIZE(ChipNameParams, chip, CUpti_Device_GetChipName_Params_STRUCT_SIZE);
SAME_AT(PropertiesParams, CUpti_SassMetrics_GetProperties_Params, chip, pChipName);
SAME_AT(PropertiesParams, CUpti_SassMetrics_GetProperties_Params, metric, pMetricName);
SAME_AT(PropertiesParams, CUpti_SassMetrics_GetProperties_Params, details, metric);
SAME_SIZE(PropertiesParams, details, CUpti_SassMetrics_GetProperties_Params_STRUCT_SIZE);
SAME_AT(MetricDetails, CUpti_SassMetrics_MetricDetails, id, metricId);
static_assert(sizeof(Config) == sizeof(CUpti_SassMetrics_Config), "Config");
SAME_AT(Config, CUpti_SassMetrics_Config, granularity, outputGranularity);
SAME_AT(SetConfigParams, CUpti_SassMetricsSetConfig_Params, count, numOfMetricConfig);
SAME_AT(SetConfigParams, CUpti_SassMetricsSetConfig_Params, configs, pConfigs);
SAME_AT(SetConfigParams, CUpti_SassMetricsSetConfig_Params, device_index, deviceIndex);
SAME_SIZE(SetConfigParams, device_index, CUpti_SassMetricsSetConfig_Params_STRUCT_SIZE);
SAME_AT(EnableParams, CUpti_SassMetricsEnable_Params, context, ctx);
SAME_AT(EnableParams, CUpti_SassMetricsEnable_Params, lazy_patching, enableLazyPatching);
SAME_SIZE(EnableParams, lazy_patching, CUpti_SassMetricsEnable_Params_STRUCT_SIZE);
SAME_AT(DisableParams, CUpti_SassMetricsDisable_Params, context, ctx);
SAME_SIZE(DisableParams, dropped, CUpti_SassMetricsDisable_Params_STRUCT_SIZE);
SAME_AT(DataPropertiesParams, CUpti_SassMetricsGetDataProperties_Params, records,
        numOfPatchedInstructionRecords);
SAME_AT(DataPropertiesParams, CUpti_SassMetricsGetDataProperties_Params, instances,
        numOfInstances);
SAME_SIZE(DataPropertiesParams, instances, CUpti_SassMetricsGetDataProperties_Params_STRUCT_SIZE);
static_assert(sizeof(InstanceValue) == sizeof(CUpti_SassMetrics_InstanceValue), "value");
static_assert(sizeof(Data) == sizeof(CUpti_SassMetrics_Data), "Data");
SAME_AT(Data, CUpti_SassMetrics_Data, cubin_crc, cubinCrc);
SAME_AT(Data, CUpti_SassMetrics_Data, function_name, functionName);
SAME_AT(Data, CUpti_SassMetrics_Data, pc_offset, pcOffset);
SAME_AT(Data, CUpti_SassMetrics_Data, values, pInstanceValues);
SAME_AT(FlushParams, CUpti_SassMetricsFlushData_Params, records, numOfPatchedInstructionRecords);
SAME_AT(FlushParams, CUpti_SassMetricsFlushData_Params, data, pMetricsData);
SAME_SIZE(FlushParams, instances, CUpti_SassMetricsFlushData_Params_STRUCT_SIZE);
SAME_AT(CubinCrcParams, CUpti_GetCubinCrcParams, cubin_size, cubinSize);
SAME_AT(CubinCrcParams, CUpti_GetCubinCrcParams, cubin, cubin);
SAME_AT(CubinCrcParams, CUpti_GetCubinCrcParams, crc, cubinCrc);
SAME_SIZE(CubinCrcParams, crc, CUpti_GetCubinCrcParamsSize);
SAME_AT(CorrelationParams, CUpti_GetSassToSourceCorrelationParams, function, functionName);
SAME_AT(CorrelationParams, CUpti_GetSassToSourceCorrelationParams, cubin_size, cubinSize);
SAME_AT(CorrelationParams, CUpti_GetSassToSourceCorrelationParams, line, lineNumber);
SAME_AT(CorrelationParams, CUpti_GetSassToSourceCorrelationParams, pc_offset, pcOffset);
SAME_AT(CorrelationParams, CUpti_GetSassToSourceCorrelationParams, dir, dirName);
SAME_SIZE(CorrelationParams, dir, CUpti_GetSassToSourceCorrelationParamsSize);

// The stall samples' PC sampling (namespace stalls).
static_assert(sizeof(stalls::StallReason) == sizeof(CUpti_PCSamplingStallReason), "reason");
SAME_AT(stalls::StallReason, CUpti_PCSamplingStallReason, samples, samples);
static_assert(sizeof(stalls::PcData) == sizeof(CUpti_PCSamplingPCData), "PcData");
SAME_AT(stalls::PcData, CUpti_PCSamplingPCData, cubin_crc, cubinCrc);
SAME_AT(stalls::PcData, CUpti_PCSamplingPCData, pc_offset, pcOffset);
SAME_AT(stalls::PcData, CUpti_PCSamplingPCData, function_name, functionName);
SAME_AT(stalls::PcData, CUpti_PCSamplingPCData, reason_count, stallReasonCount);
SAME_AT(stalls::PcData, CUpti_PCSamplingPCData, reasons, stallReason);
static_assert(sizeof(stalls::Data) == sizeof(CUpti_PCSamplingData), "Data");
SAME_AT(stalls::Data, CUpti_PCSamplingData, collect_pcs, collectNumPcs);
SAME_AT(stalls::Data, CUpti_PCSamplingData, pcs, totalNumPcs);
SAME_AT(stalls::Data, CUpti_PCSamplingData, remaining_pcs, remainingNumPcs);
SAME_AT(stalls::Data, CUpti_PCSamplingData, pc_data, pPcData);
static_assert(sizeof(stalls::ConfigurationInfo) == sizeof(CUpti_PCSamplingConfigurationInfo),
              "ConfigurationInfo");
SAME_AT(stalls::ConfigurationInfo, CUpti_PCSamplingConfigurationInfo, data, attributeData);
SAME_AT(stalls::ConfigurationInfo, CUpti_PCSamplingConfigurationInfo, data.reasons.indexes,
        attributeData.stallReasonData.pStallReasonIndex);
static_assert(stalls::kStallReasons == CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON);
static_assert(stalls::kCollectionMode ==
              CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE);
static_assert(stalls::kOutputFormat ==
              CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT);
static_assert(stalls::kDataBuffer ==
              CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER);
static_assert(stalls::kContinuous == CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS);
static_assert(stalls::kParsed == CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED);
SAME_AT(stalls::ConfigurationParams, CUpti_PCSamplingConfigurationInfoParams, count,
        numAttributes);
SAME_SIZE(stalls::ConfigurationParams, info, CUpti_PCSamplingConfigurationInfoParamsSize);
SAME_SIZE(stalls::ContextParams, context, CUpti_PCSamplingEnableParamsSize);
SAME_SIZE(stalls::ContextParams, context, CUpti_PCSamplingDisableParamsSize);
SAME_SIZE(stalls::GetDataParams, data, CUpti_PCSamplingGetDataParamsSize);
SAME_SIZE(stalls::NumReasonsParams, count, CUpti_PCSamplingGetNumStallReasonsParamsSize);
SAME_AT(stalls::ReasonsParams, CUpti_PCSamplingGetStallReasonsParams, indexes,
        stallReasonIndex);
SAME_SIZE(stalls::ReasonsParams, names, CUpti_PCSamplingGetStallReasonsParamsSize);
static_assert(stalls::kContextCreated == CUPTI_CBID_RESOURCE_CONTEXT_CREATED, "created");
static_assert(stalls::kContextDestroyStarting == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING,
              "destroy");

int main() { return 0; }
