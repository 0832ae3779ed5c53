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
# gpulint run on a program, timed: name, then gpulint run's options, --, the program.
run_gl() { # name, then gpulint run's options, --, the program
  local name=$1; shift
  timed "$name" "$gl" run "${ncu_args[@]}" --exit-zero "$@"
}
# The ncu command line of the first line matching `$2` in a verbose gpulint run's log $1
# (what follows the line's first `/`: ncu's path, its arguments, the program), in the array
# `cmd`: its report goes to $3 (ncu's -o, overwritten with -f) and, when $4 is given, its
# log to $4.
logged_ncu() {
  local line
  line=$(grep -m1 "$2" "$1" | sed 's|^[^/]*||')
  eval "local words=($line)"
  cmd=()
  local i=0
  while [ $i -lt ${#words[@]} ]; do
    case "${words[$i]}" in
      -o) cmd+=(-f -o "$3"); i=$((i + 2)) ;;
      --log-file) cmd+=(--log-file "${4:-${words[$((i + 1))]}}"); i=$((i + 2)) ;;
      *) cmd+=("${words[$i]}"); i=$((i + 1)) ;;
    esac
  done
}
# `logged_ncu` for a command run again after gpulint's run: the run's own section folder
# went with it, so `--section-folder` names an empty one.
logged_ncu_again() {
  logged_ncu "$@"
  mkdir -p "$r/empty"
  local i
  for i in "${!cmd[@]}"; do
    if [ "${cmd[$i]}" = --section-folder ]; then cmd[i+1]="$r/empty"; fi
  done
}
# Runs "$@" (at most TIMED_LIMIT s, 240 unless set) with output to $r/$name.txt; appends "name seconds exit=rc".
timed() {
  local name=$1; shift
  local t0; t0=$(now)
  timeout "${TIMED_LIMIT:-240}" "$@" > "$r/$name.txt" 2>&1
  local rc=$?
  echo "$name $(since "$t0") exit=$rc" | tee -a "$table"
  tar czf "$OUT/results.tar.gz" -C "$r" .
}
