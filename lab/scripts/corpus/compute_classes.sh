#!/usr/bin/env bash
# Issue #26 on the GPU: compute_classes.cu's realized gains (its own timer), its captures with
# gpulint's list plus the candidate pipe and branch metrics (and reduction.cu's) and with
# `ncu --set full`, gpulint's default run of it, and what the candidates cost in passes.
#   usage: lab/scripts/corpus/compute_classes.sh OUT_DIR GPULINT   (from the repository root)
set -u
out=$(realpath -m "${1:?usage: compute_classes.sh OUT_DIR GPULINT}")
gl=$(realpath "${2:?usage: compute_classes.sh OUT_DIR GPULINT}")
here=$(cd "$(dirname "$0")/../../../samples/corpus" && pwd)
mkdir -p "$out"
pipes=$(printf 'sm__inst_executed_pipe_%s.avg.pct_of_peak_sustained_elapsed,' alu fma fmaheavy xu fp64 uniform cbu)
pipes+=$(printf 'sm__pipe_%s_cycles_active.avg.pct_of_peak_sustained_elapsed,' alu fma fmaheavy fp64)
pipes=${pipes%,}
branch="sm__inst_executed.sum,sm__sass_inst_executed_op_branch.sum,sm__sass_branch_targets_threads_divergent.sum,sm__sass_average_branch_targets_threads_uniform.pct,smsp__thread_inst_executed_pred_on_per_inst_executed.ratio"
EXTRA_METRICS="$pipes,$branch" ONLY="${ONLY:-compute_classes reduction}" \
  "$here/capture.sh" "$out" "$gl" >/dev/null 2>&1
cat "$out/summary.txt"
echo "== realized gains (median of 5, cudaEvent)"
"$here/../build/corpus/compute_classes" 26 5 | tee "$out/gains.txt"
echo "== gpulint run (default) on compute_classes"
"$gl" run --save-csv "$out/default_compute_classes.csv" --exit-zero -- \
  "$here/../build/corpus/compute_classes" 26 1 > "$out/default_compute_classes.txt" 2>&1
echo "exit $?"
# Replay passes of gpulint's list with each candidate added alone, on one launch of a small
# kernel (capture.sh built stencil2d).
list=$("$gl" metrics)
# shellcheck source=lab/scripts/corpus/common.sh
source "$(dirname "$0")/common.sh" "$out" "$gl"
passes() { stencil_passes "$@"; }
echo "== passes: gpulint's list $(passes "$list")" | tee "$out/passes_each.txt"
for m in $(echo "$pipes,$branch" | tr ',' ' '); do
  echo "+ $m: $(passes "$list,$m")" | tee -a "$out/passes_each.txt"
done
echo "+ all pipes: $(passes "$list,$pipes")" | tee -a "$out/passes_each.txt"
echo "+ all branch: $(passes "$list,$branch")" | tee -a "$out/passes_each.txt"
