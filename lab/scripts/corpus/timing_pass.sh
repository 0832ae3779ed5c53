#!/usr/bin/env bash
# Issue 16: `gpulint run --time-all-launches` (the sample, plus a duration-only pass over
# every launch) against the sample alone, and the captures its test replays: the sample as
# gpulint saves it and ncu's duration-only raw page of every launch.
#   usage: lab/scripts/corpus/timing_pass.sh OUT_DIR GPULINT     (from the repository root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
for p in "lud 1024" "train_loop 60"; do
  set -- $p; name=$1; shift
  build_sample "$name"
  t0=$(now)
  "$gl" run --time-all-launches --format json --exit-zero --save-csv "$out/sample_$name.csv" \
    --ncu-arg=--clock-control --ncu-arg=none -- "$build/$name" "$@" >"$out/${name}_timed.json" 2>"$out/${name}_timed.err"
  echo "$name $*: gpulint run --time-all-launches $(since "$t0") s"
  ncu --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum \
    --log-file "$out/timing_$name.csv" "$build/$name" "$@" >/dev/null 2>&1
done
ls -l "$out"
