#!/usr/bin/env bash
# How many replay passes does each metric gpulint collects cost? Profiles one small kernel
# with each metric alone, then with all of them but one, and prints the passes.
#   usage: lab/scripts/passes_per_metric.sh [GPULINT] [PROGRAM]   (run from the repo root)
set -u
gl=$(realpath "${1:-target/release/gpulint}")
prog=${2:-samples/build/coalesced_copy}
[ -x "$prog" ] || nvcc -O3 -arch=sm_90 -o "$prog" samples/src/coalesced_copy.cu
passes() {
  ncu --clock-control none --csv --page raw --print-units base --metrics "$1" --log-file /tmp/p.csv "$prog" >/dev/null 2>&1
  "$gl" check /tmp/p.csv --format json --exit-zero 2>/dev/null |
    python3 -c 'import json,sys; print(int(json.load(sys.stdin)["kernels"][0]["metrics"].get("replay_passes", -1)))' 2>/dev/null || echo "?"
}
all=$("$gl" metrics)
echo "all $(echo "$all" | tr ',' '\n' | wc -l) metrics: $(passes "$all") passes"
for m in $(echo "$all" | tr ',' ' '); do
  rest=$(echo "$all" | tr ',' '\n' | grep -vx "$m" | paste -sd,)
  echo "$m: alone $(passes "$m"), all but it $(passes "$rest")"
done
