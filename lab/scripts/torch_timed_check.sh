#!/usr/bin/env bash
# After the spread's counts were found not to be launch counts on PyTorch (cuBLAS), checks
# what `gpulint run --time-all-launches -v` says on samples/apps/torch_train.py: the note on
# launch numbers, the warnings, and the time.
#   usage: lab/scripts/torch_timed_check.sh OUT_DIR GPULINT     (from the repository root)
set -u
out=$(realpath -m "$1"); gl=$(realpath "$2")
mkdir -p "$out"
cd "$(dirname "$0")/../../samples" || exit 2   # samples/: its gpulint.toml passes --clock-control none
t0=$(python3 -c 'import time; print(time.time())')
"$gl" run --time-all-launches -v --format concise --exit-zero -- python3 apps/torch_train.py \
  >"$out/timed.txt" 2>"$out/timed.err"
echo "gpulint run --time-all-launches: $(python3 -c "import time; print(f'{time.time() - $t0:.2f}')") s"
grep -h "launch numbers\|timing pass measured\|warning" "$out/timed.err" "$out/timed.txt" | cut -c1-300
