#!/usr/bin/env bash
# GL502 load-store-bound on a program it was not written against: four matrix multiplies
# (samples/corpus/matmul_variants.cu, expectations in its header), through `gpulint run`
# as a user runs it, with the CSV it profiled saved.
#   usage: lab/scripts/corpus/matmul_check.sh OUT_DIR GPULINT     (from the repo root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
build_sample matmul_variants
nvcc -O3 -arch=sm_90 -Xptxas -v -o /dev/null "$here/matmul_variants.cu" 2>&1 | grep -E "Function properties|registers" >"$out/ptxas.txt"
t0=$(now); "$build/matmul_variants"; echo "bare: $(since "$t0") s"
t0=$(now)
"$gl" run --ncu-arg=--clock-control --ncu-arg=none --verbose --exit-zero \
  --save-csv "$out/run_matmul_variants.csv" -- "$build/matmul_variants" >"$out/run.txt" 2>"$out/run.err"
echo "gpulint run: $(since "$t0") s"
"$gl" check "$out/run_matmul_variants.csv" --format json --exit-zero >"$out/check.json"
ls -l "$out"
