#!/usr/bin/env bash
# Issue #27 on the GPU: gpulint run on PyTorch and JAX programs with the launch trace kept
# (--save-trace: which library launched each kernel), the attention script's step time as
# written and with gpulint's advice applied, and `gpulint diff` of the two: what was fixed.
#   usage: lab/scripts/torch_origins.sh OUT_DIR GPULINT   (from the repository root)
set -u
out=$(realpath -m "${1:?usage: torch_origins.sh OUT_DIR GPULINT}")
gl=$(realpath "${2:?usage: torch_origins.sh OUT_DIR GPULINT}")
mkdir -p "$out"
cd "$(dirname "$0")/../../samples/apps" || exit 2
python3 -c 'import torch; print("torch", torch.__version__)'
for i in 1 2; do
  python3 torch_attention.py 20
  python3 torch_attention.py 20 --fixed
done | tee "$out/attention_steps.txt"
run() { # NAME PROGRAM...
  local name=$1; shift
  "$gl" run --exit-zero --save-trace "$out/$name.trace.csv" --save-csv "$out/$name.csv" \
    -o "$out/$name.txt" -- "$@" 2> "$out/$name.err"
  echo "$name: exit $?"
}
run attention python3 torch_attention.py 3
run attention_fixed python3 torch_attention.py 3 --fixed
run train python3 torch_train.py 10
python3 -c 'import jax; print("jax", jax.__version__)' && run jax python3 jax_jit.py
"$gl" baseline "$out/attention.csv" -o "$out/attention.baseline.json" 2>/dev/null
"$gl" diff "$out/attention.baseline.json" "$out/attention_fixed.csv" > "$out/attention.diff.txt" 2>&1
echo "diff: exit $?"
