#!/usr/bin/env bash
# Issue #37, eighteenth session: what the import after the profiled run (0.6-0.8 s of every
# `gpulint run`) is made of, for whether reading ncu's report file directly would pay.
# On matmul_variants 2048: gpulint's profiled-run command (from a verbose default run)
# writes its report; then, alternating, three times: ncu's start alone (`--version`), the
# import as gpulint runs it, and the same import asking for one metric. Also lists what
# Nsight Compute ships to read its report files (extras/FileFormat, extras/python).
# Expected before the call: ncu's start 0.3-0.5 s, the import 0.6-0.8 s, the one-metric
# import 0.1-0.2 s less; a FileFormat folder of .proto files.
#   usage: OUT=DIR lab/scripts/corpus/import_floor.sh   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
build_sample matmul_variants
prog=("$build/matmul_variants" 2048)
run_gl default_matmul --verbose -- "${prog[@]}"
logged_ncu_again "$r/default_matmul.txt" 'gpulint: /.*ncu .*--metrics' "$r/rep"
timed profiled "${cmd[@]}"
stat -c "%s bytes %n" "$r/rep.ncu-rep" | tee -a "$table"
for round in 1 2 3; do
  timed "start_$round" ncu --version
  timed "import_$round" ncu --import "$r/rep.ncu-rep" --csv --page raw --print-units base
  timed "import_one_$round" ncu --import "$r/rep.ncu-rep" --csv --page raw --print-units base \
    --metrics gpu__time_duration.sum
done
wc -c "$r"/import_1.txt "$r"/import_one_1.txt | tee -a "$table"
for d in /opt/nvidia/nsight-compute/*/extras /usr/local/cuda/nsight-compute*/extras; do
  [ -d "$d" ] && find "$d" -maxdepth 2 | head -40 | tee -a "$table"
done
rm -f "$r/rep.ncu-rep"
