#!/usr/bin/env bash
# Issue #40 on the H200, eleventh session: the serial-loads rule (GL507) and the metric it
# adds (the average latency of global and local loads). Stages:
#   pairs   serial_loads.cu (held-out pairs, expectations in its header): its own timer,
#           twice, then every launch under gpulint run, saved
#   others  every launch of the programs the rule must judge besides: latency_pairs (the
#           fitted walk), heldout_pairs, middle_ground, stencil3d, reduction,
#           matmul_variants, and samples/src's coalesced copy and latency chase
#   found   serial_loads_found.cu: the two kernels the rule flagged unexpected, beside the
#           fix it names (predictions in its header): its own timer, twice, every launch
#   passes  the replay passes of gpulint's list without the load latency, with it, and with
#           smsp__warps_active.sum too (the first call's rule read it), on one stencil2d launch
#   final   the session's last build as a user runs it: gpulint run's default (sampled) run
#           of serial_loads, latency_pairs and middle_ground, and the cost of the load
#           latency's pass: lud and latency_pairs by default against --ignore serial-loads,
#           alternating, twice each
#   torch   serial-loads on library and generated kernels: the transformer at 2 steps and
#           the CNN with cuDNN and torch.compile: each plain, then its default run with the
#           export saved
#   fullplus  `ncu --set full` with the load latency added by --metrics: the raw page has it,
#           and `gpulint check --min-judged 100` judges every rule on it
# Everything lands in $OUT/r, packed after each step into $OUT/results.tar.gz.
#   usage: OUT=DIR lab/scripts/corpus/serial_loads.sh STAGE...   (from the repository root)
set -u
. lab/scripts/corpus/common.sh "$OUT/x" target/release/gpulint
. lab/scripts/corpus/staged.sh
every_launch() { # program name, its path, then its arguments
  local name=$1; shift
  timed "all_$name" "$gl" run "${ncu_args[@]}" --exit-zero --all-launches \
    --save-csv "$r/run_$name.csv" --format json -- "$@"
}
pairs() {
  build_sample serial_loads
  timed timer1_serial_loads "$build/serial_loads" 11
  timed timer2_serial_loads "$build/serial_loads" 11
  every_launch serial_loads "$build/serial_loads" 1
}
others() {
  for p in latency_pairs heldout_pairs middle_ground stencil3d reduction matmul_variants; do
    build_sample "$p"
  done
  every_launch latency_pairs "$build/latency_pairs" 16 1
  every_launch heldout_pairs "$build/heldout_pairs" 1
  every_launch middle_ground "$build/middle_ground" 512 1
  every_launch stencil3d "$build/stencil3d"
  every_launch reduction "$build/reduction"
  every_launch matmul_variants "$build/matmul_variants" 2048
  for p in coalesced_copy latency_chase; do
    [ -x "$build/$p" ] || nvcc -O3 -arch=sm_90 -lineinfo -o "$build/$p" "$here/../src/$p.cu"
    every_launch "$p" "$build/$p"
  done
}
found() {
  build_sample serial_loads_found
  timed timer1_found "$build/serial_loads_found" 11
  timed timer2_found "$build/serial_loads_found" 11
  every_launch serial_loads_found "$build/serial_loads_found" 1
}
passes() {
  local with without
  with=$("$gl" metrics)
  without=$(echo "$with" | tr ',' '\n' |
    grep -v -e sm__average_inst_latency_pipe_lsu_mem_lg_cmd_read |
    paste -sd,)
  build_sample stencil2d
  {
    echo "stencil2d without the load latency: $(stencil_passes "$without") passes"
    echo "stencil2d with it: $(stencil_passes "$with") passes"
    echo "stencil2d with it and smsp__warps_active.sum: $(stencil_passes "$with,smsp__warps_active.sum") passes"
  } > "$r/passes.txt" 2>&1
  tar czf "$OUT/results.tar.gz" -C "$r" .
}
final() {
  for p in serial_loads latency_pairs middle_ground lud; do build_sample "$p"; done
  timed default_serial_loads "$gl" run "${ncu_args[@]}" --exit-zero -- "$build/serial_loads"
  timed default_latency_pairs "$gl" run "${ncu_args[@]}" --exit-zero -- "$build/latency_pairs"
  timed default_middle_ground "$gl" run "${ncu_args[@]}" --exit-zero -- "$build/middle_ground"
  for round in 1 2; do
    for p in lud latency_pairs; do
      local args=(); [ $p = lud ] && args=(1024)
      timed "cost_${p}_with_${round}" "$gl" run "${ncu_args[@]}" --exit-zero --quiet \
        -- "$build/$p" "${args[@]}"
      timed "cost_${p}_without_${round}" "$gl" run "${ncu_args[@]}" --exit-zero --quiet \
        --ignore serial-loads -- "$build/$p" "${args[@]}"
    done
  done
}
torch() {
  timed plain_transformer_2 python3 samples/apps/torch_transformer.py 2
  timed plain_cnn python3 samples/apps/torch_cnn.py
  timed default_transformer_2 "$gl" run "${ncu_args[@]}" --exit-zero \
    --save-csv "$r/default_transformer_2.csv" -- python3 samples/apps/torch_transformer.py 2
  timed default_cnn "$gl" run "${ncu_args[@]}" --exit-zero \
    --save-csv "$r/default_cnn.csv" -- python3 samples/apps/torch_cnn.py
}
fullplus() {
  build_sample latency_pairs
  timed fullplus_capture ncu --clock-control none --set full \
    --metrics sm__average_inst_latency_pipe_lsu_mem_lg_cmd_read.ratio --csv --page raw \
    --print-units base --log-file "$r/fullplus_latency_pairs.csv" "$build/latency_pairs" 16 1
  timed fullplus_check "$gl" check "$r/fullplus_latency_pairs.csv" --min-judged 100 --exit-zero
}
for stage in "$@"; do "$stage"; done
