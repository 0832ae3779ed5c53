#!/usr/bin/env bash
# Replay passes that candidate metrics add to gpulint's list, on one launch of the 2D
# stencil, and the cost of sampling strategies on the iterative programs.
#   usage: lab/scripts/corpus/measure.sh OUT_DIR [GPULINT]   (after capture.sh built the corpus)
set -u
out=$(realpath -m "${1:?usage: measure.sh OUT_DIR [GPULINT]}")
gl=$(realpath "${2:-target/release/gpulint}")
build="$(cd "$(dirname "$0")/../../../samples" && pwd)/build/corpus"
ncu=(ncu --clock-control none)
log() { echo "$*" | tee -a "$out/measure.txt"; }
now() { python3 -c 'import time; print(time.time())'; }
since() { python3 -c "print(f'{$(now) - $1:.2f}')"; }
passes() { # replay passes of one launch with the metric list $1
  "${ncu[@]}" --csv --page raw --print-units base --metrics "$1" --launch-count 1 \
    --log-file /tmp/p.csv "$build/stencil2d" 1024 1 >/dev/null 2>&1
  python3 - <<'PY'
import csv
rows = list(csv.reader(open('/tmp/p.csv')))
h = [r for r in rows if r and r[0] == 'ID'][0]
d = [r for r in rows if r and r[0].isdigit()]
print(d[0][h.index('profiler__replayer_passes')] if d and 'profiler__replayer_passes' in h else '?')
PY
}
base=$("$gl" metrics)
stalls=""
for s in long_scoreboard barrier short_scoreboard mio_throttle math_pipe_throttle no_instruction \
         not_selected selected wait lg_throttle membar branch_resolving dispatch_stall drain \
         imc_miss misc sleeping tex_throttle; do
  stalls="$stalls,smsp__average_warps_issue_stalled_${s}_per_issue_active.ratio"
done
stalls=${stalls#,}
top=$(echo "$stalls" | tr ',' '\n' | head -9 | paste -sd,)
log "== replay passes (stencil2d, one launch)"
log "gpulint list: $(passes "$base")"
log "+ all 18 stall ratios: $(passes "$base,$stalls")"
log "+ top 9 stall ratios: $(passes "$base,$top")"
for m in l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed \
         l1tex__throughput.avg.pct_of_peak_sustained_active \
         l1tex__throughput.avg.pct_of_peak_sustained_elapsed \
         l1tex__data_bank_reads.avg.pct_of_peak_sustained_elapsed \
         l1tex__data_bank_writes.avg.pct_of_peak_sustained_elapsed \
         l1tex__lsuin_requests.avg.pct_of_peak_sustained_elapsed \
         smsp__thread_inst_executed_per_inst_executed.ratio \
         smsp__inst_executed.sum gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed; do
  log "+ $m: $(passes "$base,$m")"
done
for s in $(echo "$stalls" | tr ',' ' '); do log "  alone $s: $(passes "$s")"; done

log "== sampling (issue 16): seconds"
for p in "lud 1024" "gaussian 1024"; do
  set -- $p
  t0=$(now); "$build/$1" "$2" >/dev/null 2>&1; log "$1 $2 bare: $(since "$t0")"
  t0=$(now)
  timeout 150 "${ncu[@]}" --csv --page raw --print-units base --metrics gpu__time_duration.sum \
    --log-file "$out/duration_$1.csv" "$build/$1" "$2" >/dev/null 2>&1
  log "$1 $2 duration-only, every launch: $(since "$t0") (exit $?)"
  t0=$(now)
  timeout 150 "${ncu[@]}" --csv --page raw --print-units base --metrics "$base" \
    --filter-mode per-launch-config --launch-count 3 \
    --log-file "$out/perconfig_$1.csv" "$build/$1" "$2" >/dev/null 2>&1
  log "$1 $2 gpulint list, 3 per launch config: $(since "$t0") (exit $?)"
done
t0=$(now)
timeout 100 "${ncu[@]}" --csv --page raw --print-units base --metrics "$base" \
  --log-file "$out/all_lud.csv" "$build/lud" 1024 >/dev/null 2>&1
log "lud 1024 gpulint list, every launch: $(since "$t0") (exit $?)"
log "== chip"
"${ncu[@]}" --query-metrics 2>&1 | head -5 | tee -a "$out/measure.txt"
ncu --list-chips 2>&1 | tail -3 | tee -a "$out/measure.txt"
which nsys nvidia-smi 2>&1 | tee -a "$out/measure.txt"
