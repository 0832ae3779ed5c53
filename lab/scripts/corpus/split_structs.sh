#!/usr/bin/env bash
# split-load's first captures (written 2026-12-05, not yet run: no device was lent):
# split_structs.cu (expectations in its header, written before any capture) timed by its
# own medians, every launch profiled by gpulint run with the export saved, and the pass
# count of the metric list with and without the L1's load hits, which split-load added.
#   usage: OUT=DIR lab/scripts/corpus/split_structs.sh   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" "${GL:-.device-carry/gpulint}"
. lab/scripts/corpus/staged.sh
build_sample split_structs
timed plain "$build/split_structs" 5
timed plain_again "$build/split_structs" 5
run_gl all_split_structs --all-launches --save-csv "$r/run_split_structs.csv" -- \
  "$build/split_structs" 1
build_sample stencil2d
metrics=$("$gl" metrics)
without=$(echo "$metrics" | tr ',' '\n' | grep -v lookup_hit | paste -sd, -)
echo "replay passes with the L1 load hits: $(stencil_passes "$metrics")" | tee -a "$r/summary.txt"
echo "replay passes without them: $(stencil_passes "$without")" | tee -a "$r/summary.txt"
