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
 * importing its libraries after CUDA started does. With FAKE_DRIVER_SCRIPT it replays a
 * program's launches from that file instead, one a line: microseconds to wait, the grid's
 * blocks, the kernel's name (lab/scripts/policy_replay.py writes it from a launch trace).
 * With FAKE_DRIVER_START_MS it first waits that many milliseconds before CUDA starts, as a
 * script importing its libraries does. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void pause_us(long long us) {
    if (us <= 0) return;
    struct timespec pause = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000L};
    nanosleep(&pause, NULL);
}

/* The launches of FAKE_DRIVER_SCRIPT, each after its wait; how many calls were traced. */
static int replay(const char *path, int (*launch)(const char *, unsigned)) {
    FILE *script = fopen(path, "r");
    if (!script) {
        perror(path);
        exit(2);
    }
    char line[8192];
    int calls = 0;
    while (fgets(line, sizeof line, script)) {
        long long wait = 0;
        unsigned blocks = 0;
        int name = 0;
        if (sscanf(line, "%lld %u %n", &wait, &blocks, &name) < 2 || !line[name]) continue;
        line[strcspn(line, "\n")] = 0;
        pause_us(wait);
        calls += launch(line + name, blocks);
    }
    fclose(script);
    return calls;
}

int main(void) {
    if (getenv("FAKE_DRIVER_START_MS")) pause_us(atoll(getenv("FAKE_DRIVER_START_MS")) * 1000);
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
    int (*launch_grid)(const char *, unsigned) =
        cupti ? (int (*)(const char *, unsigned))dlsym(cupti, "fake_launch_grid") : NULL;
    if (launch_grid && getenv("FAKE_DRIVER_SCRIPT")) {
        printf("launch calls traced: %d\n", replay(getenv("FAKE_DRIVER_SCRIPT"), launch_grid));
    } else if (launch && getenv("FAKE_DRIVER_REPEATS")) {
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
