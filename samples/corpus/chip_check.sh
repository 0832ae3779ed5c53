#!/usr/bin/env bash
# On a real GPU: how long ncu takes to name the local chip, and what `gpulint run
# --verbose` plans with it. Run from the repository root.
#   usage: samples/corpus/chip_check.sh GPULINT
set -u
gl=$(realpath "$1")
now() { python3 -c 'import time; print(time.time())'; }
for i in 1 2 3; do
  t0=$(now); ncu --query-metrics > /tmp/q.txt 2>&1; t1=$(now)
  echo "ncu --query-metrics: $(python3 -c "print(f'{$t1 - $t0:.2f}')") s, first line: $(head -1 /tmp/q.txt)"
done
nvcc -O3 -arch=sm_90 -o /tmp/stencil2d samples/corpus/stencil2d.cu
"$gl" run --verbose --ncu-arg=--clock-control --ncu-arg=none --format concise -- /tmp/stencil2d 1024 2 2>&1 | grep -v "^==" | head -20
