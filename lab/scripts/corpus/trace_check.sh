#!/usr/bin/env bash
# Issue 16, after the tracer began to append one block per process: the headline command
# (`gpulint PROG ARGS`) on LU (the tracer built in a fresh cache folder first), what its report says counted
# the launches, and a program of two CUDA processes, whose trace gpulint must refuse.
#   usage: lab/scripts/corpus/trace_check.sh OUT_DIR GPULINT     (from the repo root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
export XDG_CACHE_HOME; XDG_CACHE_HOME=$(mktemp -d)
build_sample lud
nc=(--ncu-arg=--clock-control --ncu-arg=none)
# The headline form, from samples/ (its gpulint.toml passes --clock-control none).
t0=$(now)
(cd "$here/.." && "$gl" "$build/lud" 1024 >"$out/lud_headline.txt" 2>"$out/lud_headline.err")
echo "gpulint lud 1024, from samples/ (tracer built first): $(since "$t0") s"
grep -a "a sample\|warning\[" "$out/lud_headline.txt" | cut -c1-160
t0=$(now)
"$gl" run "${nc[@]}" --verbose --format json --exit-zero -- "$build/lud" 1024 >"$out/lud.json" 2>"$out/lud.err"
echo "gpulint run --verbose --format json lud 1024 (tracer built): $(since "$t0") s"
python3 -c "
import json; d = json.load(open('$out/lud.json')); s = d['sources'][0]
print({k: s[k] for k in ('launch_count', 'profiled_launches', 'sample', 'every_launch_counted_by')})"
grep -a "launch trace\|counting every" "$out/lud.err" | cut -c1-200
"$gl" run "${nc[@]}" --verbose --format json --exit-zero -- bash -c "$build/lud 256 && $build/lud 256" \
  >"$out/two.json" 2>"$out/two.err"
echo "two processes:"; grep -a "launch trace" "$out/two.err" | cut -c1-250
python3 -c "
import json; s = json.load(open('$out/two.json'))['sources'][0]
print({k: s[k] for k in ('launch_count', 'profiled_launches', 'sample', 'every_launch_counted_by')})"
so=$(ls "$XDG_CACHE_HOME"/gpulint/*.so)
cupti=$(grep -ao 'GPULINT_CUPTI=[^ ]*' "$out/lud.err" | head -1 | cut -d= -f2)
CUDA_INJECTION64_PATH=$so GPULINT_CUPTI=$cupti GPULINT_TRACE_OUT="$out/trace_two.csv" \
  bash -c "$build/lud 256 && $build/lud 256" >/dev/null
grep -a "^#" "$out/trace_two.csv"
