#!/usr/bin/env bash
# Issue #27's names fixture on the GPU: the kernel names of Thrust (samples/apps/thrust_sort.cu)
# and of the libraries PyTorch calls (samples/apps/library_kernels.py: cuDNN convolution and
# attention, PyTorch's bundled flash-attention, NCCL on one rank), as ncu prints them.
#   usage: lab/scripts/library_names.sh OUT_DIR   (from the repository root)
set -u
out=$(realpath -m "${1:?usage: library_names.sh OUT_DIR}")
mkdir -p "$out"
cd "$(dirname "$0")/../../samples/apps" || exit 2
echo "== what this machine has"
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cudnn", torch.backends.cudnn.version(), "nccl", torch.cuda.nccl.version())'
python3 -c 'import flash_attn; print("flash_attn", flash_attn.__version__)' 2>&1 | tail -1
names() { # NAME PROGRAM...: the distinct kernel names of every launch, sorted
  local name=$1; shift
  ncu --clock-control none --metrics gpu__time_duration.sum --csv --page raw --launch-count 2000 \
    --log-file "$out/$name.ncu.csv" "$@" > "$out/$name.out" 2>&1
  echo "$name: exit $?, $(tail -n 3 "$out/$name.out" | tr '\n' ' ')"
  python3 - "$out/$name.ncu.csv" > "$out/$name.names.txt" <<'PY'
import csv, sys
rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
r = csv.DictReader(rows)
print("\n".join(sorted({row["Kernel Name"] for row in r if row["Kernel Name"] not in ("", "Kernel Name")})))
PY
  echo "  $(wc -l < "$out/$name.names.txt") distinct names"
}
nvcc -O3 -arch=sm_90 -o "$out/thrust_sort" thrust_sort.cu && names thrust "$out/thrust_sort"
names library_kernels python3 library_kernels.py
cat "$out/library_kernels.out" | grep -E ': (ran|skipped)|^cudnn'
