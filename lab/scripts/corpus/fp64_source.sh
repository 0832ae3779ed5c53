#!/usr/bin/env bash
# double-promotion's source lines (nineteenth session): the CUDA and SASS source pages of
# fp64_promotion.cu's and fp64_heldout.cu's kernels (ncu's SourceCounters section), and
# `gpulint run --source` on fp64_promotion.cu, which should name the line with the double
# literals and suggest them with the `f` suffix.
#   usage: OUT=DIR lab/scripts/corpus/fp64_source.sh   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
build_sample fp64_promotion
build_sample fp64_heldout
for p in fp64_promotion fp64_heldout; do
  timed "report_$p" ncu --clock-control none --section SourceCounters -f -o "$r/$p" \
    "$build/$p" 1
  timed "page_$p" bash -c "ncu --import '$r/$p.ncu-rep' --csv --page source \
    --print-source cuda,sass > '$r/source_$p.csv'"
  rm -f "$r/$p.ncu-rep"
done
run_gl source_fp64_promotion --source -- "$build/fp64_promotion" 1
