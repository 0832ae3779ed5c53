#!/usr/bin/env bash
# Issue #42: the DDP training loop (train_ddp.py, expectations in its header) under torchrun
# with NPROC ranks, one per GPU: plain, then `gpulint run` (--verbose, the launch trace and
# the export kept), each timed. Run from the repository root on a machine with NPROC GPUs.
# With ONE_GPU_EACH=1 in the environment, each rank sees only its own GPU, as device 0.
#   usage: OUT=DIR bash samples/apps/ddp_run.sh [NPROC] [STEPS]
set -u
nproc=${1:-2}
steps=${2:-20}
out=${OUT:?set OUT to a folder for the results}
gl=$(realpath -m target/release/gpulint)
mkdir -p "$out"
run=(torchrun --standalone --nproc_per_node "$nproc" samples/apps/train_ddp.py "$steps")
timed() { # name, then the command: its output to $out/NAME.txt, its time to $out/times.txt
  local name=$1; shift
  local t0; t0=$(python3 -c 'import time; print(time.time())')
  timeout 300 "$@" > "$out/$name.txt" 2>&1
  local rc=$?
  echo "$name $(python3 -c "import time; print(f'{time.time() - $t0:.2f}')") exit=$rc" |
    tee -a "$out/times.txt"
}
tag=$nproc${ONE_GPU_EACH:+_one_gpu_each}
timed "plain_$tag" "${run[@]}"
timed "gpulint_$tag" "$gl" run --ncu-arg=--clock-control --ncu-arg=none --verbose \
  --exit-zero --save-csv "$out/ddp_$tag.csv" -- "${run[@]}"
