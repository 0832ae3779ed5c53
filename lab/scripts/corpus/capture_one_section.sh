#!/usr/bin/env bash
# Issue 17: details exports holding one section only, as people share them when they asked
# ncu for one (`--section NAME`): Memory Workload Analysis, and Occupancy.
#   usage: lab/scripts/corpus/capture_one_section.sh OUT_DIR     (from the repository root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
build_sample knn
for section in MemoryWorkloadAnalysis Occupancy; do
  ncu --clock-control none --section "$section" --csv --page details --launch-count 2 \
    --log-file "$out/details_${section}_knn.csv" "$build/knn" 4194304 2 >/dev/null 2>&1
done
ls -l "$out"
