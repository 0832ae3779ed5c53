/* A stand-in for the CUDA driver's library in tests/tracer.rs, built as libcuda.so.1 (its
 * soname): the three context calls the launch tracer finds in it (dlopen with
 * RTLD_NOLOAD) to close a SASS counting range. The stand-in driver loads it first. */
int cuCtxPushCurrent_v2(void *context) { (void)context; return 0; }
int cuCtxPopCurrent_v2(void **context) { *context = 0; return 0; }
int cuCtxSynchronize(void) { return 0; }
