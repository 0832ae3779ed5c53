#!/usr/bin/env bash
# partial-wave's held-out pairs for its second formula (nineteenth session):
# tail_heldout2.cu (expectations in its header, written before this ran) timed by its own
# medians, and every launch profiled by gpulint run with the export saved.
#   usage: OUT=DIR lab/scripts/corpus/tail_heldout2.sh   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
build_sample tail_heldout2
timed plain "$build/tail_heldout2" 5
timed plain_again "$build/tail_heldout2" 5
run_gl all_tail_heldout2 --all-launches --save-csv "$r/run_tail_heldout2.csv" -- \
  "$build/tail_heldout2" 1
