"""DRAM traffic under CUPTI's range profiler against ncu's, on the same first launches of
the same programs on one H100 (lab/runs/2026-12-05-range-profiler/: call 2's ncu raw
pages, call 3's tracer counters and traces): per kernel, ncu's DRAM throughput, the range
profiler's, a reads-only estimate from the range profiler's bytes, and the bytes read and
written by each. For #58's step 4: what the replay does to DRAM figures.
usage: python3 lab/scripts/corpus/dram_replay.py   (from the repository root)"""
import csv
import math

RUNS = "lab/runs/2026-12-05-range-profiler"


def number(row, metric):
    text = str(row.get(metric, "")).replace(",", "")
    try:
        return float(text)
    except ValueError:
        return math.nan


def ncu_rows(path):
    rows = list(csv.DictReader(l for l in open(path) if not l.startswith("==")))
    return {r["Kernel Name"]: r for r in rows[1:]}


def counters_rows(counters, trace):
    lines = open(counters).read().splitlines()
    rows = list(csv.reader(l for l in lines if not l.startswith("#")))
    mangled, last = {}, {}
    for r in csv.DictReader(l for l in open(trace) if not l.startswith("#")):
        name = r["mangled"] or last.get(r["name"])
        last[r["name"]] = name
        mangled[r["correlation"]] = name
    return {mangled[v[0]]: dict(zip(rows[0], v)) for v in rows[1:]}


for program in ["tf", "lud", "bfs"]:
    ncu = ncu_rows(f"{RUNS}/call2/{program}.ncu.csv")
    ranged = counters_rows(f"{RUNS}/call3/{program}.counters.csv", f"{RUNS}/call3/{program}.trace.csv")
    print(f"{program}: {len(set(ncu) & set(ranged))} kernels in both")
    for kernel in sorted(set(ncu) & set(ranged)):
        n, r = ncu[kernel], ranged[kernel]
        seconds = number(r, "gpu__time_duration.sum") * 1e-9
        peak = number(r, "dram__bytes.sum.peak_sustained") * number(r, "dram__cycles_elapsed.avg.per_second") * seconds
        reads_only = 100 * number(r, "dram__bytes_read.sum") / peak if peak else math.nan
        pct = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
        print(
            f"  {kernel[:28]:28} DRAM % ncu {number(n, pct):5.1f} range {number(r, pct):5.1f} "
            f"reads-only {reads_only:5.1f} | written ncu {number(n, 'dram__bytes_write.sum'):11.0f} "
            f"range {number(r, 'dram__bytes_write.sum'):11.0f} | read ncu "
            f"{number(n, 'dram__bytes_read.sum'):11.0f} range {number(r, 'dram__bytes_read.sum'):11.0f}"
        )
