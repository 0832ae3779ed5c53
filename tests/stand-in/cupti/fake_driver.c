/* A stand-in for the CUDA driver in tests/tracer.rs: loads the library named by
 * CUDA_INJECTION64_PATH and calls its InitializeInjection, as the driver does at cuInit,
 * then exits, which runs the handlers the library registered. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    void *library = dlopen(getenv("CUDA_INJECTION64_PATH"), RTLD_NOW);
    if (!library) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
    int (*initialize)(void) = (int (*)(void))dlsym(library, "InitializeInjection");
    if (!initialize || initialize() != 1) {
        fprintf(stderr, "InitializeInjection failed\n");
        return 3;
    }
    return 0;
}
