#!/usr/bin/env bash
# Issue #42: can ncu be told to leave some kernels out (NCCL's, whose collectives hang under
# replay) by a negative lookahead in its name filters? On matmul_variants (8 kernels), the
# first launch of each kernel but matmul_naive, asked three ways: `-k regex:^(?!...)`,
# `--kernel-id ::regex:^(?!...):1`, and the same on mangled names. Expected before the
# call: ncu's regular expressions take the lookahead (ECMAScript), and matmul_naive is
# absent from each list while the other kernels are there.
#   usage: OUT=DIR lab/scripts/corpus/kernel_filter.sh   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
build_sample matmul_variants
prog=("$build/matmul_variants" 2048)
base=(ncu --clock-control none --metrics gpu__time_duration.sum --csv --page raw)
probe() { # name, then ncu's filter options
  local name=$1; shift
  "${base[@]}" "$@" --log-file "$OUT/$name.csv" "${prog[@]}" > "$OUT/$name.txt" 2>&1
  echo "== $name (exit $?): $*"
  grep -o '"[a-z_0-9]*(' "$OUT/$name.csv" | sort | uniq -c
  grep -h "ERROR\|WARNING" "$OUT/$name.csv" "$OUT/$name.txt" | head -3
}
probe name -k 'regex:^(?!matmul_naive)' --launch-count 7
probe kernel_id --kernel-id '::regex:^(?!matmul_naive):1'
probe mangled --kernel-name-base mangled --kernel-id '::regex:^(?!_Z12matmul_naive):1'
