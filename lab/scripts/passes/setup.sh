#!/bin/bash
# Builds cupti_passes: CUPTI's host-side count of the replay passes a metric list takes on a
# chip (cuptiProfilerHostGetNumOfPasses), with no GPU. CUPTI 13.0.85 from PyPI, the release
# beside ncu 2025.3.1. Usage afterwards:
#   LD_LIBRARY_PATH=$DIR/nvidia/cu13/lib $DIR/cupti_passes GH100 < metrics.txt
# prints the list's passes, then each metric's alone and the list's without it
# (ALL_ONLY=1: the first line only).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${CUPTI_PASSES_DIR:-/tmp/cupti-passes}
mkdir -p "$DIR" && cd "$DIR"
[ -f nvidia/cu13/include/cupti_profiler_host.h ] || {
  pip download --no-deps "nvidia-cuda-cupti==13.0.85" -d . >/dev/null
  unzip -q -o nvidia_cuda_cupti-13.0.85-*.whl
}
g++ -O1 -I nvidia/cu13/include "$HERE/cupti_passes.cpp" -L nvidia/cu13/lib -l:libcupti.so.13 -o cupti_passes
echo "$DIR/cupti_passes"
