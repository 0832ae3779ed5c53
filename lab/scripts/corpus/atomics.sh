#!/usr/bin/env bash
# Global atomics, contended and not (nineteenth session): atomics.cu (expectations in its
# header) timed by its own medians, captured with gpulint's metric list alone and with the
# candidate L2 atomic counters added (replay passes of each), with `ncu --set full`, the
# atomic unit's per-slice values, the SASS of its atomics, and gpulint's report of every
# launch.
#   usage: OUT=DIR lab/scripts/corpus/atomics.sh   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
build_sample atomics
ncu=(ncu --clock-control none --csv --page raw --print-units base)
candidates=lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed,\
lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed,\
lts__d_atomic_input_cycles_active.sum,lts__t_requests_op_red.sum,lts__t_requests_op_atom.sum,\
lts__t_sectors_op_red.sum,lts__t_sectors_op_atom.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_red.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum,smsp__inst_executed_op_global_red.sum
metrics=$("$gl" metrics)
timed plain "$build/atomics" 5
timed plain_again "$build/atomics" 5
timed sass bash -c "cuobjdump -sass '$build/atomics' | grep -E 'Function|RED|ATOM' "
timed min "${ncu[@]}" --metrics "$metrics" --log-file "$r/min_atomics.csv" "$build/atomics" 1
timed candidates "${ncu[@]}" --metrics "$metrics,$candidates" \
  --log-file "$r/cand_atomics.csv" "$build/atomics" 1
timed instances "${ncu[@]}" --print-metric-instances values \
  --metrics lts__d_atomic_input_cycles_active.sum,lts__t_requests_op_red.sum \
  --log-file "$r/slices_atomics.csv" "$build/atomics" 1
timed full "${ncu[@]}" --set full --log-file "$r/full_atomics.csv" "$build/atomics" 1
for f in min cand; do
  timed "passes_$f" bash -c "'$gl' check '$r/${f}_atomics.csv' --format json --exit-zero |
    python3 -c 'import json,sys; print([k[\"metrics\"].get(\"replay_passes\") for k in json.load(sys.stdin)[\"kernels\"]])'"
done
run_gl all_atomics --all-launches --save-csv "$r/run_atomics.csv" -- "$build/atomics" 1
