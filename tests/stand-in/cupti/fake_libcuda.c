/* A stand-in for the CUDA driver's library in tests/tracer.rs, built as libcuda.so.1 (its
 * soname): the entry points the launch tracer finds in it (dlopen with RTLD_NOLOAD): the
 * three context calls that close a SASS counting range, and the device's attributes the
 * counters' rows carry: an H100's, with 64 threads a warp (no GPU has it) so that the warps
 * an SM holds show they are its threads over the warp size. The stand-in driver loads it
 * first. */
#include <string.h>

int cuCtxPushCurrent_v2(void *context) { (void)context; return 0; }
int cuCtxPopCurrent_v2(void **context) { *context = 0; return 0; }
int cuCtxSynchronize(void) { return 0; }

int cuDeviceGet(int *device, int ordinal) {
    *device = ordinal;
    return ordinal == 0 ? 0 : 101; /* CUDA_ERROR_INVALID_DEVICE */
}
int cuDeviceGetAttribute(int *value, int attribute, int device) {
    (void)device;
    switch (attribute) {
    case 10: *value = 64; return 0;            /* warp size */
    case 12: *value = 65536; return 0;         /* registers per block */
    case 16: *value = 132; return 0;           /* SMs */
    case 38: *value = 52428800; return 0;      /* L2 bytes */
    case 39: *value = 2048; return 0;          /* threads per SM */
    case 75: *value = 9; return 0;             /* compute capability */
    case 76: *value = 0; return 0;
    case 81: *value = 233472; return 0;        /* shared memory per SM */
    case 82: *value = 65536; return 0;         /* registers per SM */
    case 106: *value = 32; return 0;           /* blocks per SM */
    case 111: *value = 1024; return 0;         /* reserved shared memory per block */
    default: return 1;                         /* CUDA_ERROR_INVALID_VALUE */
    }
}
int cuDeviceGetName(char *name, int length, int device) {
    (void)device;
    strncpy(name, "NVIDIA H100 80GB HBM3", (size_t)length);
    return 0;
}
