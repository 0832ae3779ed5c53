"""The waiting in a gpulint launch trace, computed apart from gpulint: each gap between a
kernel's start and the end of the kernels before it on the device, counted when it is
at most 100 us (gpulint's LAUNCH_WAIT_CAP_NS: longer gaps are the host's own work), over
waiting plus busy time. tests/run.rs holds gpulint's launch-bound numbers to these.
    usage: python3 lab/scripts/trace_waits.py TRACE.csv"""
import csv
import sys

CAP_NS = 100_000
rows = []
for line in open(sys.argv[1]):
    if line.startswith("#") or line.startswith("correlation"):
        continue
    r = next(csv.reader([line]))
    rows.append((int(r[0]), int(r[3]), int(r[4])))
rows.sort()
wait = busy = 0
end = None
for _, start, stop in rows:
    busy += stop - start
    if end is not None and 0 < start - end <= CAP_NS:
        wait += start - end
    end = stop if end is None else max(end, stop)
print(f"{len(rows)} launches, waiting {wait / 1e6:.2f} ms, {100 * wait / (wait + busy):.2f}% of the active time")
