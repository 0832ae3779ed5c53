#!/usr/bin/env bash
# Issue 16's benchmark: `gpulint run` with no options (the sample: 3 launches per launch
# configuration) against `--all-launches`, on iterative programs. Prints the plain run time,
# both gpulint times, and compares what the two reports say (compare_sampling.py).
#   usage: lab/scripts/corpus/sampling_default.sh OUT_DIR GPULINT "prog args|..."   (from the repo root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
list=$3
IFS='|' read -ra programs <<<"$list"
for p in "${programs[@]}"; do
  set -- $p; name=$1; shift
  build_sample "$name"
  tag="$name${1:+_$1}"
  t0=$(now); "$build/$name" "$@" >/dev/null 2>&1; plain=$(since "$t0")
  t0=$(now)
  "$gl" run --format json --exit-zero --ncu-arg=--clock-control --ncu-arg=none -- "$build/$name" "$@" \
    >"$out/${tag}_sample.json" 2>"$out/${tag}_sample.err"
  sample=$(since "$t0")
  line="$tag: plain ${plain} s, gpulint (sample) ${sample} s"
  if [ "${SKIP_ALL:-}" != "$tag" ]; then
    t0=$(now)
    "$gl" run --all-launches --format json --exit-zero --ncu-arg=--clock-control --ncu-arg=none \
      -- "$build/$name" "$@" >"$out/${tag}_all.json" 2>"$out/${tag}_all.err"
    line="$line, --all-launches $(since "$t0") s"
  fi
  echo "$line"
  python3 "$here/compare_sampling.py" "$out/${tag}_sample.json" "$out/${tag}_all.json"
done
