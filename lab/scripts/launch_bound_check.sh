#!/usr/bin/env bash
# Issue #27 on the GPU after GL603 (launch-bound) landed: `gpulint run` on the chain program
# as written and fixed, on the attention training script and on the training loop, to see
# where the launch trace finds the GPU waiting on launches; then, with two GPUs, NCCL's
# kernel names from the launch trace of two ranks (ncu profiles none of them: -k matches
# nothing, so that no collective waits on a rank ncu has stopped).
#   usage: lab/scripts/launch_bound_check.sh OUT_DIR GPULINT   (from the repository root)
set -u
out=$(realpath -m "${1:?usage: launch_bound_check.sh OUT_DIR GPULINT}")
gl=$(realpath "${2:?usage: launch_bound_check.sh OUT_DIR GPULINT}")
mkdir -p "$out"
cd "$(dirname "$0")/../../samples/apps" || exit 2
nvcc --version | tail -2
run() { # NAME PROGRAM...
  local name=$1; shift
  local t0=$SECONDS
  "$gl" run --exit-zero --save-trace "$out/$name.trace.csv" -o "$out/$name.txt" -- "$@" \
    > "$out/$name.out" 2> "$out/$name.err"
  echo "$name: exit $?, $((SECONDS - t0)) s; $(tail -n 1 "$out/$name.out")"
  grep -E '^(warning|error)\[' "$out/$name.txt" | cut -c1-150
  grep -A2 '^warning\[GL603' "$out/$name.txt" | tail -1
}
run chain python3 torch_chain.py 30
run chain_fixed python3 torch_chain.py 30 --fixed
run attention python3 torch_attention.py 3
run train python3 torch_train.py 10
gpus=$(nvidia-smi -L | wc -l)
if [ "$gpus" -ge 2 ]; then
  timeout 300 "$gl" run --exit-zero -k 'regex:^no_kernel_is_named_this$' \
    --save-trace "$out/nccl.trace.csv" -- torchrun --standalone --nproc_per_node 2 nccl_ranks.py \
    > "$out/nccl.out" 2> "$out/nccl.err"
  echo "nccl: exit $?, $(grep -c '' "$out/nccl.trace.csv" 2>/dev/null) trace lines"
  tail -n 3 "$out/nccl.out" "$out/nccl.err"
else
  echo "nccl: one GPU ($gpus), skipped"
fi
