"""The launch tracer's counters file (GPULINT_COUNTERS_OUT) in range_probe.cpp's form, so
that compare_values.py and probe_verdicts.py read it: each row's correlation id is looked
up in the trace written beside it for the launch's mangled name and its place among the
launches.
usage: counters_as_probe.py TRACE.csv COUNTERS.csv > PROBE_FORM.csv"""
import csv
import sys

launch_of, name_of, last_name = {}, {}, {}
for row in csv.DictReader(l for l in open(sys.argv[1], newline="") if not l.startswith("#")):
    # The mangled name is on a kernel's first row only.
    name = row["mangled"] or last_name.get(row["name"], row["name"])
    last_name[row["name"]] = name
    key = int(row["correlation"])
    name_of.setdefault(key, name)
    launch_of.setdefault(key, len(launch_of) + 1)
lines = [l for l in open(sys.argv[2], newline="") if not l.startswith("#")]
rows = list(csv.reader(lines))
out = csv.writer(sys.stdout)
out.writerow(["pick", "launch", "kernel", "seconds"] + rows[0][1:])
for pick, row in enumerate(rows[1:]):
    key = int(row[0])
    out.writerow([pick, launch_of.get(key, ""), name_of.get(key, "?"), ""] + row[1:])
