#!/usr/bin/env bash
# Issue 17: reports for the Nsight Compute GUI's CSV exports (Summary and Raw pages). The
# GUI cannot run on the H200 machine (it lacks libEGL, libGLX, libfontconfig, libglib), so
# the reports go back and scripts/gui-export.py exports them with Nsight Compute 2022.3's
# GUI elsewhere. That GUI fails on a 2025.3.1 report's rule results (a required field it
# lacks), hence `--apply-rules no`. Each report comes with ncu's own raw page of it, so a
# test can hold the GUI's exports to ncu's figures.
#   usage: lab/scripts/corpus/gui_reports.sh OUT_DIR [GPULINT]     (from the repository root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
profile() { # NAME LAUNCHES PROGRAM ARGS...
  local name=$1 launches=$2 program=$3
  shift 3
  build_sample "$program"
  ncu --clock-control none --set full --apply-rules no --launch-count "$launches" -f \
    -o "$out/$name" "$build/$program" "$@" >"$out/$name-log.txt" 2>&1
  ncu --import "$out/$name.ncu-rep" --csv --page raw >"$out/${name}_cli_raw.csv" 2>&1
}
ncu --version >"$out/ncu-version.txt"
profile lud 12 lud 256
profile particlefilter 8 particlefilter 65536 3
ls -l "$out"
