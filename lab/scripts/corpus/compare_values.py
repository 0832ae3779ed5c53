"""range_probe.cpp's metric values against ncu's raw page for the same launches (the first
of each kernel), kernel by kernel (mangled names on both sides).
usage: compare_values.py PROBE.csv NCU.csv"""
import csv
import sys


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


probe_rows = [r for r in csv.reader(open(sys.argv[1], newline="")) if r and not r[0].startswith("#")]
header, probe = probe_rows[0], {}
for row in probe_rows[1:]:
    probe.setdefault(row[2], dict(zip(header, row)))
ncu_rows = list(csv.reader(l for l in open(sys.argv[2], newline="") if not l.startswith("==")))
names = ncu_rows[0]
ncu = {}
for row in ncu_rows[1:]:
    values = dict(zip(names, row))
    if number(values.get("ID", "")) is not None:
        ncu.setdefault(values["Kernel Name"], values)
metrics = [m for m in header[4:] if m in names]
compared, within_1, within_10, gaps = 0, 0, 0, []
for kernel in sorted(set(probe) & set(ncu)):
    for m in metrics:
        a, b = number(probe[kernel][m]), number(ncu[kernel][m])
        if a is None or b is None:
            continue
        compared += 1
        gap = 0.0 if a == b else abs(a - b) / max(abs(a), abs(b))
        within_1 += gap <= 0.01
        within_10 += gap <= 0.10
        gaps.append((gap, kernel[:40], m, a, b))
gaps.sort(reverse=True)
for g in gaps[:25]:
    print(f"{g[0]:7.1%}  {g[1]}  {g[2]}  probe {g[3]:.6g}  ncu {g[4]:.6g}")
print(f"kernels: probe {len(probe)}, ncu {len(ncu)}, both {len(set(probe) & set(ncu))}")
print(f"metrics compared: {len(metrics)} of the probe's {len(header) - 4}")
seconds = [s for s in (number(r["seconds"]) for r in probe.values()) if s is not None]
print(f"probe seconds a profiled launch: {min(seconds):.4f}-{max(seconds):.4f}" if seconds else "no launch profiled")
print(f"values: {compared}; within 1%: {within_1}; within 10%: {within_10}")
