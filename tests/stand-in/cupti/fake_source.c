/* The stand-in CUPTI's --source side (tests/tracer.rs), built into the same library as
 * fake_cupti.c: the SASS metrics (cupti_sass_metrics.h) and PC sampling
 * (cupti_pcsampling.h) entry points the launch tracer loads, laid out as CUDA 13.0 lays
 * their parameters out (the tracer's own declarations, checked against the toolkit's
 * headers by samples/corpus/sass_layout_check.cpp). A kernel launched while a SASS range is
 * enabled gets two counted instructions (offsets 0 and 16) with two sectors over their
 * ideal each; every launched kernel, and one never launched, gets one sampled instruction
 * (offset 16) with 5 long-scoreboard samples. Lines are /src/k.cu:10 + offset / 16. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { MOST = 8, CRC = 42, LONG_SCOREBOARD = 7, NOT_ISSUED = 8 };

/* SASS metrics. */
struct MetricDetails { uint64_t id; const char *name, *description; };
struct PropertiesParams {
    size_t size; void *priv; const char *chip, *metric; struct MetricDetails details;
};
struct ChipNameParams { size_t size; void *priv; size_t device; const char *chip; };
struct Config { uint64_t metric_id; uint8_t granularity; };
struct SetConfigParams { size_t size; void *priv; size_t count; struct Config *configs; uint32_t device; };
struct EnableParams { size_t size; void *priv; void *context; uint8_t lazy; };
struct DataPropertiesParams { size_t size; void *priv; void *context; size_t records, instances; };
struct InstanceValue { uint64_t metric_id, value; };
struct Data {
    size_t size; void *priv; uint32_t crc, function_index; const char *function;
    uint32_t pc; struct InstanceValue *values;
};
struct FlushParams {
    size_t size; void *priv; void *context; size_t records, instances; struct Data *data;
};
struct CrcParams { size_t size, cubin_size; const void *cubin; uint64_t crc; };
struct CorrelationParams {
    size_t size; const void *cubin; const char *function; size_t cubin_size; uint32_t line;
    uint64_t pc; char *file, *dir;
};

/* The metrics this chip has: sectors (id 11) and their ideal (id 12). */
static const char *metrics[] = {"smsp__sass_sectors_mem_global",
                                "smsp__sass_sectors_mem_global_ideal"};
static size_t configured;
static int enabled;
static const char *counted[MOST];
static size_t counted_count;

int cuptiProfilerInitialize(void *p) { (void)p; return 0; }
int cuptiGetDeviceId(void *context, uint32_t *device) { (void)context; *device = 0; return 0; }
int cuptiDeviceGetChipName(struct ChipNameParams *p) { p->chip = "GH100"; return 0; }

int cuptiSassMetricsGetProperties(struct PropertiesParams *p) {
    for (uint64_t i = 0; i < 2; ++i) {
        if (strcmp(p->metric, metrics[i]) == 0) {
            p->details.id = 11 + i;
            return 0;
        }
    }
    return 1; /* not on this chip */
}

int cuptiSassMetricsSetConfig(struct SetConfigParams *p) { configured = p->count; return 0; }
int cuptiSassMetricsEnable(struct EnableParams *p) { (void)p; enabled = 1; return 0; }
int cuptiSassMetricsDisable(void *p) { (void)p; enabled = 0; return 0; }

/* Called by fake_launch after the launch's enter callback: the kernel runs counted if the
 * tracer opened a range for it. */
void fake_counted_launch(const char *symbol) {
    if (enabled && counted_count < MOST) counted[counted_count++] = symbol;
}

int cuptiSassMetricsGetDataProperties(struct DataPropertiesParams *p) {
    p->records = 2 * counted_count;
    p->instances = configured;
    return 0;
}

int cuptiSassMetricsFlushData(struct FlushParams *p) {
    for (size_t r = 0; r < p->records && r / 2 < counted_count; ++r) {
        struct Data *d = &p->data[r];
        d->crc = CRC;
        d->function = strdup(counted[r / 2]); /* the tracer frees it */
        d->pc = (uint32_t)(16 * (r % 2));
        for (size_t k = 0; k < p->instances; ++k) {
            d->values[k].metric_id = 11 + k;
            d->values[k].value = k == 0 ? 6 : 4; /* sectors 6, ideal 4 */
        }
    }
    counted_count = 0;
    return 0;
}

int cuptiGetCubinCrc(struct CrcParams *p) { p->crc = CRC; return 0; }

int cuptiGetSassToSourceCorrelation(struct CorrelationParams *p) {
    p->line = 10 + (uint32_t)(p->pc / 16);
    p->file = strdup("k.cu");
    p->dir = strdup("/src");
    return 0;
}

/* PC sampling. */
struct StallReason { uint32_t index, samples; };
struct __attribute__((packed, aligned(8))) PcData {
    size_t size; uint64_t crc, pc; uint32_t function_index, pad; char *function;
    size_t reason_count; struct StallReason *reasons; uint32_t correlation;
};
struct __attribute__((packed, aligned(8))) SamplingData {
    size_t size, collect, total, dropped, pcs, remaining; uint64_t range;
    struct PcData *pc_data; uint64_t non_user; uint8_t full;
};
struct ConfigurationInfo { uint32_t type, status; union { uint64_t raw[3]; void *buffer; } data; };
struct ConfigurationParams {
    size_t size; void *priv; void *context; size_t count; struct ConfigurationInfo *info;
};
struct ContextParams { size_t size; void *priv; void *context; };
struct GetDataParams { size_t size; void *priv; void *context; void *data; };
struct NumReasonsParams { size_t size; void *priv; void *context; size_t *count; };
struct ReasonsParams {
    size_t size; void *priv; void *context; size_t count; uint32_t *indexes; char **names;
};

static struct SamplingData *buffer;
static const char *sampled[MOST];
static size_t sampled_count;
static int delivered;

int cuptiPCSamplingEnable(struct ContextParams *p) { (void)p; return 0; }
int cuptiPCSamplingDisable(struct ContextParams *p) { (void)p; return 0; }

int cuptiPCSamplingGetNumStallReasons(struct NumReasonsParams *p) { *p->count = 2; return 0; }

int cuptiPCSamplingGetStallReasons(struct ReasonsParams *p) {
    p->indexes[0] = LONG_SCOREBOARD;
    strcpy(p->names[0], "smsp__pcsamp_warps_issue_stalled_long_scoreboard");
    p->indexes[1] = NOT_ISSUED;
    strcpy(p->names[1], "smsp__pcsamp_warps_issue_stalled_long_scoreboard_not_issued");
    return 0;
}

int cuptiPCSamplingSetConfigurationAttribute(struct ConfigurationParams *p) {
    for (size_t i = 0; i < p->count; ++i) {
        if (p->info[i].type == 8) buffer = p->info[i].data.buffer;
    }
    return 0;
}

/* Called by fake_launch for every launch: the kernel gets sampled. */
void fake_sampled_launch(const char *symbol) {
    for (size_t i = 0; i < sampled_count; ++i) {
        if (strcmp(sampled[i], symbol) == 0) return;
    }
    if (sampled_count < MOST) sampled[sampled_count++] = symbol;
}

/* The samples, once: one instruction of each launched kernel and of one never launched
 * (a library's, which the tracer leaves out). */
int cuptiPCSamplingGetData(struct GetDataParams *p) {
    struct SamplingData *out = p->data;
    out->pcs = 0;
    out->remaining = 0;
    if (delivered || !out) return 0;
    delivered = 1;
    static char *names[MOST + 1];
    fake_sampled_launch("_Z7libraryv");
    for (size_t i = 0; i < sampled_count && i < out->collect; ++i) {
        struct PcData *pc = &out->pc_data[i];
        if (!names[i]) names[i] = strdup(sampled[i]);
        pc->crc = CRC;
        pc->pc = 16;
        pc->function = names[i];
        pc->reason_count = 1;
        pc->reasons[0].index = LONG_SCOREBOARD;
        pc->reasons[0].samples = 5;
        out->pcs = i + 1;
    }
    return 0;
}
