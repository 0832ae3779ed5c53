// Plays launches to range_probe.so through the fake CUPTI's callback: three steps of three
// kernels, each launch a runtime call, with a driver call nested in it when asked.
#include <cupti.h>
#include <cstdio>
#include <dlfcn.h>
extern "C" CUpti_CallbackFunc g_cb;
extern "C" int starts, stops, pushes, pops;
static void launch(const char* name, bool nested) {
  CUpti_CallbackData d{}; d.symbolName = name; d.context = (CUcontext)0x1;
  d.callbackSite = CUPTI_API_ENTER; g_cb(nullptr, CUPTI_CB_DOMAIN_RUNTIME_API, 211, &d);
  if (nested) { d.callbackSite = CUPTI_API_ENTER; g_cb(nullptr, CUPTI_CB_DOMAIN_DRIVER_API, 307, &d);
                d.callbackSite = CUPTI_API_EXIT; g_cb(nullptr, CUPTI_CB_DOMAIN_DRIVER_API, 307, &d); }
  d.callbackSite = CUPTI_API_EXIT; g_cb(nullptr, CUPTI_CB_DOMAIN_RUNTIME_API, 211, &d);
}
int main(int argc, char** argv) {
  void* probe = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (!probe) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  auto init = (int (*)())dlsym(probe, "InitializeInjection");
  init();
  bool nested = argc > 2;
  for (int step = 0; step < 3; step++) { launch("_Z1av", nested); launch("_Z1bv", nested); launch("_Z1cv", nested); }
  fprintf(stderr, "fake: starts %d stops %d pushes %d pops %d\n", starts, stops, pushes, pops);
  return 0;
}
