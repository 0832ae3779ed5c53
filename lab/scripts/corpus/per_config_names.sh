#!/usr/bin/env bash
# Issue 16: does ncu's per-launch-config filter count template instances of one function
# (PyTorch's vectorized_elementwise_kernel<4, FillFunctor>, <4, GeluCUDAKernelImpl>, ...)
# as one configuration, and does --kernel-name-base demangled separate them, as it does
# for --kernel-id? Profiles samples/apps/torch_train.py (duration only, no cache flush)
# with the first 3 launches per configuration, each way, and counts the results per
# demangled name, grid and block.
#   usage: lab/scripts/corpus/per_config_names.sh OUT_DIR     (from the repo root)
set -u
out=$(realpath -m "$1"); mkdir -p "$out"
for base in function demangled; do
  ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
    --page raw --filter-mode per-launch-config --launch-count 3 --kernel-name-base "$base" \
    --log-file "$out/per_config_$base.csv" python3 samples/apps/torch_train.py >/dev/null 2>&1
  python3 - "$out/per_config_$base.csv" "$base" <<'PY'
import csv, io, sys, collections
text = open(sys.argv[1]).read()
rows = list(csv.reader(io.StringIO(text[text.index('"ID"'):])))
h = rows[0]
k, g, b = h.index("Kernel Name"), h.index("Grid Size"), h.index("Block Size")
configs = collections.Counter((r[k], r[g], r[b]) for r in rows[2:])
print(f"--kernel-name-base {sys.argv[2]}: {len(rows) - 2} launches profiled, "
      f"{len({r[k] for r in rows[2:]})} kernels, {len(configs)} (kernel, grid, block)")
for (name, grid, block), n in sorted(configs.items()):
    print(f"  {n}  {name[:90]}  {grid} {block}")
PY
done
