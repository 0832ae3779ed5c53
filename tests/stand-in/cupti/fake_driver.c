/* A stand-in for the CUDA driver in tests/tracer.rs: loads the library named by
 * CUDA_INJECTION64_PATH and calls its InitializeInjection, as the driver does at cuInit,
 * then creates a context and loads a module (the stand-in CUPTI's resource callbacks) and
 * launches three kernels through the stand-in CUPTI's fake_launch (when GPULINT_CUPTI
 * names it), and exits, which runs the handlers the library registered. With FAKE_DRIVER_FORK set it
 * first forks a child that leaves through exit(), which runs those handlers in the child
 * too, as a program that forks after starting CUDA does. With FAKE_DRIVER_SLEEP it then
 * sleeps that many seconds and exits with status 7, as a long run would go on. With
 * FAKE_LIBCUDA it first loads that stand-in libcuda.so.1. With FAKE_DRIVER_REPEATS it
 * launches one kernel (axpy, or FAKE_DRIVER_KERNEL) that many times instead. With
 * FAKE_DRIVER_DELAY it sleeps that many seconds before its first launch, as a script
 * importing its libraries after CUDA started does. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    if (getenv("FAKE_LIBCUDA") && !dlopen(getenv("FAKE_LIBCUDA"), RTLD_NOW | RTLD_GLOBAL)) {
        fprintf(stderr, "%s\n", dlerror());
        return 2;
    }
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
    void *cupti = getenv("GPULINT_CUPTI") ? dlopen(getenv("GPULINT_CUPTI"), RTLD_NOW) : NULL;
    int (*launch)(const char *) = cupti ? (int (*)(const char *))dlsym(cupti, "fake_launch") : NULL;
    void (*start_context)(void) = cupti ? (void (*)(void))dlsym(cupti, "fake_start_context") : NULL;
    if (start_context) start_context();
    if (getenv("FAKE_DRIVER_DELAY")) sleep((unsigned)atoi(getenv("FAKE_DRIVER_DELAY")));
    if (launch && getenv("FAKE_DRIVER_REPEATS")) {
        /* axpy (or FAKE_DRIVER_KERNEL) that many times. */
        const char *kernel = getenv("FAKE_DRIVER_KERNEL") ? getenv("FAKE_DRIVER_KERNEL")
                                                          : "_Z4axpyPKfPffi";
        int calls = 0;
        for (int i = 0; i < atoi(getenv("FAKE_DRIVER_REPEATS")); ++i) {
            calls += launch(kernel);
        }
        printf("launch calls traced: %d\n", calls);
    } else if (launch) {
        const char *kernels[] = {"_Z5scaleILi4EEvPffi", "_Z4axpyPKfPffi", "_Z4stepPfi",
                                 "_Z4axpyPKfPffi"};
        int calls = 0;
        for (int i = 0; i < 4; ++i) calls += launch(kernels[i]);
        printf("launch calls traced: %d\n", calls);
    }
    if (getenv("FAKE_DRIVER_FORK")) {
        pid_t child = fork();
        if (child == 0) exit(0);
        int status = 0;
        waitpid(child, &status, 0);
        printf("child %d\n", (int)child);
    }
    if (getenv("FAKE_DRIVER_SLEEP")) {
        fflush(stdout);
        sleep((unsigned)atoi(getenv("FAKE_DRIVER_SLEEP")));
        return 7;
    }
    return 0;
}
