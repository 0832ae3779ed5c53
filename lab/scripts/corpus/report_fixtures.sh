#!/usr/bin/env bash
# Issue #37, eighteenth session: reports (.ncu-rep) and their raw pages side by side, for
# reading ncu's report file without `ncu --import` (0.65-0.75 s of every `gpulint run`,
# of which ncu's start is 0.1 s: lab/runs/2026-12-03-cost-floor.txt). For each program,
# gpulint's profiled-run command (from a verbose default run) writes NAME.ncu-rep, and the
# import gpulint runs writes NAME.csv. Also copies Nsight Compute's report format
# definitions (extras/FileFormat) for reading, not for the repository.
# Expected before the call: reports of 0.1-1 MB; raw pages with the rows gpulint reads.
#   usage: OUT=DIR lab/scripts/corpus/report_fixtures.sh   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
mkdir -p "$OUT/rep"
cp -r /opt/nvidia/nsight-compute/*/extras/FileFormat "$OUT/"
cp /opt/nvidia/nsight-compute/*/extras/python/ncu_report.py "$OUT/"
capture() { # name, then the program and its arguments
  local name=$1; shift
  run_gl "default_$name" --verbose -- "$@"
  logged_ncu_again "$r/default_$name.txt" 'gpulint: /.*ncu .*--metrics' "$OUT/rep/$name"
  timed "profiled_$name" "${cmd[@]}"
  ncu --import "$OUT/rep/$name.ncu-rep" --csv --page raw --print-units base \
    > "$OUT/rep/$name.csv" 2> "$r/import_$name.err"
  stat -c "%s bytes %n" "$OUT/rep/$name.ncu-rep" "$OUT/rep/$name.csv" | tee -a "$table"
}
for p in matmul_variants source_lines nw template_phases lud; do build_sample $p; done
capture matmul_variants "$build/matmul_variants" 2048
capture source_lines "$build/source_lines"
capture nw "$build/nw" 512
capture template_phases "$build/template_phases"
capture lud "$build/lud" 1024
capture transformer python3 samples/apps/torch_transformer.py 2
tar czf "$OUT/reports.tar.gz" -C "$OUT" rep FileFormat ncu_report.py
