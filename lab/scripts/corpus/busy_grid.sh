#!/usr/bin/env bash
# Issue #40's held-out method for small-grid's cap (eighteenth session): busy_grid.cu's two
# pairs, every launch profiled by gpulint run (expectations in the source's header).
#   usage: OUT=DIR lab/scripts/corpus/busy_grid.sh   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
build_sample busy_grid
timed plain "$build/busy_grid"
run_gl all_busy_grid --all-launches --save-csv "$OUT/run_busy_grid.csv" -- "$build/busy_grid"
run_gl all_busy_grid_json --all-launches --format json -- "$build/busy_grid"
