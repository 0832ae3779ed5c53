"""Does the first launch of each configuration say what all of them say? For each raw-page
capture that profiled every launch, keeps the first 1 and the first 3 launches of each
(kernel name, grid, block), lints each cut and the whole with gpulint, and compares their
warnings (severity above info). No GPU needed: it reads the captures in fixtures/.

    python3 lab/scripts/first_launches.py GPULINT CAPTURE.csv...
"""

import collections
import csv
import json
import os
import subprocess
import sys
import tempfile


def warnings(gpulint, path):
    out = subprocess.run(
        [gpulint, "check", path, "--format", "json", "--exit-zero"],
        capture_output=True, text=True, check=True,
    ).stdout
    return sorted({(f["rule"], f["kernel"][:50]) for f in json.loads(out)["findings"]
                   if f["severity"] != "info"})


def first_launches(rows, header, units, n, path):
    name, grid, block = (header.index(c) for c in ("Kernel Name", "Grid Size", "Block Size"))
    seen = collections.Counter()
    kept = []
    for r in rows:
        seen[(r[name], r[grid], r[block])] += 1
        if n is None or seen[(r[name], r[grid], r[block])] <= n:
            kept.append(r)
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(header)
        if units:
            w.writerow(units)
        w.writerows(kept)
    return len(kept)


def main():
    gpulint, captures = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        for capture in captures:
            lines = [l for l in open(capture, encoding="utf-8").read().split("\n") if l.startswith('"')]
            rows = list(csv.reader(lines))
            header = rows[0]
            units = rows[1] if rows[1][header.index("ID")] == "" else None
            data = rows[2:] if units else rows[1:]
            found = {}
            for n in (1, 3, None):
                path = os.path.join(tmp, f"first_{n}.csv")
                count = first_launches(data, header, units, n, path)
                found[n] = (count, warnings(gpulint, path))
            same = {n: found[n][1] == found[None][1] for n in (1, 3)}
            print(f"{os.path.basename(capture):32s} every launch {found[None][0]:5d}, "
                  f"first 3 {found[3][0]:4d}, first 1 {found[1][0]:4d}; same warnings: "
                  f"first 3 {same[3]}, first 1 {same[1]}")
            for n in (1, 3):
                if not same[n]:
                    print(f"    first {n}: {found[n][1]}\n    every:   {found[None][1]}")


main()
