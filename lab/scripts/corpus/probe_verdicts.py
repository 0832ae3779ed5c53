"""Would gpulint judge the same from range_probe.cpp's counters as from ncu's? For each
kernel both profiled (its first launch), writes ncu's raw-page row twice: as ncu gave it
(NCU_OUT) and with every metric the probe measured put in ncu's place (PROBE_OUT); the
launch attributes (grid, block, registers, occupancy limits) stay ncu's on both, as the
tracer reads those itself. Then `gpulint check` both and compare the findings.
usage: probe_verdicts.py PROBE.csv NCU.csv NCU_OUT PROBE_OUT"""
import csv
import sys

probe_path, ncu_path, ncu_out, probe_out = sys.argv[1:5]
probe_rows = [r for r in csv.reader(open(probe_path, newline="")) if r and not r[0].startswith("#")]
header, probe = probe_rows[0], {}
for row in probe_rows[1:]:
    probe.setdefault(row[2], dict(zip(header, row)))
ncu_rows = list(csv.reader(l for l in open(ncu_path, newline="") if not l.startswith("==")))
names, units = ncu_rows[0], ncu_rows[1]
kernel_column = names.index("Kernel Name")
first = {}
for row in ncu_rows[2:]:
    first.setdefault(row[kernel_column], row)
shared = [k for k in first if k in probe]
measured = [m for m in header[4:] if m in names]
with open(ncu_out, "w", newline="") as a, open(probe_out, "w", newline="") as b:
    ncu_writer = csv.writer(a, quoting=csv.QUOTE_ALL)
    probe_writer = csv.writer(b, quoting=csv.QUOTE_ALL)
    for writer in (ncu_writer, probe_writer):
        writer.writerow(names)
        writer.writerow(units)
    for kernel in shared:
        row = first[kernel]
        ncu_writer.writerow(row)
        swapped = list(row)
        for m in measured:
            swapped[names.index(m)] = probe[kernel][m]
        probe_writer.writerow(swapped)
print(f"{len(shared)} kernels, {len(measured)} metrics from the probe", file=sys.stderr)
