#!/usr/bin/env bash
# Issue 16: ncu's application replay (the whole program runs once per pass, no per-kernel
# save and restore of memory) against kernel replay (the default), with gpulint's metric
# list, on the sample (3 per launch configuration) and on every launch. Prints wall time and
# the launches profiled; gpulint compares what each says.
#   usage: lab/scripts/corpus/replay_modes.sh OUT_DIR GPULINT "prog args|..."   (from the repo root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
list=$3
IFS='|' read -ra programs <<<"$list"
for p in "${programs[@]}"; do
  set -- $p; name=$1; shift
  build_sample "$name"
  tag="$name${1:+_$1}"
  for mode in sample all; do
    extra=(--ncu-arg=--replay-mode --ncu-arg=application)
    [ "$mode" = all ] && extra+=(--all-launches)
    t0=$(now)
    timeout 300 "$gl" run "${extra[@]}" --format json --exit-zero --ncu-arg=--clock-control --ncu-arg=none \
      -- "$build/$name" "$@" >"$out/${tag}_app_$mode.json" 2>"$out/${tag}_app_$mode.err"
    echo "$tag: application replay, $mode: $(since "$t0") s (exit $?)"
  done
done
