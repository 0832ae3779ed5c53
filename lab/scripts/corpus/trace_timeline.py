"""Where a window's launches fall in time (#58): the launch trace's kernels in start order,
each function's first launch and its seconds from the first launch, and the launches in
each two seconds. Usage: python3 trace_timeline.py TRACE.csv > timeline.txt"""
import collections
import csv
import sys

rows = []
with open(sys.argv[1], newline="") as f:
    for row in csv.reader(line for line in f if not line.startswith("#")):
        if row and row[0] != "correlation":
            rows.append(row)
rows.sort(key=lambda r: int(r[3]))
t0 = int(rows[0][3])
print(f"{len(rows)} launches over {(int(rows[-1][4]) - t0) / 1e9:.2f} s of GPU timestamps")
seen = set()
for i, r in enumerate(rows):
    name = r[15] if len(r) > 15 and r[15] else r[13]
    if name not in seen:
        seen.add(name)
        print(f"first {i:6d} at {(int(r[3]) - t0) / 1e9:7.2f} s  {r[13][:70]}")
bins = collections.Counter((int(r[3]) - t0) // 2_000_000_000 for r in rows)
print("launches per 2 s:", " ".join(f"{2 * k}s:{bins[k]}" for k in sorted(bins)))
