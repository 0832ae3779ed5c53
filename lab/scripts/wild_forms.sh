#!/usr/bin/env bash
# Captures, on the GPU, the two forms of ncu's text output that public exports were seen
# in and gpulint refused (issue #30), from samples/apps/torch_gemm.py:
#   gemm_four_metrics.txt  `--metrics` with only duration, DRAM, SM and tensor-pipe
#                          throughput (the set torchbench-ncu's script collects), text output
#   gemm_sol.txt           the SpeedOfLight section's text output of one GEMM; the fixture
#                          is its section cut from the launch line down (a pasted fragment)
#   usage: lab/scripts/wild_forms.sh OUT_DIR     (from the repository root; ncu on PATH)
set -u
out=$(realpath -m "${1:?usage: wild_forms.sh OUT_DIR}")
mkdir -p "$out"
ncu=(ncu --clock-control none -k "regex:gemm|cutlass|xmma|nvjet")
four=gpu__time_duration.sum,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed
four=$four,gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed
four=$four,sm__throughput.avg.pct_of_peak_sustained_elapsed
"${ncu[@]}" --metrics "$four" python3 samples/apps/torch_gemm.py > "$out/gemm_four_metrics.txt" 2>&1
echo "four metrics: exit $?"
"${ncu[@]}" --section SpeedOfLight -c 1 python3 samples/apps/torch_gemm.py > "$out/gemm_sol.txt" 2>&1
echo "SpeedOfLight: exit $?"
ncu --version | tail -1 > "$out/ncu-version.txt"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$out/ncu-version.txt"
