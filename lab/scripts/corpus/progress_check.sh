#!/usr/bin/env bash
# Issue 16: gpulint run now profiles into a report (-o) and imports its raw page, so that
# ncu logs each launch for the progress line. Times the default run and the timed run on
# programs measured before with --csv (lab/runs/2026-11-30-spread-default.txt), and
# captures the progress line under `script` (a pseudo-terminal), as a user's terminal sees it.
#   usage: lab/scripts/corpus/progress_check.sh OUT_DIR GPULINT "prog args|..."   (from the repo root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
IFS='|' read -ra programs <<<"$3"
for p in "${programs[@]}"; do
  # shellcheck disable=SC2086  # "prog args" splits into words
  set -- $p; name=$1; shift
  build_sample "$name"
  tag="$name${1:+_$1}"
  line="$tag:"
  for mode in sample timed; do
    extra=(); [ "$mode" = timed ] && extra=(--time-all-launches)
    t0=$(now)
    "$gl" run "${extra[@]}" --format json --exit-zero --ncu-arg=--clock-control --ncu-arg=none \
      -- "$build/$name" "$@" >"$out/${tag}_$mode.json" 2>"$out/${tag}_$mode.err"
    line="$line $mode $(since "$t0") s,"
  done
  echo "$line"
  python3 "$here/compare_sampling.py" "$out/${tag}_sample.json" "$out/${tag}_timed.json"
done
# The progress line on a terminal: each rewrite of the line, as script recorded it.
script -q -c "$gl run --time-all-launches --format concise --exit-zero --ncu-arg=--clock-control \
  --ncu-arg=none -- $build/lud 1024" /dev/null </dev/null | tr '\r' '\n' | grep -a 'gpulint: ' \
  | sed 's/\x1b\[2K//g' | uniq | head -40
