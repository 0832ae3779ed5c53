#!/usr/bin/env bash
# contended-atomics' source lines (nineteenth session): the CUDA and SASS source pages of
# atomics.cu's kernels (ncu's SourceCounters section), and `gpulint run --source` on it,
# which should name the line of each hot atomicAdd.
#   usage: OUT=DIR lab/scripts/corpus/atomics_source.sh   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
build_sample atomics
timed report ncu --clock-control none --section SourceCounters -f -o "$r/atomics" \
  "$build/atomics" 1
timed page bash -c "ncu --import '$r/atomics.ncu-rep' --csv --page source \
  --print-source cuda,sass > '$r/source_atomics.csv'"
rm -f "$r/atomics.ncu-rep"
run_gl source_atomics --source -- "$build/atomics" 1
