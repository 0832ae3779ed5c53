#!/usr/bin/env bash
# Issue 17: the CSV forms of `--print-summary`, and what ncu's --page takes; issue 16: what
# a user sees on a terminal while `gpulint run` profiles (under `script`, a pseudo-terminal).
#   usage: lab/scripts/corpus/capture_summary.sh OUT_DIR GPULINT     (from the repository root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
for p in particlefilter gaussian; do build_sample "$p"; done
ncu --help | grep -A12 -- "--page " >"$out/ncu-page-help.txt"
ncu --clock-control none --set full --launch-count 6 -f -o "$out/pf" "$build/particlefilter" 65536 3 >/dev/null 2>&1
ncu --import "$out/pf.ncu-rep" --csv --print-summary per-kernel >"$out/summary_csv_particlefilter.csv" 2>&1
ncu --import "$out/pf.ncu-rep" --csv --page raw --print-summary per-kernel >"$out/summary_raw_csv_particlefilter.csv" 2>&1
ncu --import "$out/pf.ncu-rep" --csv --print-summary per-gpu >"$out/summary_gpu_csv_particlefilter.csv" 2>&1
rm -f "$out/pf.ncu-rep"
# On a terminal: gpulint's progress line while ncu profiles.
script -qfc "$gl run --launches-per-config 2 --ncu-arg=--clock-control --ncu-arg=none -- $build/gaussian 256" \
  "$out/terminal_gaussian.txt" >/dev/null 2>&1
ls -l "$out"
