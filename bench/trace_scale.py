"""Trace benchmark (issue #58's long loops): `gpulint check` on a large launch trace, this
build against gpulint built at an earlier commit, side by side, in one run, on this
machine.

1. Builds a launch trace of about --launches launches by repeating the rows of a real one
   (fixtures/h200-by-time/default_transformer.trace.csv, a PyTorch transformer's 2,874
   launches on the H200), each copy shifted past the one before, with fresh correlation IDs:
   the shape of a `--window` run's trace, whose every launch every rule looks at.
2. Runs, interleaved over several rounds so drift hits both alike:
     gpulint check TRACE --format json             (this build)
     gpulint at REV check TRACE --format json      (a git worktree of REV, in target/bench/)
3. Checks that both give the same findings, and prints each one's median seconds and
   peak resident memory, and their ratios.

    python3 bench/trace_scale.py --against REV [--launches 300000] [--rounds 3]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scale import GPULINT, ROOT, build_at  # noqa: E402

SOURCE = os.path.join(ROOT, "fixtures", "h200-by-time", "default_transformer.trace.csv")


def build_trace(path, launches):
    """Repeats SOURCE's launch rows until `launches`; returns how many were written."""
    with open(SOURCE) as f:
        lines = f.read().splitlines()
    first, header = lines[0], lines[1]
    rows = [line for line in lines[2:] if line and not line.startswith("#")]
    columns = header.split(",")
    start_at, end_at = columns.index("start_ns"), columns.index("end_ns")
    starts = [int(r.split(",")[start_at]) for r in rows]
    ends = [int(r.split(",")[end_at]) for r in rows]
    span = max(ends) - min(starts) + 1000
    written = 0
    with open(path, "w") as out:
        out.write(first + "\n" + header + "\n")
        copy = 0
        while written < launches:
            for row in rows:
                cells = row.split(",", end_at + 1)
                cells[0] = str(written + 1)
                cells[start_at] = str(int(cells[start_at]) + copy * span)
                cells[end_at] = str(int(cells[end_at]) + copy * span)
                out.write(",".join(cells) + "\n")
                written += 1
                if written == launches:
                    break
            copy += 1
        out.write(lines[-1] + "\n")
    return written


def run(binary, trace, out_path):
    """Seconds and peak resident memory (MiB) of one check: the child's own rusage."""
    start = time.perf_counter()
    with open(out_path, "wb") as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([binary, "check", trace, "--format", "json", "--exit-zero"],
                                stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - start
        if proc.returncode != 0:
            err.seek(0)
            sys.exit(f"{binary} failed ({proc.returncode}): {err.read().decode(errors='replace')}")
    return seconds, usage.ru_maxrss / 1024


def findings(path):
    with open(path) as f:
        report = json.load(f)
    return sorted((f["kernel"], f["rule"], f["severity"], f["message"], f["launch_count"])
                  for f in report["findings"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", required=True, help="a commit to compare with")
    parser.add_argument("--launches", type=int, default=300_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    before = build_at(args.against)
    with tempfile.TemporaryDirectory() as scratch:
        trace = os.path.join(scratch, "trace.csv")
        n = build_trace(trace, args.launches)
        size = os.path.getsize(trace) / 2**20
        print(f"trace: {n} launches, {size:.0f} MiB, from {os.path.relpath(SOURCE, ROOT)}")
        times = {"this build": [], f"at {args.against}": []}
        memory = {name: [] for name in times}
        for round_ in range(args.rounds):
            for name, binary in [("this build", GPULINT), (f"at {args.against}", before)]:
                out = os.path.join(scratch, f"{round_}-{name.replace(' ', '_')}.json")
                seconds, mib = run(binary, trace, out)
                times[name].append(seconds)
                memory[name].append(mib)
        same = findings(os.path.join(scratch, "0-this_build.json")) == findings(
            os.path.join(scratch, f"0-at_{args.against}.json"))
        for name, t in times.items():
            print(f"{name:>16}: median {statistics.median(t):.2f} s  "
                  f"({', '.join(f'{x:.2f}' for x in t)}), peak memory "
                  f"{max(memory[name]):.0f} MiB")
        ours, theirs = (statistics.median(t) for t in times.values())
        ours_mib, theirs_mib = (max(m) for m in memory.values())
        print(f"ratio: this build takes {ours / theirs:.2f}x the time and "
              f"{ours_mib / theirs_mib:.2f}x the peak memory of {args.against}; "
              f"findings {'the same' if same else 'DIFFER'}")


if __name__ == "__main__":
    main()
