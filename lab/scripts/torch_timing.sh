#!/usr/bin/env bash
# The timing table of issue #25: a PyTorch training loop (samples/apps/torch_train.py) of
# 130 steps (over 3,000 launches) plain and under `gpulint run`; and, on 10 steps, the
# warnings of the default sample against those of profiling every launch.
#   usage: lab/scripts/torch_timing.sh OUT_DIR GPULINT   (from the repository root)
set -u
out=$(realpath -m "${1:?usage: torch_timing.sh OUT_DIR GPULINT}")
gl=$(realpath "${2:?usage: torch_timing.sh OUT_DIR GPULINT}")
mkdir -p "$out"
cd "$(dirname "$0")/../../samples" || exit 2
now() { python3 -c 'import time; print(time.time())'; }
since() { python3 -c "print(f'{$(now) - $1:.1f}')"; }
t0=$(now); python3 apps/torch_train.py 130 > /dev/null 2>&1
echo "130 steps plain: $(since "$t0") s"
t0=$(now)
"$gl" run --verbose --format json --exit-zero -o "$out/train130.json" -- python3 apps/torch_train.py 130 2> "$out/train130.err"
echo "130 steps under gpulint run: exit $?, $(since "$t0") s"
grep -E "sampling|launches" "$out/train130.err" | head -4
python3 -c "import json; d=json.load(open('$out/train130.json')); print('launches', sum(s['launch_count'] for s in d['sources']), 'profiled', d['sources'][0]['profiled_launches'])"
for mode in default all; do
  extra=()
  [ "$mode" = all ] && extra=(--all-launches)
  t0=$(now)
  "$gl" run "${extra[@]}" --format json --exit-zero -o "$out/train10_$mode.json" -- python3 apps/torch_train.py 10 2> "$out/train10_$mode.err"
  echo "10 steps, $mode: exit $?, $(since "$t0") s"
done
