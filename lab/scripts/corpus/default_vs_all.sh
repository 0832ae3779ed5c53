#!/usr/bin/env bash
# #58's done-when, the warnings half: `gpulint run` by default against `--all-launches` on
# the corpus programs named, each warning counted by rule and kernel, with each run's time.
# Call 5 of 2026-12-05 ran this loop inline on "lud 1024", "bfs" and "split_structs 1".
#   usage: OUT=DIR lab/scripts/corpus/default_vs_all.sh "PROGRAM ARGS"...   (from the root)
set -u
gl=${GL:-.device-carry/gpulint}
b=samples/build/corpus
mkdir -p "$b"
for p in "$@"; do
  read -r -a words <<<"$p"
  s=${words[0]}
  [ -x "$b/$s" ] || nvcc -O3 -arch=sm_90 -lineinfo -o "$b/$s" "samples/corpus/$s.cu"
  for mode in default all; do
    extra=()
    [ "$mode" = all ] && extra=(--all-launches)
    t0=$(date +%s.%N)
    "$gl" run --ncu-arg=--clock-control --ncu-arg=none --exit-zero --format concise \
      "${extra[@]}" -- "$b/$s" "${words[@]:1}" >"$OUT/${s}_$mode.txt" 2>"$OUT/${s}_$mode.err"
    t1=$(date +%s.%N)
    echo "$s $mode $(python3 -c "print(round($t1 - $t0, 2))") s, warnings:" \
      "$(grep -c 'warning\[' "$OUT/${s}_$mode.txt")"
    grep -o 'warning\[GL[0-9]*\][^:]*' "$OUT/${s}_$mode.txt" | sort | uniq -c | tr '\n' ';'
    echo
  done
done
