#!/usr/bin/env bash
# Issue 16 on a program that replays a CUDA graph (samples/corpus/graph_steps.cu): the
# default run (launch trace + sample) against every launch, seconds for each, the saved
# profiles, and the launch trace itself, whose kernels of one graph launch share a call.
#   usage: lab/scripts/corpus/graph_check.sh OUT_DIR GPULINT     (from the repo root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
export XDG_CACHE_HOME; XDG_CACHE_HOME=$(mktemp -d)
build_sample graph_steps
nc=(--ncu-arg=--clock-control --ncu-arg=none)
t0=$(now); "$build/graph_steps"; echo "bare: $(since "$t0") s"
for mode in default every; do
  extra=(); [ "$mode" = every ] && extra=(--all-launches)
  t0=$(now)
  "$gl" run "${extra[@]}" "${nc[@]}" --verbose --format json --exit-zero \
    --save-csv "$out/graph_$mode.csv" -- "$build/graph_steps" >"$out/graph_$mode.json" \
    2>"$out/graph_$mode.err"
  echo "$mode: $(since "$t0") s"
done
grep -a "sampling\|launch trace\|another number\|not counted" "$out/graph_default.err" | cut -c1-300
python3 "$here/compare_sampling.py" "$out/graph_default.json" "$out/graph_every.json"
so=$(ls "$XDG_CACHE_HOME"/gpulint/*.so)
cupti=$(grep -ao 'GPULINT_CUPTI=[^ ]*' "$out/graph_default.err" | head -1 | cut -d= -f2)
CUDA_INJECTION64_PATH=$so GPULINT_CUPTI=$cupti GPULINT_TRACE_OUT="$out/trace_graph_steps.csv" \
  "$build/graph_steps" >/dev/null
head -6 "$out/trace_graph_steps.csv"
echo "traced launches: $(($(wc -l <"$out/trace_graph_steps.csv") - 2))"
