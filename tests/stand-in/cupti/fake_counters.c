/* The stand-in CUPTI's range profiler (tests/tracer.rs), built into the same library as
 * fake_cupti.c: the profiler host and range profiler entry points the launch tracer loads
 * for counters in the traced run, laid out as CUDA 13.0 lays their parameters out (the
 * tracer's own declarations, checked against the toolkit's headers by
 * samples/corpus/counters_layout_check.cpp). The chip has every metric but those whose
 * name holds "missing"; a launch made while the profiler is started is one range (auto
 * range), and range r's value of the metric at index m is r * 100 + m. Misuse (a start
 * while started, a stop while stopped, a range or replay mode other than the auto range
 * and kernel replay) fails as CUPTI does. With FAKE_DECODE_MS, decoding a range takes that
 * many milliseconds; with FAKE_REPLAY_MS, so does the launch in it. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct AvailabilityParams { size_t size; void *priv; void *context; size_t image_size; uint8_t *image; };
struct HostInitializeParams {
    size_t size; void *priv; uint32_t type; const char *chip; const uint8_t *availability; void *host;
};
struct AddMetricsParams { size_t size; void *priv; void *host; const char **names; size_t count; };
struct ConfigImageParams { size_t size; void *priv; void *host; size_t image_size; uint8_t *image; };
struct EnableParams { size_t size; void *priv; void *context; void *profiler; };
struct DataSizeParams {
    size_t size; void *priv; void *profiler; const char **names; size_t count, most_ranges;
    uint32_t most_nodes; size_t data_size;
};
struct DataInitializeParams { size_t size; void *priv; void *profiler; size_t data_size; uint8_t *data; };
struct SetConfigParams {
    size_t size; void *priv; void *profiler; size_t config_size; const uint8_t *config;
    size_t data_size; uint8_t *data; int32_t range, replay; size_t most_ranges_per_pass;
    uint16_t levels, min_level; size_t pass_index; uint16_t target_level;
};
struct StartParams { size_t size; void *priv; void *profiler; };
struct StopParams {
    size_t size; void *priv; void *profiler; size_t pass_index, target_level; uint8_t submitted;
};
struct DecodeParams { size_t size; void *priv; void *profiler; size_t dropped; };
struct DataInfoParams { size_t size; void *priv; const uint8_t *data; size_t data_size, ranges; };
struct EvaluateParams {
    size_t size; void *priv; void *host; const uint8_t *data; size_t data_size, range;
    const char **names; size_t count; double *values;
};

enum { INVALID_PARAMETER = 1, INVALID_OPERATION = 7 };
static int host, profiler, configured, started;
static size_t ranges;

int cuptiProfilerGetCounterAvailability(struct AvailabilityParams *p) {
    if (!p->image) p->image_size = 16;
    return 0;
}
int cuptiProfilerHostInitialize(struct HostInitializeParams *p) {
    if (p->type != 0 || !p->chip || !p->availability) return INVALID_PARAMETER;
    p->host = &host;
    return 0;
}
int cuptiProfilerHostConfigAddMetrics(struct AddMetricsParams *p) {
    for (size_t i = 0; i < p->count; ++i)
        if (strstr(p->names[i], "missing")) return INVALID_PARAMETER;
    return p->host == &host ? 0 : INVALID_PARAMETER;
}
int cuptiProfilerHostGetConfigImageSize(struct ConfigImageParams *p) {
    p->image_size = 32;
    return 0;
}
int cuptiProfilerHostGetConfigImage(struct ConfigImageParams *p) {
    return p->image && p->image_size == 32 ? 0 : INVALID_PARAMETER;
}
struct PassesParams { size_t size; void *priv; size_t image_size; uint8_t *image; size_t passes; };
int cuptiProfilerHostGetNumOfPasses(struct PassesParams *p) {
    if (!p->image || p->image_size != 32) return INVALID_PARAMETER;
    p->passes = 7;
    return 0;
}
int cuptiRangeProfilerEnable(struct EnableParams *p) {
    p->profiler = &profiler;
    return 0;
}
int cuptiRangeProfilerGetCounterDataSize(struct DataSizeParams *p) {
    p->data_size = 64;
    return 0;
}
int cuptiRangeProfilerCounterDataImageInitialize(struct DataInitializeParams *p) {
    return p->data && p->data_size == 64 ? 0 : INVALID_PARAMETER;
}
int cuptiRangeProfilerSetConfig(struct SetConfigParams *p) {
    if (p->range != 1 || p->replay != 2 || p->profiler != &profiler) return INVALID_PARAMETER;
    configured = 1;
    return 0;
}
int cuptiRangeProfilerStart(struct StartParams *p) {
    if (p->profiler != &profiler) return INVALID_PARAMETER;
    if (!configured || started) return INVALID_OPERATION;
    started = 1;
    return 0;
}
int cuptiRangeProfilerStop(struct StopParams *p) {
    if (p->profiler != &profiler) return INVALID_PARAMETER;
    if (!started) return INVALID_OPERATION;
    started = 0;
    p->submitted = 1;
    return 0;
}
int cuptiRangeProfilerDecodeData(struct DecodeParams *p) {
    const char *ms = getenv("FAKE_DECODE_MS");
    if (ms) {
        long n = atol(ms);
        struct timespec pause = {n / 1000, (n % 1000) * 1000000L};
        nanosleep(&pause, NULL);
    }
    p->dropped = 0;
    return 0;
}
int cuptiRangeProfilerGetCounterDataInfo(struct DataInfoParams *p) {
    p->ranges = ranges;
    return 0;
}
int cuptiProfilerHostEvaluateToGpuValues(struct EvaluateParams *p) {
    if (p->range >= ranges) return INVALID_PARAMETER;
    for (size_t m = 0; m < p->count; ++m) p->values[m] = (double)(p->range * 100 + m);
    return 0;
}

/* Called by fake_cupti.c's fake_launch between a launch call's entry and exit. With
 * FAKE_REPLAY_MS, a launch in a range takes that many milliseconds, as its replay passes
 * do inside the launch call. */
void fake_ranged_launch(void) {
    if (!started) return;
    ++ranges;
    const char *ms = getenv("FAKE_REPLAY_MS");
    if (ms) {
        long n = atol(ms);
        struct timespec pause = {n / 1000, (n % 1000) * 1000000L};
        nanosleep(&pause, NULL);
    }
}
