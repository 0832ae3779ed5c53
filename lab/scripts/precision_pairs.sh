#!/usr/bin/env bash
# GL601's before/after pairs: samples/apps/torch_precision.py's GEMMs in FP32, TF32 and
# BF16, captured with gpulint's metric list (raw page, base units), GEMM kernels only.
#   usage: lab/scripts/precision_pairs.sh OUT_DIR GPULINT   (from the repository root)
set -u
out=$(realpath -m "${1:?usage: precision_pairs.sh OUT_DIR GPULINT}")
gl=$(realpath "${2:?usage: precision_pairs.sh OUT_DIR GPULINT}")
mkdir -p "$out"
ncu --clock-control none --csv --page raw --print-units base --metrics "$("$gl" metrics)" \
  -k "regex:gemm|xmma|nvjet|cutlass|sgemm" --log-file "$out/precision_pairs.csv" \
  python3 samples/apps/torch_precision.py > "$out/precision_pairs.log" 2>&1
echo "exit $?"
