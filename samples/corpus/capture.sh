#!/usr/bin/env bash
# Builds the corpus (samples/corpus/*.cu) and captures each program on the GPU twice:
# with gpulint's own metric list (plus any EXTRA_METRICS being evaluated) and with
# `ncu --set full`, raw page, base units. Also measures what candidate metrics cost in
# replay passes. Everything lands in OUT_DIR; ncu never changes the GPU's clocks.
# SKIP_FULL=1 makes only gpulint's captures (when its list changed, not ncu's).
#   usage: samples/corpus/capture.sh OUT_DIR [GPULINT]     (from the repository root)
set -u
out=$(realpath -m "${1:?usage: capture.sh OUT_DIR [GPULINT]}")
gl=$(realpath "${2:-target/release/gpulint}")
here=$(cd "$(dirname "$0")" && pwd)
build="$here/../build/corpus"
mkdir -p "$out" "$build"
ncu=(ncu --clock-control none)
log() { echo "$*" | tee -a "$out/summary.txt"; }
now() { python3 -c 'import time; print(time.time())'; }
since() { python3 -c "print(f'{$(now) - $1:.2f}')"; }

# program, its arguments, launches to capture, and the binary when another program's
# (the same program at another size, captured under its own name)
programs=(
  "lud|2048|30"
  "gaussian|1024|40"
  "nw|512|63"
  "stencil2d|4096 5|5"
  "stencil3d|512 512 64 3|3"
  "particlefilter|65536 3|12"
  "bfs|1048576 8|40"
  "knn|4194304 2|4"
  "bad_launch||4"
  "occupancy_tie||3"
  "matmul_variants|2048|7"
  "cg_solver|1024 4|42"
  "reduction|24|6"
  "compute_classes|26 1|9"
  "occupancy_pairs|24 1|3"
  "occupancy_pairs_l2|20 1|3|occupancy_pairs"
  "latency_pairs|16 1|2"
  "register_pairs|20 1|6"
)

log "== machine"
nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv | tee -a "$out/summary.txt"
ncu --version | tail -1 | tee -a "$out/summary.txt"

log "== build: nvcc -O3 -arch=sm_90 -lineinfo"
for p in "${programs[@]}"; do
  name=${p%%|*}
  [ -f "$here/$name.cu" ] || continue
  nvcc -O3 -arch=sm_90 -lineinfo -o "$build/$name" "$here/$name.cu" 2>"$out/build_$name.err" &
done
wait
metrics=$("$gl" metrics)
[ -n "${EXTRA_METRICS:-}" ] && metrics="$metrics,$EXTRA_METRICS"
log "metrics: $(echo "$metrics" | tr ',' '\n' | wc -l)"

log "== captures"
for p in "${programs[@]}"; do
  IFS='|' read -r name args count bin <<<"$p"
  bin=${bin:-$name}
  # ONLY="a b" captures just those programs.
  [ -n "${ONLY:-}" ] && [[ " $ONLY " != *" $name "* ]] && continue
  t0=$(now); "$build/$bin" $args >"$out/$name.stdout" 2>&1; bare=$(since "$t0")
  t0=$(now)
  "${ncu[@]}" --csv --page raw --print-units base --metrics "$metrics" --launch-count "$count" \
    --log-file "$out/min_$name.csv" "$build/$bin" $args >/dev/null 2>"$out/min_$name.err"
  min=$(since "$t0")
  if [ -n "${SKIP_FULL:-}" ]; then
    log "$name ($args): bare ${bare}s, minimal ${min}s, rows $(($(wc -l <"$out/min_$name.csv") - 2))"
    continue
  fi
  t0=$(now)
  "${ncu[@]}" --set full --csv --page raw --print-units base --launch-count "$count" \
    --log-file "$out/full_$name.csv" "$build/$bin" $args >/dev/null 2>"$out/full_$name.err"
  full=$(since "$t0")
  log "$name ($args): bare ${bare}s, minimal ${min}s, set full ${full}s, rows $(($(wc -l <"$out/min_$name.csv") - 2)) / $(($(wc -l <"$out/full_$name.csv") - 2))"
done
