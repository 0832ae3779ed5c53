#!/usr/bin/env python3
"""Replays a recorded program's launches through the launch tracer's picks, without a GPU.

The tracer (built from src/profile/ncu/tracer/launch_tracer.cpp, or from the file given
with --tracer-source, or as committed at --rev) runs under the stand-in
driver and CUPTI of tests/tracer.rs. The driver replays a launch trace (gpulint's
*.trace.csv): each launch after its recorded gap, with its grid and kernel, and each
profiled launch takes --range-ms, as a range's replay passes do. The time before CUDA
starts (--start-ms) and from then to the first launch (--first-ms) are not in a trace:
they are the run's, measured on the device or inferred from where a real run's profiling
stopped. What it shows is the picks' policy on a real program's launch order and timing;
what a range costs and where the run's time goes are the model's inputs, not its output.

    lab/scripts/policy_replay.py TRACE.csv --start-ms 3000 --first-ms 11000 --range-ms 140 \
        [--watch wgrad_alg0_engine] [--rev REV | --tracer-source FILE] [--list]
"""
import argparse
import csv
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STAND_IN = os.path.join(ROOT, "tests", "stand-in", "cupti")


def launches(path):
    """The launches of the process with the most, in launch order."""
    by_process, process, header = {}, None, None
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("# gpulint launch trace"):
                process = line.split("process ")[1].split(",")[0]
                header = None
            elif line.startswith("#"):
                continue
            elif header is None:
                header = next(csv.reader([line]))
            else:
                row = dict(zip(header, next(csv.reader([line]))))
                by_process.setdefault(process, []).append(row)
    rows = max(by_process.values(), key=len)
    return sorted(rows, key=lambda r: int(r["correlation"]))


def build(work, tracer_source):
    def run(*args):
        subprocess.run(list(args), check=True)

    run("c++", "-shared", "-fPIC", "-O2", "-std=c++17", "-pthread", tracer_source, "-o",
        f"{work}/tracer.so", "-ldl")
    run("cc", "-shared", "-fPIC", "-O2", f"{STAND_IN}/fake_source.c",
        f"{STAND_IN}/fake_counters.c", f"{STAND_IN}/fake_cupti.c", "-o",
        f"{work}/libcupti-stand-in.so", "-ldl")
    run("cc", f"{STAND_IN}/fake_driver.c", "-o", f"{work}/driver", "-ldl")
    run("cc", "-shared", "-fPIC", "-Wl,-soname,libcuda.so.1", f"{STAND_IN}/fake_libcuda.c",
        "-o", f"{work}/libcuda.so.1", "-ldl")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("trace")
    p.add_argument("--start-ms", type=int, default=0)
    p.add_argument("--first-ms", type=int, default=0)
    p.add_argument("--range-ms", type=int, required=True)
    p.add_argument("--cap", default="100")
    p.add_argument("--watch", action="append", default=[])
    p.add_argument("--list", action="store_true", help="every profiled launch")
    p.add_argument("--take", type=int, help="the trace's first launches only (fewer steps)")
    p.add_argument("--tracer-source",
                   default=os.path.join(ROOT, "src/profile/ncu/tracer/launch_tracer.cpp"))
    p.add_argument("--rev", help="the tracer as committed at this revision (git show)")
    a = p.parse_args()
    rows = launches(a.trace)[: a.take]
    work = tempfile.mkdtemp(prefix="policy-replay-")
    try:
        return replay(a, rows, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def replay(a, rows, work):
    source = a.tracer_source
    if a.rev:
        folder = "src/profile/ncu/tracer"
        os.makedirs(f"{work}/{folder}")
        for name in ("launch_tracer.cpp", "launch_tracer_counters.inc",
                     "launch_tracer_sass.inc", "launch_tracer_stalls.inc"):
            text = subprocess.run(["git", "-C", ROOT, "show", f"{a.rev}:{folder}/{name}"],
                                  check=True, capture_output=True).stdout
            with open(f"{work}/{folder}/{name}", "wb") as f:
                f.write(text)
        source = f"{work}/{folder}/launch_tracer.cpp"
    build(work, source)
    script = os.path.join(work, "script.txt")
    with open(script, "w") as out:
        previous = None
        for i, r in enumerate(rows):
            start = int(r["start_ns"])
            wait = a.first_ms * 1000 if previous is None else max(0, (start - previous) // 1000)
            previous = start
            blocks = int(r["grid_x"]) * int(r["grid_y"]) * int(r["grid_z"])
            out.write(f"{wait} {blocks} {r['name']}\n")
    env = dict(os.environ)
    env.update({
        "CUDA_INJECTION64_PATH": f"{work}/tracer.so",
        "GPULINT_CUPTI": f"{work}/libcupti-stand-in.so",
        "FAKE_LIBCUDA": f"{work}/libcuda.so.1",
        "GPULINT_TRACE_OUT": f"{work}/trace.csv",
        "GPULINT_COUNTERS_OUT": f"{work}/counters.csv",
        "GPULINT_COUNTER_METRICS": "dram__bytes_read.sum",
        "GPULINT_COUNTER_LAUNCHES": a.cap,
        "FAKE_DRIVER_SCRIPT": script,
        "FAKE_DRIVER_START_MS": str(a.start_ms),
        "FAKE_REPLAY_MS": str(a.range_ms),
    })
    began = time.monotonic()
    subprocess.run([f"{work}/driver"], env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - began
    with open(f"{work}/counters.csv") as f:
        counted = f.read().splitlines()
    header = counted[0]
    # The stand-in gives the nth launch of a kernel other than its own correlation 100 + n.
    picked = [int(l.split(",")[0]) - 101 for l in counted[2:] if not l.startswith("#")]
    gpu = {}
    for r in rows:
        gpu[r["name"]] = gpu.get(r["name"], 0) + int(r["end_ns"]) - int(r["start_ns"])
    total = sum(gpu.values())
    profiled = {rows[i]["name"] for i in picked}
    firsts = {}
    for i, r in enumerate(rows):
        firsts.setdefault(r["name"], i)
    firsts_picked = sum(1 for i in picked if firsts[rows[i]["name"]] == i)
    print(f"{os.path.basename(a.trace)}: start {a.start_ms} ms, first launch {a.first_ms} ms,"
          f" range {a.range_ms} ms; {len(rows)} launches of {len(gpu)} kernels")
    print(f"  {header}")
    print(f"  wall {wall:.1f} s; {len(picked)} profiled ({firsts_picked} first launches), "
          f"last at launch {max(picked, default=-1)}; kernels profiled {len(profiled)} of "
          f"{len(gpu)}, {100 * sum(gpu[k] for k in profiled) / total:.1f}% of the GPU time")
    missed = sorted((k for k in gpu if k not in profiled), key=lambda k: -gpu[k])
    print("  not profiled, by GPU time: " + "; ".join(
        f"{k[:60]} {100 * gpu[k] / total:.1f}% (first at {firsts[k]})" for k in missed[:6]))
    if a.list:
        for i in picked:
            kind = "first" if firsts[rows[i]["name"]] == i else "again"
            print(f"    {i:6} {kind} {rows[i]['name'][:90]}")
    for w in a.watch:
        hits = [i for i in picked if w in rows[i]["name"]]
        print(f"  {w}: {'profiled at launch ' + str(hits) if hits else 'NOT profiled'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
