#!/usr/bin/env bash
# Captures the corpus with `gpulint run --save-csv` itself (the minimal fixtures), and
# measures gpulint's replay passes and wall time against the gpulint before this change
# and against a hand-written ncu call with the same metrics, three rounds interleaved.
#   usage: lab/scripts/corpus/verify.sh OUT_DIR GPULINT [OLD_GPULINT]   (from the repository root)
set -u
out=$(realpath -m "${1:?usage: verify.sh OUT_DIR GPULINT [OLD_GPULINT]}")
gl=$(realpath "$2")
old=${3:+$(realpath "$3")}
here=$(cd "$(dirname "$0")/../../../samples/corpus" && pwd)
build="$here/../build/corpus"
mkdir -p "$out" "$build"
clock=(--ncu-arg=--clock-control --ncu-arg=none)
log() { echo "$*" | tee -a "$out/verify.txt"; }
now() { python3 -c 'import time; print(time.time())'; }
since() { python3 -c "print(f'{$(now) - $1:.2f}')"; }
passes() { python3 - "$1" <<'PY'
import csv, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
h = [r for r in rows if r[0] == 'ID'][0]
i = h.index('profiler__replayer_passes')
print(' '.join(sorted({r[i] for r in rows if r[0].isdigit()})))
PY
}
programs=("lud|2048|30" "gaussian|1024|40" "nw|512|63" "stencil2d|4096 5|5" "stencil3d|512 512 64 3|3"
          "particlefilter|65536 3|12" "bfs|1048576 8|40" "knn|4194304 2|4" "bad_launch||4")
for p in "${programs[@]}"; do
  name=${p%%|*}
  [ -x "$build/$name" ] || nvcc -O3 -arch=sm_90 -lineinfo -o "$build/$name" "$here/$name.cu" &
done
wait
log "== gpulint run --save-csv on the corpus"
for p in "${programs[@]}"; do
  IFS='|' read -r name args count <<<"$p"
  t0=$(now)
  "$gl" run "${clock[@]}" --launch-count "$count" --color never --save-csv "$out/min_$name.csv" \
    -- "$build/$name" $args >"$out/report_$name.txt" 2>&1
  log "$name: exit $?, $(since "$t0") s, replay passes per launch: $(passes "$out/min_$name.csv")"
done
log "== wall time, seconds: bare / gpulint now / gpulint before / hand-written ncu with gpulint's metrics"
metrics=$("$gl" metrics)
log "metrics: $(echo "$metrics" | tr ',' '\n' | wc -l) now, $([ -n "$old" ] && "$old" metrics | tr ',' '\n' | wc -l) before"
for p in "stencil2d|4096 5" "lud|1024" "knn|4194304 2"; do
  IFS='|' read -r name args <<<"$p"
  for round in 1 2 3; do
    t0=$(now); "$build/$name" $args >/dev/null 2>&1; bare=$(since "$t0")
    t0=$(now); "$gl" run "${clock[@]}" --launch-count 30 -- "$build/$name" $args >/dev/null 2>&1; now_t=$(since "$t0")
    before=-
    if [ -n "$old" ]; then
      t0=$(now); "$old" run "${clock[@]}" --launch-count 30 -- "$build/$name" $args >/dev/null 2>&1; before=$(since "$t0")
    fi
    t0=$(now)
    ncu --clock-control none --csv --page raw --print-units base --metrics "$metrics" --launch-count 30 \
      --log-file /tmp/hand.csv "$build/$name" $args >/dev/null 2>&1
    hand=$(since "$t0")
    log "$name $args round $round: bare $bare  now $now_t  before $before  hand-written $hand"
  done
done
