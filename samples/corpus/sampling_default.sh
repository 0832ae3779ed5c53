#!/usr/bin/env bash
# Issue 16's benchmark: `gpulint run` with no options (the sample: 3 launches per launch
# configuration) against `--all-launches`, on iterative programs. Prints the plain run time,
# both gpulint times, and compares what the two reports say (compare_sampling.py).
#   usage: samples/corpus/sampling_default.sh OUT_DIR GPULINT "prog args|..."   (from the repo root)
set -u
out=$(realpath -m "$1"); gl=$(realpath "$2"); list=$3
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build/corpus"
mkdir -p "$out" "$build"
now() { python3 -c 'import time; print(time.time())'; }
since() { python3 -c "print(f'{$(now) - $1:.2f}')"; }
IFS='|' read -ra programs <<<"$list"
for p in "${programs[@]}"; do
  set -- $p; name=$1; shift
  [ -x "$build/$name" ] || nvcc -O3 -arch=sm_90 -lineinfo -o "$build/$name" "$here/$name.cu"
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
