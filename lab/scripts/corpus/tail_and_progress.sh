#!/usr/bin/env bash
# 1. Every launch of template_phases as gpulint profiles it (--save-csv), for the test of
#    rule floors that weigh a finding's own launches (block_sum's two 1-block tail launches).
# 2. Issue 16's progress line: with a report file (-o) instead of --csv, does ncu write its
#    per-launch "==PROF== Profiling" lines to --log-file, and what does the import cost?
#    Both ways on LU's spread sample with gpulint's metric list.
#   usage: lab/scripts/corpus/tail_and_progress.sh OUT_DIR GPULINT     (from the repository root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
build_sample template_phases
build_sample lud
"$gl" run --all-launches --format concise --exit-zero --save-csv "$out/template_phases_all.csv" \
  --ncu-arg=--clock-control --ncu-arg=none -- "$build/template_phases" >"$out/template_phases_all.txt" 2>&1
echo "template_phases, every launch: $(grep -c . "$out/template_phases_all.txt") report lines"
metrics=$("$gl" metrics)
spread=(--kernel-name-base demangled --kernel-id ':::1|2|3|4|8|16|32|64|128')
t0=$(now)
ncu --clock-control none --csv --page raw --print-units base --metrics "$metrics" "${spread[@]}" \
  --log-file "$out/lud_csv.csv" "$build/lud" 1024 >/dev/null 2>&1
echo "lud 1024, spread, --csv: $(since "$t0") s, $(grep -c '==PROF== Profiling' "$out/lud_csv.csv") ==PROF== Profiling lines"
t0=$(now)
ncu --clock-control none --metrics "$metrics" "${spread[@]}" -o "$out/lud" \
  --log-file "$out/lud_report.log" "$build/lud" 1024 >/dev/null 2>&1
t1=$(now)
ncu --import "$out/lud.ncu-rep" --csv --page raw --print-units base >"$out/lud_import.csv"
echo "lud 1024, spread, -o: $(python3 -c "print(f'{$t1 - $t0:.2f}')") s, import $(since "$t1") s, $(grep -c '==PROF== Profiling' "$out/lud_report.log") ==PROF== Profiling lines"
grep -m3 '==PROF== Profiling' "$out/lud_report.log"
rm -f "$out/lud.ncu-rep"
