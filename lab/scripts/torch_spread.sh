#!/usr/bin/env bash
# Issue 16 on a program we did not write the kernels of: samples/apps/torch_train.py
# (PyTorch, 1,450 launches of 21 kernels, many of them template instances of one function).
# Times the bare run, `gpulint run` with no options (the spread) and with
# --time-all-launches, and saves each report; the report of every launch is the capture in
# fixtures/h200-samples/torch_train.csv (323.8 s under gpulint on 2026-11-29).
#   usage: lab/scripts/torch_spread.sh OUT_DIR GPULINT     (from the repository root)
set -u
out=$(realpath -m "$1"); gl=$(realpath "$2")
mkdir -p "$out"
cd "$(dirname "$0")/../../samples" || exit 2   # samples/: its gpulint.toml passes --clock-control none
now() { python3 -c 'import time; print(time.time())'; }
since() { python3 -c "print(f'{$(now) - $1:.2f}')"; }
t0=$(now); python3 apps/torch_train.py >/dev/null 2>&1; echo "bare: $(since "$t0") s"
t0=$(now)
"$gl" run --format json --exit-zero --save-csv "$out/torch_train_spread.csv" -- python3 apps/torch_train.py \
  >"$out/spread.json" 2>"$out/spread.err"
echo "gpulint run (spread): $(since "$t0") s"
t0=$(now)
"$gl" run --time-all-launches --format json --exit-zero -- python3 apps/torch_train.py \
  >"$out/timed.json" 2>"$out/timed.err"
echo "gpulint run --time-all-launches: $(since "$t0") s"
grep -h "warning" "$out/spread.err" "$out/timed.err" | cut -c1-400
