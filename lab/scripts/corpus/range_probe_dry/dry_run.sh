#!/usr/bin/env bash
# range_probe.cpp's control flow without a GPU: built against CUPTI 13.0's and the CUDA
# runtime's headers (pip wheels nvidia-cuda-cupti==13.0.85, nvidia-cuda-runtime==13.0.*,
# nvidia-cuda-crt==13.0.*, unpacked under $CUPTI_DIR and $CUDART_DIR) and linked to
# fake_cupti.cpp, it is loaded by play_launches.cpp, which plays nine launches; each range
# mode, with and without a driver launch nested in the runtime one, must write three rows
# (the first launch of each kernel) and count nine launches; with PROBE_FLUSH=1, three
# copies through the L2 are made, one before each profiled launch.
#   usage: lab/scripts/corpus/range_probe_dry/dry_run.sh   (from the repository root)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
inc="-I${CUPTI_DIR:-/tmp/cupti13}/nvidia/cu13/include -I${CUDART_DIR:-/tmp/cudart13}/nvidia/cu13/include"
out=$(mktemp -d)
# shellcheck disable=SC2086
g++ -shared -fPIC -std=c++17 $inc "$here/fake_cupti.cpp" -o "$out/libfake.so"
# shellcheck disable=SC2086
g++ -std=c++17 $inc "$here/play_launches.cpp" -L"$out" -lfake -ldl -Wl,-rpath,"$out" -o "$out/play"
# shellcheck disable=SC2086
g++ -shared -fPIC -O2 -std=c++17 $inc "$here/../range_probe.cpp" -L"$out" -lfake \
  -Wl,-rpath,"$out" -o "$out/probe.so"
for mode in auto user; do
  for nested in "" nested; do
    PROBE_RANGE=$mode PROBE_METRICS=m1,m2,m3 PROBE_OUT="$out/$mode$nested.csv" \
      "$out/play" "$out/probe.so" $nested 2>/dev/null
    rows=$(grep -c '^[0-9]' "$out/$mode$nested.csv")
    echo "$mode ${nested:-flat}: $(head -1 "$out/$mode$nested.csv"); $rows rows"
  done
done
# PROBE_FLUSH=1: one copy through the L2 before each of the three profiled launches.
PROBE_FLUSH=1 PROBE_METRICS=m1 PROBE_OUT="$out/flush.csv" "$out/play" "$out/probe.so" 2>&1 |
  grep 'flush copies'
# PROBE_SKIP=1: each kernel's second launch profiled (the nine launches are three of each).
PROBE_SKIP=1 PROBE_METRICS=m1 PROBE_OUT="$out/skip.csv" "$out/play" "$out/probe.so" 2>/dev/null
echo "skip 1: $(grep '^[0-9]' "$out/skip.csv" | cut -d, -f2 | tr '\n' ' ')(launch numbers)"
# PROBE_FLUSH=2: one flush kernel before each of the three profiled launches, its own launch
# passed over (the nine launches still counted, three rows written).
PROBE_FLUSH=2 PROBE_METRICS=m1 PROBE_OUT="$out/kernel.csv" "$out/play" "$out/probe.so" 2>&1 |
  grep 'flush kernels'
echo "flush 2: $(head -1 "$out/kernel.csv"); $(grep -c '^[0-9]' "$out/kernel.csv") rows"
