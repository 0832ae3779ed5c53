// Count CUPTI range-profiler passes for a metric set on a chip, host only (no GPU).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cupti_profiler_host.h>
#include <cupti_result.h>

static const char *err(CUptiResult r) { const char *s = 0; cuptiGetResultString(r, &s); return s ? s : "?"; }

static int passes(const char *chip, const char **names, size_t n, int verbose) {
  CUpti_Profiler_Host_Initialize_Params init = {CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  init.pChipName = chip;
  CUptiResult r = cuptiProfilerHostInitialize(&init);
  if (r) { fprintf(stderr, "init: %s\n", err(r)); exit(1); }
  CUpti_Profiler_Host_ConfigAddMetrics_Params add = {CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = init.pHostObject;
  add.ppMetricNames = names;
  add.numMetrics = n;
  r = cuptiProfilerHostConfigAddMetrics(&add);
  int result = -1;
  do {
  if (r) { if (verbose) fprintf(stderr, "add %s..: %s\n", names[0], err(r)); break; }
  CUpti_Profiler_Host_GetConfigImageSize_Params size = {CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  size.pHostObject = init.pHostObject;
  r = cuptiProfilerHostGetConfigImageSize(&size);
  if (r) { fprintf(stderr, "size: %s\n", err(r)); break; }
  uint8_t *image = (uint8_t *)malloc(size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params get = {CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  get.pHostObject = init.pHostObject;
  get.configImageSize = size.configImageSize;
  get.pConfigImage = image;
  r = cuptiProfilerHostGetConfigImage(&get);
  if (r) { fprintf(stderr, "image: %s\n", err(r)); break; }
  CUpti_Profiler_Host_GetNumOfPasses_Params np = {CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  np.configImageSize = size.configImageSize;
  np.pConfigImage = image;
  r = cuptiProfilerHostGetNumOfPasses(&np);
  if (r) { fprintf(stderr, "passes: %s\n", err(r)); break; }
  result = (int)np.numOfPasses;
  free(image);
  } while (0);
  CUpti_Profiler_Host_Deinitialize_Params de = {CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
  de.pHostObject = init.pHostObject;
  cuptiProfilerHostDeinitialize(&de);
  return result;
}

int main(int argc, char **argv) {
  // argv[1] chip, stdin: metric names, one per line
  const char *chip = argv[1];
  char *names[512]; size_t n = 0; char line[512];
  while (fgets(line, sizeof line, stdin)) { line[strcspn(line, "\n")] = 0; if (*line) names[n++] = strdup(line); }
  printf("all %zu: %d passes\n", n, passes(chip, (const char **)names, n, 1));
  if (getenv("ALL_ONLY")) return 0;
  for (size_t i = 0; i < n; i++) {
    const char *one[1] = {names[i]};
    const char *rest[512]; size_t m = 0;
    for (size_t j = 0; j < n; j++) if (j != i) rest[m++] = names[j];
    printf("%s: alone %d, all but it %d\n", names[i], passes(chip, one, 1, 1), passes(chip, rest, m, 0));
  }
}
