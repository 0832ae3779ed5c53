#!/usr/bin/env bash
# Issue #37, fourteenth session: where the transformer's profiled run spends the 6-7 s it
# takes over the program's own run (samples/apps/torch_transformer.py, 20 steps, 12
# launches sampled). Stage `parts`: the program plain; gpulint's default run (--verbose:
# its ncu command line); that command again as is, with the duration alone (one pass a
# launch), with `--cache-control none`, and matching no kernel (ncu's floor with PyTorch).
# Expected before the call: the floor is the program plus about 3 s (ncu's injection and
# CUDA's start under it); the duration alone adds little over it; gpulint's ~10 passes a
# launch add about 0.3 s a launch (3-4 s for 12); the caches' flushes a few tenths.
# Stage `printed` (fifteenth session): the same ncu command printing its raw page (`--csv
# --page raw`, no report) against writing a report and importing it, alternating, with
# the log's lines counted every quarter second (does ncu print each launch's row as it
# profiles it, which a progress line could count?); then gpulint's default run against
# `--max-launches 6` and `8`, as JSON, for their warnings. Expected before the call: a
# report costs its import (~0.8 s) and, if ncu keeps each kernel's cubin in it, a part of
# the ~0.3 s of a PyTorch launch; the printed raw page comes only at the end; 6 and 8
# launches give the fp32 GEMMs' warning that 12 give.
#   usage: OUT=DIR lab/scripts/corpus/torch_floor.sh parts   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
prog=(python3 samples/apps/torch_transformer.py)
# `cmd` with the value after option $1 replaced by $2.
replaced() {
  out_cmd=()
  local i=0
  while [ $i -lt ${#cmd[@]} ]; do
    if [ "${cmd[$i]}" = "$1" ]; then
      out_cmd+=("$1" "$2"); i=$((i + 2))
    else
      out_cmd+=("${cmd[$i]}"); i=$((i + 1))
    fi
  done
}
parts() {
  timed plain "${prog[@]}"
  timed default "$gl" run "${ncu_args[@]}" --verbose --exit-zero -- "${prog[@]}"
  logged_ncu "$r/default.txt" "^gpulint: /.*/ncu " "$r/rep" "$r/log_as_is.txt"
  echo "${cmd[*]}" > "$r/command.txt"
  for round in 1 2; do
    timed "as_is_$round" "${cmd[@]}"
    cp "$r/log_as_is.txt" "$r/log_as_is_$round.txt"
    replaced --metrics gpu__time_duration.sum
    timed "duration_$round" "${out_cmd[@]}"
    replaced --kernel-id '::regex:^no_such_kernel_here$:1'
    timed "floor_$round" "${out_cmd[@]}"
    timed "nocache_$round" "${cmd[0]}" --cache-control none "${cmd[@]:1}"
    timed "plain_$round" "${prog[@]}"
  done
  rm -f "$r"/rep.ncu-rep
}
# `cmd` printing the raw page to $1 instead of writing a report, in the array `out_cmd`.
printed_raw() {
  out_cmd=("${cmd[0]}" --csv --page raw --print-units base)
  local i=1
  while [ $i -lt ${#cmd[@]} ]; do
    case "${cmd[$i]}" in
      -f) i=$((i + 1)) ;;
      -o) i=$((i + 2)) ;;
      --log-file) out_cmd+=(--log-file "$1"); i=$((i + 2)) ;;
      *) out_cmd+=("${cmd[$i]}"); i=$((i + 1)) ;;
    esac
  done
}
# Counts the lines of file $1 every quarter second into $2 until $3 exists.
count_lines() {
  local t0; t0=$(now)
  while [ ! -e "$3" ]; do
    echo "$(since "$t0") $(wc -l < "$1" 2>/dev/null || echo 0)" >> "$2"
    sleep 0.25
  done
}
printed() {
  timed plain_0 "${prog[@]}"
  timed default_0 "$gl" run "${ncu_args[@]}" --verbose --exit-zero -- "${prog[@]}"
  logged_ncu "$r/default_0.txt" "^gpulint: /.*/ncu " "$r/rep" "$r/log_report.txt"
  echo "${cmd[*]}" > "$r/command.txt"
  for round in 1 2; do
    timed "report_$round" "${cmd[@]}"
    timed "import_$round" "${cmd[0]}" --import "$r/rep.ncu-rep" --csv --page raw \
      --print-units base --log-file "$r/imported_$round.csv"
    printed_raw "$r/raw_$round.csv"
    rm -f "$r/done_$round"
    count_lines "$r/raw_$round.csv" "$r/raw_lines_$round.txt" "$r/done_$round" &
    timed "raw_$round" "${out_cmd[@]}"
    touch "$r/done_$round"; wait
    timed "plain_$round" "${prog[@]}"
  done
  echo "${out_cmd[*]}" >> "$r/command.txt"
  rm -f "$r"/rep.ncu-rep
  for n in default 6 8; do
    local opt=(); [ "$n" = default ] || opt=(--max-launches "$n")
    timed "json_$n" "$gl" run "${ncu_args[@]}" "${opt[@]}" --verbose --exit-zero \
      --format json -o "$r/report_$n.json" -- "${prog[@]}"
  done
}
for stage in "$@"; do "$stage"; done
