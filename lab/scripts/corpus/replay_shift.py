#!/usr/bin/env python3
"""How the range profiler's warm replay moves the figures a rule decides on: for each
kernel both ncu and the probe profiled (its first launch), gpulint's derived metrics from
ncu's row and from the same row with the probe's values put in (probe_verdicts.py writes
both), side by side, and how many kernels each figure moved down or up by over 10%.

    lab/scripts/corpus/probe_verdicts.py PROBE.csv NCU.csv NCU_OUT PROBE_OUT
    lab/scripts/corpus/replay_shift.py GPULINT METRIC,... NCU_OUT PROBE_OUT [NCU_OUT PROBE_OUT ...]
"""
import json
import subprocess
import sys


def kernels(gpulint, path):
    out = subprocess.run([gpulint, "check", "--exit-zero", "--format", "json", "--per-launch",
                          path], capture_output=True, text=True, check=True).stdout
    return {k["name"]: k["metrics"] for k in json.loads(out)["kernels"]}


def main():
    gpulint, keys, files = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
    moved = {k: [0, 0, 0] for k in keys}  # down, within 10%, up
    for ncu_path, probe_path in zip(files[::2], files[1::2]):
        ncu, probe = kernels(gpulint, ncu_path), kernels(gpulint, probe_path)
        for name in (n for n in ncu if n in probe):
            cells = []
            for k in keys:
                a, b = ncu[name].get(k), probe[name].get(k)
                cells.append(f"{k} {'-' if a is None else round(a, 2)} / "
                             f"{'-' if b is None else round(b, 2)}")
                if a and b is not None:
                    moved[k][0 if b < 0.9 * a else 2 if b > 1.1 * a else 1] += 1
            print(f"{ncu_path.rsplit('/', 1)[-1]}: {name[:48]}: " + "; ".join(cells))
    for k, (down, same, up) in moved.items():
        print(f"{k} (ncu / probe): down {down}, within 10% {same}, up {up}")


if __name__ == "__main__":
    main()
