#!/usr/bin/env bash
# Issue 17: exports made with `--print-metric-instances` (ncu prints each instanced metric's
# per-instance values after its aggregate), in the raw and details pages and as text.
#   usage: lab/scripts/corpus/capture_instances.sh OUT_DIR [GPULINT]     (from the repository root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
build_sample lud
ncu --version >"$out/ncu-version.txt"
ncu --clock-control none --set full --launch-count 3 -f -o "$out/lud" "$build/lud" 256 >/dev/null 2>&1
for mode in values details; do
  ncu --import "$out/lud.ncu-rep" --csv --page raw --print-metric-instances "$mode" \
    >"$out/instances_${mode}_raw_lud.csv" 2>&1
  ncu --import "$out/lud.ncu-rep" --csv --page details --print-metric-instances "$mode" \
    >"$out/instances_${mode}_details_lud.csv" 2>&1
  ncu --import "$out/lud.ncu-rep" --print-metric-instances "$mode" \
    >"$out/instances_${mode}_text_lud.log" 2>&1
done
rm -f "$out/lud.ncu-rep"
ls -l "$out"
