"""One run's report before gpulint builds it (#58): the launch tracer's trace and counters
file (GPULINT_COUNTERS_OUT) of one run, written as the saved run `gpulint run --save-csv`
leaves (an export of the profiled launches in ncu's raw-page form, the trace beside it,
and the .gpulint.json that names the sample), so that `gpulint check` judges them as it
judges a two-run sample. Each profiled launch is its kernel's first: the sample is
"by-time:1" of those kernels. The columns are a reference export's of the same GPU (ncu's
raw page), and so are the device's attributes where the counters file has none (the
tracer of this session's calls wrote none); the occupancy limits are left for gpulint to
compute from the trace, and the counters' values are in CUPTI's base units (an empty
units row).
usage: one_run_export.py TRACE.csv COUNTERS.csv REFERENCE.csv OUT.csv"""
import csv
import json
import os
import sys

trace_path, counters_path, reference_path, out_path = sys.argv[1:5]

launches, last_mangled = {}, {}
for row in csv.DictReader(l for l in open(trace_path, newline="") if not l.startswith("#")):
    # The mangled name is on a kernel's first row only.
    mangled = row["mangled"] or last_mangled.get(row["name"], row["name"])
    last_mangled[row["name"]] = mangled
    key = int(row["correlation"])
    if key not in launches:
        launches[key] = dict(row, mangled=mangled, number=len(launches) + 1)

counter_lines = open(counters_path, newline="").read().splitlines()
passes = next(l for l in counter_lines if l.startswith("# gpulint counters")).split("passes ")[1].split(",")[0]
counter_rows = list(csv.reader(l for l in counter_lines if not l.startswith("#")))
counter_names, counter_values = counter_rows[0][1:], counter_rows[1:]

reference = list(csv.reader(l for l in open(reference_path, newline="") if not l.startswith("==")))
header, reference_units, reference_row = reference[0], reference[1], reference[2]
column = {name: i for i, name in enumerate(header)}

units = ["" for _ in header]
for name, i in column.items():
    if name.startswith("device__attribute"):
        units[i] = reference_units[i]
rows, kernels = [], []
for n, values in enumerate(counter_values):
    launch = launches[int(values[0])]
    row = ["" for _ in header]
    for name, i in column.items():
        if name.startswith("device__attribute") or name in ("Device", "CC", "launch__sm_count"):
            row[i] = reference_row[i]
    block = [launch[f"block_{a}"] for a in "xyz"]
    grid = [launch[f"grid_{a}"] for a in "xyz"]
    threads = int(block[0]) * int(block[1]) * int(block[2])
    blocks = int(grid[0]) * int(grid[1]) * int(grid[2])
    given = {
        "ID": str(n),
        "Process ID": "1",
        "Kernel Name": launch["mangled"],
        "Block Size": f"({', '.join(block)})",
        "Grid Size": f"({', '.join(grid)})",
        "launch__block_size": str(threads),
        "launch__grid_size": str(blocks),
        "launch__thread_count": str(threads * blocks),
        "launch__registers_per_thread": launch["registers_per_thread"],
        # The trace has static and dynamic shared memory together.
        "launch__shared_mem_per_block_dynamic": launch["shared_memory_bytes"],
        "launch__shared_mem_per_block_static": "0",
        "profiler__replayer_passes": passes,
    }
    given.update(zip(counter_names, values[1:]))
    for name, value in given.items():
        if name in column:
            row[column[name]] = value
    rows.append(row)
    kernels.append(launch["mangled"])

with open(out_path, "w", newline="") as out:
    writer = csv.writer(out, quoting=csv.QUOTE_ALL)
    writer.writerow(header)
    writer.writerow(units)
    writer.writerows(rows)
stem = out_path[: -len(".csv")]
with open(stem + ".gpulint.json", "w") as out:
    json.dump({
        "format": 1,
        "launch_trace": os.path.relpath(trace_path, os.path.dirname(out_path) or "."),
        "sample": "by-time:1;" + ",".join(kernels),
        "kernel_filter": False,
    }, out, indent=2)
print(f"{len(rows)} profiled launches of {len(launches)}", file=sys.stderr)
