#!/usr/bin/env bash
# Issue 17: what ncu's other printing options do to the forms gpulint reads: --print-fp,
# --print-kernel-base, --print-details, --print-rule-details, --print-units base on text.
#   usage: lab/scripts/corpus/capture_print_options.sh OUT_DIR [GPULINT]     (from the repository root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
build_sample lud
ncu --version >"$out/ncu-version.txt"
ncu --clock-control none --set full --launch-count 3 -f -o "$out/lud" "$build/lud" 256 >/dev/null 2>&1
rep="$out/lud.ncu-rep"
ncu --import "$rep" --csv --page raw --print-fp >"$out/print_fp_raw_lud.csv" 2>&1
ncu --import "$rep" --csv --page raw --print-kernel-base mangled >"$out/kernel_base_mangled_raw_lud.csv" 2>&1
ncu --import "$rep" --csv --page details --print-details all >"$out/print_details_all_details_lud.csv" 2>&1
ncu --import "$rep" --print-details all >"$out/print_details_all_text_lud.log" 2>&1
ncu --import "$rep" --print-rule-details >"$out/print_rule_details_text_lud.log" 2>&1
ncu --import "$rep" --print-units base >"$out/print_units_base_text_lud.log" 2>&1
ncu --import "$rep" --page raw >"$out/page_raw_text_lud.log" 2>&1
rm -f "$rep"
ls -l "$out"
