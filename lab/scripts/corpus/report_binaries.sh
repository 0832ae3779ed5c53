#!/usr/bin/env bash
# Issue #37, eighteenth session: the transformer's report holds 29.6 MB of module binaries
# (cubins of PyTorch's libraries, 0.4-14 MB each) for 8 profiled launches, where a C++
# sample's holds 0.1 MB. Stage `help`: ncu's options that say what goes into a report.
# Stage `binaries OPTION...`: the transformer (2 steps) under gpulint's profiled-run
# command as is and with OPTION..., alternating, three times, with the report's size.
# Stage `imports OPTION...`: both reports written again, then each imported as gpulint
# imports it, alternating, three times (expected: the smaller report 0.1-0.3 s sooner, the same columns and rows).
# Stage `guess`: `help`, then `binaries` with the first of a few guesses at such an option
# that ncu accepts (the report's ProfilerSettings has an ImportSass field).
# Expected before the call: if ncu can leave the binaries out, 0.1-0.3 s less a launch.
#   usage: OUT=DIR lab/scripts/corpus/report_binaries.sh help | binaries OPTION... | imports OPTION... | guess
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
stage=$1; shift
prog=(python3 samples/apps/torch_transformer.py 2)
# gpulint's profiled-run command on the transformer (from its default run, made once),
# writing $r/rep_$1.ncu-rep, with the options after $1 first: in the array `cmd`.
profiled_command() {
  local v=$1; shift
  [ -f "$r/default_transformer.txt" ] || run_gl default_transformer --verbose -- "${prog[@]}"
  logged_ncu_again "$r/default_transformer.txt" 'gpulint: /.*ncu .*--metrics' "$r/rep_$v"
  cmd=("${cmd[0]}" "$@" "${cmd[@]:1}")
}
case $stage in
help)
  ncu --help > "$r/help.txt" 2>&1
  grep -n -i -B1 -A4 'import\|sass\|binar\|cubin\|source' "$r/help.txt" | tee -a "$table"
  ;;
binaries)
  for round in 1 2 3; do
    for v in as_is option; do
      if [ $v = option ]; then profiled_command $v "$@"; else profiled_command $v; fi
      timed "${v}_$round" "${cmd[@]}"
      stat -c "%s bytes %n" "$r/rep_$v.ncu-rep" | tee -a "$table"
    done
  done
  rm -f "$r"/rep_*.ncu-rep
  ;;
imports)
  for v in as_is option; do
    if [ $v = option ]; then profiled_command $v "$@"; else profiled_command $v; fi
    timed "written_$v" "${cmd[@]}"
  done
  for round in 1 2 3; do
    for v in as_is option; do
      timed "import_${v}_$round" ncu --import "$r/rep_$v.ncu-rep" --csv --page raw --print-units base
    done
  done
  # Two runs' values differ; their columns and rows should not.
  for v in as_is option; do
    echo "$v: $(grep -c '^"[0-9]' "$r/import_${v}_1.txt") rows, columns $(grep -m1 '^"ID"' "$r/import_${v}_1.txt" | md5sum | cut -c1-8)" | tee -a "$table"
  done
  rm -f "$r"/rep_*.ncu-rep
  ;;
guess)
  "$0" help
  for opt in "--import-sass no" "--import-sass=no"; do
    # shellcheck disable=SC2086  # the option splits into words
    if ncu $opt --metrics gpu__time_duration.sum -k 'regex:^no_such$' /bin/true \
      > "$r/guess.txt" 2>&1 && ! grep -qi 'unrecogni\|invalid\|unknown' "$r/guess.txt"; then
      echo "ncu accepts: $opt" | tee -a "$table"
      # shellcheck disable=SC2086
      "$0" binaries $opt
      break
    fi
    echo "ncu refuses: $opt: $(head -c 200 "$r/guess.txt")" | tee -a "$table"
  done
  ;;
esac
