#!/usr/bin/env bash
# Does the sample take the launches that carry the time? BFS (samples/corpus/bfs.cu), whose
# expansion kernel's time comes late as its frontier grows, under `gpulint run` with the
# build before the sample used the launch trace's durations and with the build after; then
# a PyTorch training loop, plain and under `gpulint run`, for the timing table.
#   usage: lab/scripts/corpus/sample_carries_time.sh OUT_DIR GPULINT_BEFORE GPULINT_AFTER
#   (from the repository root; runs from samples/, whose gpulint.toml passes
#   --clock-control none)
set -u
out=$(realpath -m "${1:?usage: sample_carries_time.sh OUT_DIR BEFORE AFTER}")
before=$(realpath "$2")
after=$(realpath "$3")
mkdir -p "$out"
cd "$(dirname "$0")/../../../samples" || exit 2
mkdir -p build/corpus
[ -x build/corpus/bfs ] || nvcc -O3 -arch=sm_90 -lineinfo -o build/corpus/bfs corpus/bfs.cu
now() { python3 -c 'import time; print(time.time())'; }
since() { python3 -c "print(f'{$(now) - $1:.1f}')"; }
for which in before after; do
  gl=$before
  [ "$which" = after ] && gl=$after
  t0=$(now)
  "$gl" run --verbose --color never --save-csv "$out/bfs_$which.csv" -- ./build/corpus/bfs 1048576 8 \
    > "$out/bfs_$which.txt" 2>&1
  echo "bfs, gpulint $which: exit $?, $(since "$t0") s"
  grep -E "sampling|a sample|warning\[|profile:" "$out/bfs_$which.txt" | head -12
done
t0=$(now)
python3 apps/torch_train.py > /dev/null 2>&1
echo "torch_train plain: $(since "$t0") s"
t0=$(now)
"$after" run --verbose --color never -- python3 apps/torch_train.py > "$out/torch_train.txt" 2>&1
echo "torch_train under gpulint run: exit $?, $(since "$t0") s"
grep -E "sampling|a sample|profiled|launches of|runs twice" "$out/torch_train.txt" | head -8
