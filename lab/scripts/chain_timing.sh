#!/usr/bin/env bash
# Issue #27's chains of small elementwise kernels on the GPU: samples/apps/torch_chain.py's step
# time as written, with each fix alone and with both (twice each, alternating), then
# `gpulint run` on it as written and fixed, keeping the launch trace, the profile and the
# report, and `gpulint diff` of the two.
#   usage: lab/scripts/chain_timing.sh OUT_DIR GPULINT   (from the repository root)
set -u
out=$(realpath -m "${1:?usage: chain_timing.sh OUT_DIR GPULINT}")
gl=$(realpath "${2:?usage: chain_timing.sh OUT_DIR GPULINT}")
mkdir -p "$out"
cd "$(dirname "$0")/../../samples/apps" || exit 2
for i in 1 2; do
  for flags in "" --compile --foreach --fixed; do
    python3 torch_chain.py 200 $flags 2>&1 | tail -1
  done
done | tee "$out/chain_steps.txt"
run() { # NAME PROGRAM...
  local name=$1; shift
  local t0=$SECONDS
  "$gl" run --exit-zero --save-trace "$out/$name.trace.csv" --save-csv "$out/$name.csv" \
    -o "$out/$name.txt" -- "$@" 2> "$out/$name.err"
  echo "$name: exit $?, $((SECONDS - t0)) s"
}
run chain python3 torch_chain.py 30
run chain_fixed python3 torch_chain.py 30 --fixed
"$gl" baseline "$out/chain.csv" -o "$out/chain.baseline.json" 2>/dev/null
"$gl" diff "$out/chain.baseline.json" "$out/chain_fixed.csv" > "$out/chain.diff.txt" 2>&1
echo "diff: exit $?"
