#!/usr/bin/env bash
# An iterative solver (samples/corpus/cg_solver.cu, expectations in its header) through
# `gpulint run` as a user runs it, 20 iterations (202 launches), with the CSV it profiled.
#   usage: lab/scripts/corpus/cg_check.sh OUT_DIR GPULINT     (from the repo root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
build_sample cg_solver
t0=$(now); "$build/cg_solver" 1024 20; echo "bare: $(since "$t0") s"
t0=$(now)
"$gl" run --ncu-arg=--clock-control --ncu-arg=none --verbose --exit-zero \
  --save-csv "$out/run_cg_solver.csv" -- "$build/cg_solver" 1024 20 >"$out/run.txt" 2>"$out/run.err"
echo "gpulint run: $(since "$t0") s"
