#!/usr/bin/env bash
# Held-out pairs for contended-atomics' stake (nineteenth session): atomics_heldout.cu
# (expectations in its header, written before this ran) timed by its own medians, the SASS
# of its atomics, and every launch profiled by gpulint run; then gpulint run on atomics.cu,
# the rule's own program, as a user runs it.
#   usage: OUT=DIR lab/scripts/corpus/atomics_heldout.sh   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
build_sample atomics_heldout
build_sample atomics
timed plain "$build/atomics_heldout" 5
timed plain_again "$build/atomics_heldout" 5
timed sass bash -c "cuobjdump -sass '$build/atomics_heldout' | grep -E 'Function|RED|ATOM'"
run_gl all_atomics_heldout --all-launches --save-csv "$r/run_atomics_heldout.csv" -- \
  "$build/atomics_heldout" 1
run_gl default_atomics -- "$build/atomics" 1
