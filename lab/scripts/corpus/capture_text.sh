#!/usr/bin/env bash
# Captures ncu's text forms (issue 17) on real corpus programs, next to the CSV of the
# same report, so a test can check that both forms read the same:
#   - live `ncu` with the default set, the program's own output mixed in;
#   - `--set full` to a report, then imported as text, as `--print-summary per-kernel`,
#     and as the details page (CSV);
#   - `--metrics $(gpulint metrics)` as text ("Command line profiler metrics") and raw CSV.
# ncu never changes the GPU's clocks.
#   usage: lab/scripts/corpus/capture_text.sh OUT_DIR GPULINT     (from the repository root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
ncu=(ncu --clock-control none)
for p in stencil2d particlefilter knn; do
  build_sample "$p" &
done
wait
ncu --version | tail -1 >"$out/ncu-version.txt"
command -v nsys >>"$out/ncu-version.txt" && nsys --version >>"$out/ncu-version.txt"

# Live default set, stdout as a user would redirect it.
"${ncu[@]}" --launch-count 4 "$build/stencil2d" 4096 5 >"$out/text_default_stencil2d.log" 2>&1

# One full report, four forms.
"${ncu[@]}" --set full --launch-count 6 -f -o "$out/pf" "$build/particlefilter" 65536 3 >/dev/null 2>&1
ncu --import "$out/pf.ncu-rep" >"$out/text_full_particlefilter.log" 2>&1
ncu --import "$out/pf.ncu-rep" --print-summary per-kernel >"$out/text_summary_particlefilter.log" 2>&1
ncu --import "$out/pf.ncu-rep" --csv --page details --print-units base >"$out/details_full_particlefilter.csv" 2>&1
ncu --import "$out/pf.ncu-rep" --csv --page raw --print-units base >"$out/raw_full_particlefilter.csv" 2>&1
rm -f "$out/pf.ncu-rep"

# gpulint's own metric list, as text and as the raw page.
metrics=$("$gl" metrics)
"${ncu[@]}" --metrics "$metrics" --launch-count 4 -f -o "$out/knn" "$build/knn" 4194304 2 >/dev/null 2>&1
ncu --import "$out/knn.ncu-rep" >"$out/text_metrics_knn.log" 2>&1
ncu --import "$out/knn.ncu-rep" --csv --page raw --print-units base >"$out/raw_metrics_knn.csv" 2>&1
rm -f "$out/knn.ncu-rep"
ls -l "$out"
