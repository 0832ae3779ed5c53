#!/usr/bin/env bash
# Held-out pairs for double-promotion's stake (nineteenth session): fp64_heldout.cu
# (expectations in its header, written before this ran) timed by its own medians, the SASS
# of its FP64 and conversion instructions, and every launch profiled by gpulint run; then
# gpulint run on fp64_promotion.cu, the rule's own program, as a user runs it.
#   usage: OUT=DIR lab/scripts/corpus/fp64_heldout.sh   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
build_sample fp64_heldout
build_sample fp64_promotion
timed plain "$build/fp64_heldout" 5
timed plain_again "$build/fp64_heldout" 5
timed sass bash -c "cuobjdump -sass '$build/fp64_heldout' | grep -E 'Function|F2F|DFMA|DMUL|DADD|MUFU' | awk '/Function/ {print; next} {print \$2}' | uniq -c"
run_gl all_fp64_heldout --all-launches --save-csv "$r/run_fp64_heldout.csv" -- \
  "$build/fp64_heldout" 1
run_gl default_fp64_promotion -- "$build/fp64_promotion" 1
