#!/usr/bin/env bash
# Issue 17: details exports holding one section only, as people share them when they asked
# ncu for one (`--section NAME`): Memory Workload Analysis, and Occupancy.
#   usage: samples/corpus/capture_one_section.sh OUT_DIR     (from the repository root)
set -u
out=$(realpath -m "$1")
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build/corpus"
mkdir -p "$out" "$build"
[ -x "$build/knn" ] || nvcc -O3 -arch=sm_90 -lineinfo -o "$build/knn" "$here/knn.cu"
for section in MemoryWorkloadAnalysis Occupancy; do
  ncu --clock-control none --section "$section" --csv --page details --launch-count 2 \
    --log-file "$out/details_${section}_knn.csv" "$build/knn" 4194304 2 >/dev/null 2>&1
done
ls -l "$out"
