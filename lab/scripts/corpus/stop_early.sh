#!/usr/bin/env bash
# Issue 16: can a run be bounded in time? ncu on LU (190 launches, ~26 s with gpulint's
# metrics per launch configuration) is sent SIGINT after 6 s: does it still write the
# launches it profiled? And does ncu take two --kernel-id filters?
#   usage: lab/scripts/corpus/stop_early.sh OUT_DIR GPULINT     (from the repository root)
set -u
# shellcheck source=lab/scripts/corpus/common.sh
. "$(dirname "$0")/common.sh"
build_sample lud
metrics=$("$gl" metrics)
# Job control on: a non-interactive shell starts background jobs with SIGINT ignored.
set -m
for sig in INT TERM; do
  ncu --clock-control none --csv --page raw --print-units base --metrics "$metrics" \
    --filter-mode per-launch-config --launch-count 3 --log-file "$out/stopped_$sig.csv" \
    "$build/lud" 1024 >"$out/stopped_$sig.out" 2>&1 &
  pid=$!
  sleep 6
  kill -"$sig" "$pid"
  wait "$pid"; echo "SIG$sig after 6 s: ncu exit $?, $(grep -c '^"[0-9]' "$out/stopped_$sig.csv" 2>/dev/null || echo 0) launch rows"
  tail -3 "$out/stopped_$sig.csv" | cut -c1-150
  tail -3 "$out/stopped_$sig.out"
done
ncu --clock-control none --csv --page raw --metrics gpu__time_duration.sum --kernel-id :::1 --kernel-id :::20 \
  --log-file "$out/two_ids.csv" "$build/lud" 1024 >"$out/two_ids.out" 2>&1
echo "two --kernel-id: exit $?, $(grep -c '^"[0-9]' "$out/two_ids.csv" 2>/dev/null || echo 0) rows"
tail -3 "$out/two_ids.out"
