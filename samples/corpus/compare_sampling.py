"""Compares two gpulint JSON reports of one program: the sample and every launch.
Prints the launches each profiled, the warnings (kernel, rule) each found, and the largest
difference in a kernel's share of GPU time, in points."""
import json
import os
import sys
from collections import defaultdict


def load(path):
    if not os.path.exists(path):
        return None
    text = open(path).read()
    start = text.find("{\n")  # the program's own output comes first in some runs
    return json.loads(text[start:]) if start >= 0 else None


def summary(report):
    shares = defaultdict(float)
    for k in report["kernels"]:
        shares[k["name"].split("(")[0]] += (k["share_of_gpu_time_pct"] or 0)
    warnings = sorted({(f["kernel"].split("(")[0], f["rule"])
                       for f in report["findings"] if f["severity"] != "info"})
    launches = sum(s["launch_count"] for s in report["sources"])
    return launches, warnings, shares


sample, every = load(sys.argv[1]), load(sys.argv[2])
s = summary(sample)
print(f"  sample: {s[0]} launches, warnings {s[1]}")
if every:
    a = summary(every)
    print(f"  all:    {a[0]} launches, warnings {a[1]}")
    worst = max(abs(s[2][k] - a[2][k]) for k in set(s[2]) | set(a[2]))
    print(f"  same warnings: {s[1] == a[1]}; largest share difference {worst:.1f} points")
    for k in sorted(a[2], key=lambda k: -a[2][k]):
        print(f"    {k}: {s[2][k]:.1f}% sampled, {a[2][k]:.1f}% all")
