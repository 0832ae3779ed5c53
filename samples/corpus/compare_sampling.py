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
        # Reports before the vocabulary change said share_of_gpu_time, a fraction.
        pct = k.get("share_of_gpu_time_pct", 100 * (k.get("share_of_gpu_time") or 0))
        shares[k["name"].split("(")[0]] += pct or 0
    warnings = sorted({(f["kernel"].split("(")[0], f["rule"])
                       for f in report["findings"] if f["severity"] != "info"})
    launches = sum(s.get("launch_count", s.get("launches", 0)) for s in report["sources"])
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
