#!/usr/bin/env bash
# Issue 16's benchmark for the spread sample (each kernel's launches 1, 2, 3, 4, 8, 16, ...):
# `gpulint run` with no options, with --time-all-launches, and with --all-launches, on the
# iterative programs; prints the plain run time and each gpulint time, and compares what the
# reports say (compare_sampling.py). Saves each sample's CSV (--save-csv) for the tests.
#   usage: lab/scripts/corpus/spread_default.sh OUT_DIR GPULINT "prog args|..."   (from the repo root)
#   SKIP_ALL="tag tag": programs whose every launch is not profiled (minutes).
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
IFS='|' read -ra programs <<<"$3"
for p in "${programs[@]}"; do
  # shellcheck disable=SC2086  # "prog args" splits into words
  set -- $p; name=$1; shift
  build_sample "$name"
  tag="$name${1:+_$1}"
  t0=$(now); "$build/$name" "$@" >/dev/null 2>&1; line="$tag: plain $(since "$t0") s"
  for mode in sample timed all; do
    case "$mode" in
      sample) extra=(--save-csv "$out/${tag}_spread.csv") ;;
      timed) extra=(--time-all-launches) ;;
      all) [[ " ${SKIP_ALL:-} " == *" $tag "* ]] && continue; extra=(--all-launches) ;;
    esac
    t0=$(now)
    "$gl" run "${extra[@]}" --format json --exit-zero --ncu-arg=--clock-control --ncu-arg=none \
      -- "$build/$name" "$@" >"$out/${tag}_$mode.json" 2>"$out/${tag}_$mode.err"
    line="$line, $mode $(since "$t0") s"
  done
  echo "$line"
  for mode in sample timed; do
    echo " $mode against every launch:"
    python3 "$here/compare_sampling.py" "$out/${tag}_$mode.json" "$out/${tag}_all.json"
  done
  grep -h "warning: " "$out/${tag}_sample.err" "$out/${tag}_timed.err" | sed 's/^/  /'
done
