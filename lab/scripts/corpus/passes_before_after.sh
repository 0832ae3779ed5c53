#!/usr/bin/env bash
# Replay passes per launch of gpulint's metric list before and after a change, and of the
# list with ncu's own composites (sm__throughput, gpu__compute_memory_throughput) added,
# on one launch each of three corpus kernels (after capture.sh built the corpus).
#   usage: lab/scripts/corpus/passes_before_after.sh OUT_DIR BEFORE_LIST AFTER_LIST
#   (lists: one ncu metric per line)
set -u
out=$(realpath -m "${1:?usage: passes_before_after.sh OUT_DIR BEFORE AFTER}")
before=$(paste -sd, "$2")
after=$(paste -sd, "$3")
build="$(cd "$(dirname "$0")/../../../samples" && pwd)/build/corpus"
mkdir -p "$out"
log() { echo "$*" | tee -a "$out/passes.txt"; }
passes() { # PROGRAM ARGS... with the metric list in $list
  ncu --clock-control none --csv --page raw --print-units base --metrics "$list" \
    --launch-count 1 --log-file /tmp/p.csv "$build/$1" "${@:2}" >/dev/null 2>&1
  python3 - <<'PY'
import csv
rows = list(csv.reader(open('/tmp/p.csv')))
h = [r for r in rows if r and r[0] == 'ID'][0]
d = [r for r in rows if r and r[0].isdigit()]
print(d[0][h.index('profiler__replayer_passes')] if d and 'profiler__replayer_passes' in h else '?')
PY
}
ncu_own="sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
log "metrics: before $(echo "$before" | tr ',' '\n' | wc -l), after $(echo "$after" | tr ',' '\n' | wc -l)"
for p in "stencil2d 1024 1" "matmul_variants 512" "knn 65536 1"; do
  # shellcheck disable=SC2086
  set -- $p
  list=$before; b=$(passes "$@")
  list=$after; a=$(passes "$@")
  list="$before,$ncu_own"; o=$(passes "$@")
  log "$1: before $b, after $a, before + ncu's two composites $o passes"
done
