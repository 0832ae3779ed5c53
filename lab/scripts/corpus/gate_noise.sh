#!/usr/bin/env bash
# Run-to-run noise of the regression gate (issue 38): the same binaries captured ROUNDS
# times as the CI workflow in docs/ci.md captures them (`gpulint run --save-csv`), then
# every later round diffed against the first round's baseline. Also every launch with
# plain ncu and gpulint's metrics plus the SASS-level shared-memory counters, twice, to
# see which shared-memory counts repeat exactly. Everything lands in OUT_DIR/noise.tar.gz.
#   usage: lab/scripts/corpus/gate_noise.sh OUT_DIR [GPULINT] [ROUNDS]   (from the repository root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
rounds=${3:-6}
work=$(mktemp -d)
nc=(--ncu-arg=--clock-control --ncu-arg=none)
programs=("lud 2048" "matmul_variants 2048" "reduction 24" "compute_classes 26 1" "knn 4194304 2" "stencil2d 4096 5")
pack() { tar czf "$out/noise.tar.gz" -C "$work" . ; }
for p in "${programs[@]}"; do build_sample "${p%% *}" & done
nvcc -O3 -arch=sm_90 -lineinfo -DVARIANT=0 -o "$build/pipeline_base" "$here/../src/pipeline.cu" &
nvcc -O3 -arch=sm_90 -lineinfo -DVARIANT=1 -o "$build/pipeline_regressed" "$here/../src/pipeline.cu" &
wait
programs+=("pipeline_base")
t_start=$(now)
for round in $(seq 1 "$rounds"); do
  # Keep inside the device call's limit: no new round after 7 minutes.
  [ "$(python3 -c "print(int($(now) - $t_start > 420))")" = 1 ] && { echo "stopped before round $round"; break; }
  for p in "${programs[@]}"; do
    set -- $p
    name=$1; shift
    t0=$(now)
    "$gl" run "${nc[@]}" --exit-zero --format json --save-csv "$work/${name}_$round.csv" \
      -- "$build/$name" "$@" >"$work/${name}_$round.json" 2>"$work/${name}_$round.err"
    echo "round $round $name: $(since "$t0") s"
  done
  pack
done
"$gl" run "${nc[@]}" --exit-zero --save-csv "$work/pipeline_regressed_1.csv" \
  -- "$build/pipeline_regressed" >/dev/null 2>&1
extra=smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__sass_inst_executed_op_shared_ld.sum,smsp__sass_inst_executed_op_shared_st.sum
for round in 1 2; do
  for p in "lud 2048" "matmul_variants 2048" "reduction 24"; do
    set -- $p
    name=$1; shift
    ncu --clock-control none --csv --page raw --print-units base --metrics "$("$gl" metrics),$extra" \
      --log-file "$work/sass_${name}_$round.csv" "$build/$name" "$@" >/dev/null 2>&1
  done
done
pack
for p in "${programs[@]}"; do
  name=${p%% *}
  [ -f "$work/${name}_1.csv" ] || continue
  "$gl" baseline "$work/${name}_1.csv" -o "$work/${name}_baseline.json" 2>/dev/null
  for f in "$work/${name}"_[2-9].csv; do
    [ -f "$f" ] || continue
    "$gl" diff "$work/${name}_baseline.json" "$f" --color never --format concise >/dev/null 2>&1
    echo "diff $name round $(basename "$f" .csv | sed 's/.*_//'): exit $?"
  done
done | tee "$work/diffs.txt"
pack
