// Issues #37 and #39, for the next session: could the warps' stall samples per line, which
// latency-bound, global-accumulator and serial-loads name their lines by, come from CUPTI's
// PC sampling in the traced run, as the SASS counters now do (sass_lines_probe.cpp,
// lab/runs/2026-12-04-sass-lines.txt)? A probe, not part of gpulint, written in the
// twentieth session and not yet run: an injection library (CUDA_INJECTION64_PATH) that
// enables PC sampling on each context as it is created (continuous mode: kernels are not
// serialized), drains the samples every 256 launches and at exit, and writes one row per
// sampled instruction and stall reason to GPULINT_STALL_OUT: the kernel's mangled name, the
// instruction's offset, its file and line (from the module's cubin, kept as it loaded), the
// reason's name, and its samples over the whole run. GPULINT_STALL_PERIOD=N samples every
// 2^N cycles (CUPTI's default otherwise); GPULINT_STALL_OFF=1 subscribes but samples
// nothing (CUPTI's own cost). Built on the device against the toolkit's CUPTI
// (lab/scripts/corpus/sass_lines.sh, stage `stalls`):
//   g++ -shared -fPIC -O2 stall_lines_probe.cpp -I$CUDA/include -L$CUDA/lib64 -lcupti -lcuda
#include <cuda.h>
#include <cupti.h>
#include <cupti_pcsampling.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace {

constexpr size_t kPcsPerDrain = 20000;

struct ContextState {
  CUcontext context = nullptr;
  std::vector<uint32_t> reason_index;
  std::vector<std::string> reason_name;
  CUpti_PCSamplingData data{};
  std::vector<CUpti_PCSamplingPCData> pcs;
  std::vector<std::vector<CUpti_PCSamplingStallReason>> reasons;
};

std::mutex lock;
std::vector<ContextState*> contexts;
std::map<uint32_t, std::string> cubins;  // low 32 bits of the CRC -> bytes
// (kernel, offset, reason name) -> samples over the run
std::map<std::tuple<std::string, uint64_t, std::string>, uint64_t> samples;
std::map<std::string, uint64_t> crc_of;
uint64_t launches = 0;
bool off = false;

void log(const char* what, CUptiResult result) {
  const char* text = "";
  cuptiGetResultString(result, &text);
  std::fprintf(stderr, "stall probe: %s: %s\n", what, text);
}

// Moves what the buffer holds into `samples`.
void take(ContextState& s) {
  for (size_t i = 0; i < s.data.totalNumPcs; ++i) {
    const CUpti_PCSamplingPCData& pc = s.data.pPcData[i];
    if (!pc.functionName) continue;
    crc_of[pc.functionName] = pc.cubinCrc;
    for (size_t r = 0; r < pc.stallReasonCount; ++r) {
      uint32_t index = pc.stallReason[r].pcSamplingStallReasonIndex;
      std::string name = "?";
      for (size_t k = 0; k < s.reason_index.size(); ++k) {
        if (s.reason_index[k] == index) name = s.reason_name[k];
      }
      samples[{pc.functionName, pc.pcOffset, name}] += pc.stallReason[r].samples;
    }
  }
  s.data.totalNumPcs = 0;
}

void drain(ContextState& s) {
  for (int round = 0; round < 64; ++round) {
    CUpti_PCSamplingGetDataParams get{CUpti_PCSamplingGetDataParamsSize};
    get.ctx = s.context;
    get.pcSamplingData = &s.data;
    CUptiResult r = cuptiPCSamplingGetData(&get);
    if (r != CUPTI_SUCCESS) return log("get data", r);
    take(s);
    if (s.data.remainingNumPcs == 0) return;
  }
}

void configure(CUcontext context) {
  auto* s = new ContextState;
  s->context = context;
  CUpti_PCSamplingEnableParams enable{CUpti_PCSamplingEnableParamsSize};
  enable.ctx = context;
  CUptiResult r = cuptiPCSamplingEnable(&enable);
  if (r != CUPTI_SUCCESS) return log("enable", r);
  size_t count = 0;
  CUpti_PCSamplingGetNumStallReasonsParams num{CUpti_PCSamplingGetNumStallReasonsParamsSize};
  num.ctx = context;
  num.numStallReasons = &count;
  if ((r = cuptiPCSamplingGetNumStallReasons(&num)) != CUPTI_SUCCESS) return log("reasons", r);
  s->reason_index.resize(count);
  std::vector<char*> names(count);
  for (auto& n : names) n = static_cast<char*>(std::calloc(CUPTI_STALL_REASON_STRING_SIZE, 1));
  CUpti_PCSamplingGetStallReasonsParams get{CUpti_PCSamplingGetStallReasonsParamsSize};
  get.ctx = context;
  get.numStallReasons = count;
  get.stallReasonIndex = s->reason_index.data();
  get.stallReasons = names.data();
  if ((r = cuptiPCSamplingGetStallReasons(&get)) != CUPTI_SUCCESS) return log("names", r);
  for (char* n : names) {
    s->reason_name.emplace_back(n);
    std::free(n);
  }
  s->pcs.resize(kPcsPerDrain);
  s->reasons.assign(kPcsPerDrain, std::vector<CUpti_PCSamplingStallReason>(count));
  for (size_t i = 0; i < kPcsPerDrain; ++i) {
    s->pcs[i].size = sizeof(CUpti_PCSamplingPCData);
    s->pcs[i].stallReason = s->reasons[i].data();
  }
  s->data.size = sizeof(CUpti_PCSamplingData);
  s->data.collectNumPcs = kPcsPerDrain;
  s->data.pPcData = s->pcs.data();
  std::vector<CUpti_PCSamplingConfigurationInfo> info(5);
  info[0].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_STALL_REASON;
  info[0].attributeData.stallReasonData.stallReasonCount = count;
  info[0].attributeData.stallReasonData.pStallReasonIndex = s->reason_index.data();
  info[1].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_DATA_BUFFER;
  info[1].attributeData.samplingDataBufferData.samplingDataBuffer = &s->data;
  info[2].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_COLLECTION_MODE;
  info[2].attributeData.collectionModeData.collectionMode =
      CUPTI_PC_SAMPLING_COLLECTION_MODE_CONTINUOUS;
  info[3].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_OUTPUT_DATA_FORMAT;
  info[3].attributeData.outputDataFormatData.outputDataFormat =
      CUPTI_PC_SAMPLING_OUTPUT_DATA_FORMAT_PARSED;
  info[4].attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_ENABLE_START_STOP_CONTROL;
  info[4].attributeData.enableStartStopControlData.enableStartStopControl = 0;
  if (const char* period = std::getenv("GPULINT_STALL_PERIOD")) {
    CUpti_PCSamplingConfigurationInfo p{};
    p.attributeType = CUPTI_PC_SAMPLING_CONFIGURATION_ATTR_TYPE_SAMPLING_PERIOD;
    p.attributeData.samplingPeriodData.samplingPeriod = std::atoi(period);
    info.push_back(p);
  }
  CUpti_PCSamplingConfigurationInfoParams set{CUpti_PCSamplingConfigurationInfoParamsSize};
  set.ctx = context;
  set.numAttributes = info.size();
  set.pPCSamplingConfigurationInfo = info.data();
  if ((r = cuptiPCSamplingSetConfigurationAttribute(&set)) != CUPTI_SUCCESS) {
    return log("configure", r);
  }
  contexts.push_back(s);
  std::fprintf(stderr, "stall probe: sampling on, %zu stall reasons\n", count);
}

void keep_cubin(const CUpti_ModuleResourceData* module) {
  if (!module || !module->pCubin || module->cubinSize == 0) return;
  CUpti_GetCubinCrcParams crc{CUpti_GetCubinCrcParamsSize};
  crc.cubin = module->pCubin;
  crc.cubinSize = module->cubinSize;
  if (cuptiGetCubinCrc(&crc) != CUPTI_SUCCESS) return;
  cubins[static_cast<uint32_t>(crc.cubinCrc)] = std::string(module->pCubin, module->cubinSize);
}

std::string line_of(const std::string& function, uint64_t pc) {
  auto try_cubin = [&](const std::string& cubin, std::string& out) {
    CUpti_GetSassToSourceCorrelationParams p{CUpti_GetSassToSourceCorrelationParamsSize};
    p.cubin = cubin.data();
    p.cubinSize = cubin.size();
    p.functionName = function.c_str();
    p.pcOffset = pc;
    if (cuptiGetSassToSourceCorrelation(&p) != CUPTI_SUCCESS) return false;
    out = std::string(p.dirName ? p.dirName : "") + "/" + (p.fileName ? p.fileName : "?") +
          "," + std::to_string(p.lineNumber);
    std::free(p.fileName);
    std::free(p.dirName);
    return true;
  };
  std::string out;
  auto kept = cubins.find(static_cast<uint32_t>(crc_of[function]));
  if (kept != cubins.end() && try_cubin(kept->second, out)) return out;
  for (auto& [crc, cubin] : cubins) {
    if (try_cubin(cubin, out)) return out;
  }
  return "?,0";
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id,
                          const void* data) {
  std::lock_guard<std::mutex> guard(lock);
  if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
    auto* resource = static_cast<const CUpti_ResourceData*>(data);
    if (id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED && !off) configure(resource->context);
    // A destroyed context's samples can no longer be read: take them now.
    if (id == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
      for (ContextState* s : contexts) {
        if (s->context == resource->context) drain(*s);
      }
    }
    if (id == CUPTI_CBID_RESOURCE_MODULE_LOADED) {
      keep_cubin(static_cast<const CUpti_ModuleResourceData*>(resource->resourceDescriptor));
    }
    return;
  }
  auto* call = static_cast<const CUpti_CallbackData*>(data);
  if (call->callbackSite == CUPTI_API_EXIT && ++launches % 256 == 0) {
    for (ContextState* s : contexts) drain(*s);
  }
}

void at_exit() {
  std::lock_guard<std::mutex> guard(lock);
  for (ContextState* s : contexts) {
    drain(*s);
    CUpti_PCSamplingDisableParams disable{CUpti_PCSamplingDisableParamsSize};
    disable.ctx = s->context;
    cuptiPCSamplingDisable(&disable);
    take(*s);  // what Disable copied into the buffer
  }
  const char* path = std::getenv("GPULINT_STALL_OUT");
  FILE* out = path ? std::fopen(path, "w") : nullptr;
  if (!out) return;
  std::fprintf(out, "function,pc,file,line,reason,samples\n");
  for (auto& [key, n] : samples) {
    const auto& [function, pc, reason] = key;
    std::fprintf(out, "\"%s\",%llu,%s,%s,%llu\n", function.c_str(),
                 static_cast<unsigned long long>(pc), line_of(function, pc).c_str(),
                 reason.c_str(), static_cast<unsigned long long>(n));
  }
  std::fclose(out);
  std::fprintf(stderr, "stall probe: %zu rows, %llu launches\n", samples.size(),
               static_cast<unsigned long long>(launches));
}

}  // namespace

extern "C" int InitializeInjection() {
  off = std::getenv("GPULINT_STALL_OFF") != nullptr;
  CUpti_SubscriberHandle subscriber;
  CUptiResult r = cuptiSubscribe(&subscriber, (CUpti_CallbackFunc)on_callback, nullptr);
  if (r != CUPTI_SUCCESS) {
    log("subscribe", r);
    return 1;
  }
  cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE);
  cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
  cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                      CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);
  std::atexit(at_exit);
  return 1;
}
