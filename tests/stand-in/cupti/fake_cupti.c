/* A stand-in for CUPTI's library in tests/tracer.rs: the entry points gpulint's launch
 * tracer loads. The callback API's three call the tracer's callback when the stand-in
 * driver makes a launch (fake_launch), for the launch calls the tracer enabled by name.
 * The activity API's five deliver on flush the kernel records a program with one plain launch, one
 * CUDA graph launch of two kernels and a kernel of an unusual name would give, out of order
 * and with a memory-copy record among them, laid out as CUpti_ActivityKernel's leading
 * fields are (offsets checked against CUDA 13.0's header on the H200,
 * docs/runs/2026-12-01-launch-trace.txt). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef void (*Requested)(uint8_t **buffer, size_t *size, size_t *max_records);
typedef void (*Completed)(void *context, uint32_t stream, uint8_t *buffer, size_t size,
                          size_t valid);
static Requested requested;
static Completed completed;

struct __attribute__((packed)) Kernel {
    uint32_t kind;
    uint8_t cache_config, shared_memory_config;
    uint16_t registers_per_thread;
    uint32_t cache_requested, cache_executed;
    uint64_t start, end, completed;
    uint32_t device, context, stream;
    int32_t grid[3], block[3];
    int32_t static_shared_memory, dynamic_shared_memory;
    uint32_t local_per_thread, local_total, correlation;
    int64_t grid_id;
    const char *name;
};
_Static_assert(offsetof(struct Kernel, start) == 16, "CUpti_ActivityKernel layout");
_Static_assert(offsetof(struct Kernel, grid) == 52, "CUpti_ActivityKernel layout");
_Static_assert(offsetof(struct Kernel, correlation) == 92, "CUpti_ActivityKernel layout");
_Static_assert(offsetof(struct Kernel, name) == 104, "CUpti_ActivityKernel layout");

enum { RECORD = 128, KIND_MEMCPY = 1, KIND_KERNEL = 3, KIND_CONCURRENT_KERNEL = 10 };

int cuptiActivityRegisterCallbacks(Requested r, Completed c) {
    requested = r;
    completed = c;
    return 0;
}

/* The concurrent kind, or (with --source) the serial one. */
int cuptiActivityEnable(uint32_t kind) {
    return kind == KIND_CONCURRENT_KERNEL || kind == KIND_KERNEL ? 0 : 1;
}

static void put(uint8_t *at, uint32_t kind, uint32_t correlation, uint64_t start,
                const char *name, int grid_x, int block_x, int shared) {
    struct Kernel k;
    memset(&k, 0, sizeof k);
    k.kind = kind;
    k.registers_per_thread = 32;
    k.start = start;
    k.end = start + 50;
    k.correlation = correlation;
    k.grid[0] = grid_x, k.grid[1] = 1, k.grid[2] = 1;
    k.block[0] = block_x, k.block[1] = 1, k.block[2] = 1;
    k.static_shared_memory = shared;
    k.dynamic_shared_memory = 512;
    k.name = name;
    memcpy(at, &k, sizeof k);
}

int cuptiActivityFlushAll(uint32_t flag) {
    (void)flag;
    uint8_t *buffer;
    size_t size, max_records;
    requested(&buffer, &size, &max_records);
    put(buffer + 0 * RECORD, KIND_CONCURRENT_KERNEL, 8, 300, "_Z4stepPfi", 8, 256, 0);
    put(buffer + 1 * RECORD, KIND_CONCURRENT_KERNEL, 8, 200, "_Z4axpyPKfPffi", 4096, 256, 0);
    put(buffer + 2 * RECORD, KIND_MEMCPY, 5, 150, "", 0, 0, 0);
    put(buffer + 3 * RECORD, KIND_CONCURRENT_KERNEL, 4, 100, "_Z5scaleILi4EEvPffi", 1024, 256,
        1024);
    put(buffer + 4 * RECORD, KIND_CONCURRENT_KERNEL, 9, 400, "jit_\"fused\", 2", 1, 32, 0);
    completed(NULL, 0, buffer, size, 5 * RECORD);
    return 0;
}

int cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, void **record) {
    uint8_t *next = *record ? (uint8_t *)*record + RECORD : buffer;
    if (next + RECORD > buffer + valid) return 3; /* CUPTI_ERROR_MAX_LIMIT_REACHED */
    *record = next;
    return 0;
}

int cuptiActivityGetNumDroppedRecords(void *context, uint32_t stream, size_t *dropped) {
    (void)context, (void)stream;
    *dropped = 0;
    return 0;
}

/* The callback API: driver-domain ids 1-3 and runtime-domain id 1, named as CUPTI names them. */
typedef void (*Callback)(void *userdata, uint32_t domain, uint32_t cbid, const void *data);
static Callback callback;
static int enabled[3][4];

struct CallbackData {
    uint32_t callback_site;
    const char *function_name;
    const void *function_params;
    void *function_return_value;
    const char *symbol_name;
    void *context;
    uint32_t context_uid;
    uint64_t *correlation_data;
    uint32_t correlation_id;
};
static int context; /* the one context's handle: its address */
static int resource_enabled;

/* fake_source.c's: what a launch does to the SASS counters and the stall samples. */
void fake_counted_launch(const char *symbol);
void fake_sampled_launch(const char *symbol);
/* fake_counters.c's: a launch made while the range profiler is started. */
void fake_ranged_launch(void);

int cuptiEnableDomain(uint32_t enable, void *subscriber, uint32_t domain) {
    (void)subscriber;
    if (domain == 3) resource_enabled = (int)enable;
    return 0;
}

/* Called by the stand-in driver before its launches, with --source's callbacks enabled:
 * the context is created, then its module loads. */
void fake_start_context(void) {
    static const char cubin[] = "a cubin";
    struct { uint32_t module_id; size_t cubin_size; const char *cubin; } module = {
        1, sizeof cubin, cubin};
    struct { void *context, *stream, *descriptor; } created = {&context, NULL, NULL},
                                                    loaded = {&context, NULL, &module};
    if (!resource_enabled || !callback) return;
    callback(NULL, 3, 1, &created); /* CUPTI_CBID_RESOURCE_CONTEXT_CREATED */
    callback(NULL, 3, 6, &loaded);  /* CUPTI_CBID_RESOURCE_MODULE_LOADED */
}

int cuptiSubscribe(void **subscriber, Callback c, void *userdata) {
    (void)userdata;
    *subscriber = &callback;
    callback = c;
    return 0;
}

int cuptiGetCallbackName(uint32_t domain, uint32_t cbid, const char **name) {
    static const char *driver[] = {0, "cuLaunchKernel", "cuMemAlloc_v2", "cuGraphLaunch"};
    static const char *runtime[] = {0, "cudaLaunchKernel_v7000", 0, 0};
    if (cbid < 1 || cbid > 3 || domain < 1 || domain > 2) return 1;
    *name = domain == 1 ? driver[cbid] : runtime[cbid];
    return *name ? 0 : 1;
}

int cuptiEnableCallback(uint32_t enable, void *subscriber, uint32_t domain, uint32_t cbid) {
    (void)subscriber;
    if (domain > 2 || cbid > 3) return 1;
    enabled[domain][cbid] = (int)enable;
    return 0;
}

/* Called by the stand-in driver: a cuLaunchKernel of `symbol`, entered then exited, and a
 * cuMemAlloc and a cuGraphLaunch, which the tracer must not have enabled; with `blocks`,
 * that grid (else as below). Returns how many calls reached the tracer. */
int fake_launch_grid(const char *symbol, unsigned blocks) {
    int calls = 0;
    /* scale's and axpy's first calls have the ids of their kernel records above. */
    static uint32_t other = 100;
    static int scales, axpys, others;
    int *nth = strcmp(symbol, "_Z5scaleILi4EEvPffi") == 0 ? &scales
               : strcmp(symbol, "_Z4axpyPKfPffi") == 0    ? &axpys
                                                          : &others;
    ++*nth;
    uint32_t correlation = *nth == 1 && nth == &scales  ? 4
                           : *nth == 1 && nth == &axpys ? 8
                                                        : ++other;
    /* cuLaunchKernel's parameters as cuda.h lays them out; with FAKE_SHRINKING_GRIDS the
     * grid of a kernel's call n is 4096 blocks over 4 to the power n - 1 (4096, 1024, 256,
     * ...), as LU's trailing update shrinks, else 64 blocks. */
    struct { void *function; unsigned grid[3], block[3], shared; void *stream, **args, **extra; }
        params = {NULL, {64, 1, 1}, {256, 1, 1}, 0, NULL, NULL, NULL};
    if (getenv("FAKE_SHRINKING_GRIDS")) params.grid[0] = 4096u >> (2 * (*nth - 1));
    if (blocks) params.grid[0] = blocks;
    struct CallbackData data = {0, "cuLaunchKernel", &params, NULL, symbol, &context, 1, NULL,
                                correlation};
    fake_sampled_launch(symbol);
    for (uint32_t cbid = 1; cbid <= 3; ++cbid) {
        if (!enabled[1][cbid] || !callback) continue;
        data.callback_site = 0;
        callback(NULL, 1, cbid, &data);
        fake_counted_launch(symbol);
        fake_ranged_launch();
        data.callback_site = 1;
        callback(NULL, 1, cbid, &data);
        ++calls;
    }
    return calls;
}

int fake_launch(const char *symbol) { return fake_launch_grid(symbol, 0); }
