#!/usr/bin/env bash
# The tail effect (nineteenth session): tail_wave.cu (expectations in its header) timed by
# its own medians, and every launch profiled by gpulint run with the export saved.
#   usage: OUT=DIR lab/scripts/corpus/tail_wave.sh   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
build_sample tail_wave
timed plain "$build/tail_wave" 5
timed plain_again "$build/tail_wave" 5
run_gl all_tail_wave --all-launches --save-csv "$r/run_tail_wave.csv" -- "$build/tail_wave" 1
