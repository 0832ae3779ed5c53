#!/usr/bin/env bash
# Issue 16: can a CUPTI launch tracer (src/profile/ncu/tracer/launch_tracer.cpp, loaded through
# CUDA_INJECTION64_PATH) replace ncu's timing pass? Builds the tracer, points it at the CUDA
# toolkit's CUPTI, checks its record layout against the header's, then for each program
# times the bare run, the traced run and ncu's duration-only pass side by side (3 rounds),
# and keeps the trace and ncu's timing CSV to compare launch by launch.
# lab/runs/2026-12-01-launch-trace.txt was made by its first version, which built the
# tracer against cupti.h and linked libcupti.
#   usage: lab/scripts/corpus/launch_trace.sh OUT_DIR GPULINT "prog args|..."   (from the repo root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
cuda=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
echo "cuda: $cuda"; nvcc --version | tail -1
inc=$(dirname "$(find "$cuda" /usr/local/cuda* -name cupti.h 2>/dev/null | head -1)")
lib=$(dirname "$(find "$cuda" /usr/local/cuda* -name 'libcupti.so*' 2>/dev/null | head -1)")
echo "cupti include: $inc, lib: $lib"
grep -h "define CUPTI_API_VERSION" "$inc"/cupti*.h
record=$(grep -ho '} CUpti_ActivityKernel[0-9]*;' "$inc"/cupti_activity*.h | tr -dc '0-9\n' | sort -n | tail -1)
echo "newest kernel record: CUpti_ActivityKernel$record"
cat >"$build/offsets.cpp" <<CPP
#include <cupti.h>
#include <cstddef>
#include <cstdio>
#define AT(f) printf("%s %zu\n", #f, offsetof(CUpti_ActivityKernel$record, f));
int main() { AT(registersPerThread) AT(start) AT(end) AT(deviceId) AT(streamId) AT(gridX)
  AT(blockZ) AT(staticSharedMemory) AT(dynamicSharedMemory) AT(correlationId) AT(name) }
CPP
g++ -I"$inc" -o "$build/offsets" "$build/offsets.cpp" && "$build/offsets"
so="$out/libgpulint_tracer.so"
# The tracer needs no CUDA header (since 2026-12-01); it loads CUPTI from GPULINT_CUPTI.
g++ -shared -fPIC -O2 -std=c++17 src/profile/ncu/tracer/launch_tracer.cpp -ldl -o "$so" && echo "tracer built"
export GPULINT_CUPTI="$lib/libcupti.so"
ncu=$(command -v ncu)
IFS='|' read -ra programs <<<"$3"
for p in "${programs[@]}"; do
  # shellcheck disable=SC2086  # "prog args" splits into words
  set -- $p; name=$1; shift
  if [ "$name" = torch_train ]; then cmd=(python3 samples/apps/torch_train.py)
  else build_sample "$name"; cmd=("$build/$name" "$@"); fi
  tag="$name${1:+_$1}"
  for round in 1 2 3; do
    t0=$(now); "${cmd[@]}" >/dev/null 2>&1; bare=$(since "$t0")
    t0=$(now)
    CUDA_INJECTION64_PATH="$so" GPULINT_TRACE_OUT="$out/trace_$tag.csv" "${cmd[@]}" >/dev/null 2>"$out/trace_$tag.err"
    traced=$(since "$t0")
    t0=$(now)
    "$ncu" --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
      --page raw --log-file "$out/timing_$tag.csv" "${cmd[@]}" >/dev/null 2>&1
    echo "$tag round $round: bare $bare s, traced $traced s, ncu timing pass $(since "$t0") s," \
      "launches traced $(($(wc -l <"$out/trace_$tag.csv") - 2))"
  done
done
