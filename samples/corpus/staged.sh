# shellcheck shell=bash
# Sourced, after common.sh, by the device scripts that run in stages (lines_and_pairs.sh,
# serial_loads.sh): ncu's options for gpulint run, the results folder $OUT/r with its
# table of times, and `timed`, which packs $OUT/r into $OUT/results.tar.gz after each step
# (a device call returns at most 8 files).
# shellcheck disable=SC2034  # used by the scripts that source this
ncu_args=(--ncu-arg=--clock-control --ncu-arg=none)
r="$OUT/r"
mkdir -p "$r"
table="$r/times.txt"
# Runs "$@" (at most 240 s) with output to $r/$name.txt; appends "name seconds exit=rc".
timed() {
  local name=$1; shift
  local t0; t0=$(now)
  timeout 240 "$@" > "$r/$name.txt" 2>&1
  local rc=$?
  echo "$name $(since "$t0") exit=$rc" | tee -a "$table"
  tar czf "$OUT/results.tar.gz" -C "$r" .
}
