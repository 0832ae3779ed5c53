#!/usr/bin/env bash
# Double math in float kernels (nineteenth session): fp64_promotion.cu (expectations in its
# header) timed by its own medians, the SASS of its kernels' FP64 and conversion
# instructions, captured with gpulint's list plus the candidate counters (replay passes of
# each) and with `ncu --set full`, and gpulint's report of every launch.
#   usage: OUT=DIR lab/scripts/corpus/fp64_promotion.sh   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
build_sample fp64_promotion
ncu=(ncu --clock-control none --csv --page raw --print-units base)
candidates=smsp__sass_thread_inst_executed_op_conversion_pred_on.sum,\
sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed,\
sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_elapsed,\
sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed,\
sm__thread_inst_executed_pipe_fp64_pred_on.sum,smsp__inst_executed_pipe_xu.sum
metrics=$("$gl" metrics)
timed plain "$build/fp64_promotion" 5
timed plain_again "$build/fp64_promotion" 5
timed sass bash -c "cuobjdump -sass '$build/fp64_promotion' | grep -E 'Function|F2F|DFMA|DADD|DMUL|FFMA' | sort | uniq -c | sort -rn | head -40"
timed min "${ncu[@]}" --metrics "$metrics" --log-file "$r/min0_fp64_promotion.csv" \
  "$build/fp64_promotion" 1
timed candidates "${ncu[@]}" --metrics "$metrics,$candidates" \
  --log-file "$r/min_fp64_promotion.csv" "$build/fp64_promotion" 1
timed full "${ncu[@]}" --set full --log-file "$r/full_fp64_promotion.csv" \
  "$build/fp64_promotion" 1
for f in min0 min; do
  timed "passes_$f" bash -c "'$gl' check '$r/${f}_fp64_promotion.csv' --format json --exit-zero |
    python3 -c 'import json,sys; print([k[\"metrics\"].get(\"replay_passes\") for k in json.load(sys.stdin)[\"kernels\"]])'"
done
run_gl all_fp64_promotion --all-launches -- "$build/fp64_promotion" 1
