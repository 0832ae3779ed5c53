"""Scale benchmark (issues #6, #29): gpulint against polars and pandas scripts, and against
gpulint built at an earlier commit, on one large raw-page export, side by side, in one run,
on this machine.

1. Builds a ~512 MiB raw-page CSV by replicating the rows of a real `--set full` H200
   export (fixtures/h200-zoo/full_raw_base.csv) with fresh launch IDs.
2. Runs, interleaved over several rounds so drift hits every contender alike:
     gpulint check FILE --format json            (default: one parsing thread per core)
     gpulint check FILE --format json --jobs 1   (what the second core buys)
     python bench/polars_ratios.py FILE          (only the needed columns, every core)
     python bench/pandas_ratios.py FILE          (only the needed columns; when pandas is
                                                  installed)
     python bench/pandas_ratios.py FILE --all-columns   (with --naive)
     gpulint at REV check FILE --format json     (with --against REV: a git worktree of
                                                  REV, built into target/bench/)
   and records wall time and peak RSS of each (GNU time's %M).
3. Checks that gpulint and polars agree on every kernel's ratios and launch count.
4. Prints throughput (MiB/s), peak RSS and the ratios against polars, pandas and REV.

    python3 bench/scale.py [--size-mib 512] [--rounds 3] [--against REV] [--naive] [--keep]

Needs polars (`pip install polars`), optionally pandas, GNU time (`apt-get install time`)
and a release build (`cargo build --release`, which this script runs).
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE = os.path.join(ROOT, "fixtures", "h200-zoo", "full_raw_base.csv")
GPULINT = os.path.join(ROOT, "target", "release", "gpulint")
TIME = "/usr/bin/time"  # GNU time (Debian package `time`)


def build_export(path, size_mib, source=SOURCE):
    """The header (and raw page's units row) of `source`, then its launch rows again and
    again, each copy's launch IDs renumbered after the last. Works for both pages."""
    with open(source, encoding="utf-8") as f:
        lines = [l for l in f.read().split("\n") if l.startswith('"')]
    details = "Metric Name" in lines[0]
    head = lines[:1] if details else lines[:2]
    rows = lines[len(head):]
    # Each row starts with its quoted ID: keep what follows it.
    ids = [int(r[1 : r.index('"', 1)].replace(",", "")) for r in rows]
    tails = [r[r.index('"', 1) + 1 :] for r in rows]
    per_copy = max(ids) + 1
    target = size_mib * 1024 * 1024
    written, copy = 0, 0
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(head) + "\n")
        while written < target:
            base = copy * per_copy
            for launch_id, tail in zip(ids, tails):
                line = f'"{base + launch_id}"{tail}\n'
                out.write(line)
                written += len(line)
            copy += 1
    return copy * per_copy


def measure(cmd, stdout_path):
    """Runs cmd with stdout to a file; returns (seconds, peak RSS in MiB).

    Peak RSS comes from GNU time: a child forked from this Python process would count
    Python's own pages until it execs, and wait4's ru_maxrss would report those."""
    rss_file = stdout_path + ".rss"
    with open(stdout_path, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.run(
            [TIME, "-f", "%M", "-o", rss_file] + cmd, stdout=out, stderr=subprocess.PIPE
        )
        seconds = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr.decode(errors='replace')}")
    with open(rss_file) as f:
        kib = int(f.read().split()[-1])
    os.remove(rss_file)
    return seconds, kib / 1024


def compare(gpulint_json, pandas_json):
    """Every kernel: same launch count, ratios within 1e-6, same occupancy limiter."""
    with open(gpulint_json) as f:
        g = json.load(f)
    with open(pandas_json) as f:
        p = json.load(f)

    def dim(d):
        return "(" + ", ".join(str(x) for x in d) + ")"

    ours = {(k["name"], dim(k["grid"]), dim(k["block"])): k for k in g["kernels"]}
    if len(ours) != len(p):
        return f"{len(ours)} kernels from gpulint, {len(p)} from pandas"
    limiters = ["blocks", "registers", "shared_mem", "warps"]
    for k in p:
        mine = ours.get((k["name"], k["grid"], k["block"]))
        if mine is None:
            return f"gpulint has no kernel {k['name']} {k['grid']} {k['block']}"
        if mine["launch_count"] != k["launches"]:
            return f"{k['name']}: {mine['launch_count']} vs {k['launches']} launches"
        m = mine["metrics"]
        for name in ["sectors_per_request_ld", "sectors_per_request_st",
                     "bytes_per_sector_ld", "bytes_per_sector_st"]:
            a, b = m.get(name), k[name]
            if a is None and b != b:  # both absent (NaN in pandas)
                continue
            if a is None or abs(a - b) > 1e-6 * max(1.0, abs(b)):
                return f"{k['name']}: {name} {a} vs {b}"
        ours_limiter = min(limiters, key=lambda n: m[f"limit_{n}"])
        if ours_limiter != k["occupancy_limiter"]:
            return f"{k['name']}: limiter {ours_limiter} vs {k['occupancy_limiter']}"
    return None


def build_at(rev):
    """gpulint built at `rev` (a commit or tag), in a git worktree under target/bench."""
    tree = os.path.join(ROOT, "target", "bench", f"tree-{rev}")
    if not os.path.isdir(tree):
        subprocess.run(["git", "worktree", "add", "--detach", tree, rev], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
    target = os.path.join(ROOT, "target", "bench", "rev-target")
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=tree, check=True,
                   env=dict(os.environ, CARGO_TARGET_DIR=target))
    return os.path.join(target, "release", "gpulint")


def have(module):
    try:
        __import__(module)
        return True
    except ImportError:
        return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--size-mib", type=int, default=512)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--naive", action="store_true", help="also pandas reading every column")
    ap.add_argument("--keep", action="store_true", help="keep the generated export")
    ap.add_argument("--against", metavar="REV", help="also gpulint built at this commit")
    args = ap.parse_args()

    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
    work = os.path.join(ROOT, "target", "bench")
    os.makedirs(work, exist_ok=True)
    export = os.path.join(work, f"scale_{args.size_mib}MiB.csv")
    launches = build_export(export, args.size_mib)
    size = os.path.getsize(export)
    mib = size / 2**20

    check = ["check", export, "--format", "json", "--exit-zero"]
    contenders = {
        "gpulint": [GPULINT] + check,
        "gpulint --jobs 1": [GPULINT] + check + ["--jobs", "1"],
        "polars (needed columns)": [sys.executable, os.path.join(ROOT, "bench", "polars_ratios.py"), export],
    }
    if args.against:
        contenders[f"gpulint at {args.against}"] = [build_at(args.against)] + check
    if have("pandas"):
        contenders["pandas (needed columns)"] = [sys.executable, os.path.join(ROOT, "bench", "pandas_ratios.py"), export]
    if args.naive:
        contenders["pandas (all columns)"] = contenders["pandas (needed columns)"] + ["--all-columns"]

    # Warm the page cache so every contender reads from memory, not disk.
    with open(export, "rb") as f:
        while f.read(1 << 24):
            pass

    results = {name: [] for name in contenders}
    outputs = {}
    for round_no in range(args.rounds):
        for name, cmd in contenders.items():
            out = os.path.join(work, name.replace(" ", "_").replace("(", "").replace(")", "") + ".json")
            seconds, rss = measure(cmd, out)
            results[name].append((seconds, rss))
            outputs[name] = out
            print(f"round {round_no + 1}: {name:<26} {seconds:7.2f} s  {rss:8.1f} MiB", flush=True)

    problem = compare(outputs["gpulint"], outputs["polars (needed columns)"])
    print()
    print(f"export: {mib:.0f} MiB, {launches} launches, 28 kernels x {launches // 28} repeats, "
          f"{SOURCE.split(os.sep)[-1]} rows")
    print(f"machine: {os.cpu_count()} cores ({platform.processor() or platform.machine()}), "
          f"{platform.system()} {platform.release()}, Python {platform.python_version()}, "
          f"polars {__import__('polars').__version__}"
          + (f", pandas {__import__('pandas').__version__}" if have("pandas") else ""))
    print(f"agreement on every kernel's ratios, launch count and limiter: "
          f"{'yes' if problem is None else 'NO: ' + problem}")
    print()
    print(f"{'contender':<26} {'median s':>9} {'MiB/s':>8} {'peak RSS MiB':>13}")
    summary = {}
    for name, runs in results.items():
        secs = statistics.median(s for s, _ in runs)
        rss = max(r for _, r in runs)
        summary[name] = (secs, rss)
        print(f"{name:<26} {secs:9.2f} {mib / secs:8.1f} {rss:13.1f}")
    print()
    others = [n for n in contenders if not n.startswith("gpulint")]
    if args.against:
        others.append(f"gpulint at {args.against}")
    for base in others:
        base_s, base_rss = summary[base]
        for name in ["gpulint", "gpulint --jobs 1"]:
            s, r = summary[name]
            # Each round's own ratio too: the machine is shared, and a round where only
            # one contender was disturbed shows in the spread.
            per_round = [p[0] / g[0] for g, p in zip(results[name], results[base])]
            print(f"{name}: {base_s / s:.2f}x {base}'s throughput "
                  f"(rounds: {', '.join(f'{x:.2f}x' for x in per_round)}), "
                  f"{r / base_rss:.2f} of its peak memory")
    if not args.keep:
        os.remove(export)
    if problem is not None:
        sys.exit(1)


if __name__ == "__main__":
    main()
