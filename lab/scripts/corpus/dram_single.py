"""dram1's question: the range profiler asked for DRAM metrics alone (one pass, no replay)
against ncu with the same list on the same launches (the first of each kernel), per
kernel: DRAM throughput (% of peak), bytes written and read, unflushed and flushed
(PROBE_FLUSH=1: a copy; 2: a kernel), and how many kernels land on the same side of latency-bound's 40% bar.
usage: python3 lab/scripts/corpus/dram_single.py RESULTS_DIR   (dram1's and dram2's files:
NAME.ncu_dram.csv, NAME.dram0.csv, NAME.dram1.csv, NAME.dram2.csv (flushed by a kernel),
tf.dram_skip.csv, tf.dram2_skip.csv)"""
import csv
import math
import sys

PCT = "dram__throughput.avg.pct_of_peak_sustained_elapsed"
BAR = 40.0


def number(text):
    try:
        return float(str(text).replace(",", ""))
    except ValueError:
        return math.nan


def probe(path):
    rows = [r for r in csv.reader(open(path, newline="")) if r and not r[0].startswith("#")]
    values = {}
    for row in rows[1:]:
        values.setdefault(row[2], dict(zip(rows[0], row)))
    return values


def ncu(path):
    rows = list(csv.reader(l for l in open(path, newline="") if not l.startswith("==")))
    values = {}
    for row in rows[1:]:
        named = dict(zip(rows[0], row))
        if not math.isnan(number(named.get("ID", ""))):
            values.setdefault(named["Kernel Name"], named)
    return values


results = sys.argv[1]
for name in ["tf", "lud", "bfs"]:
    try:
        reference = ncu(f"{results}/{name}.ncu_dram.csv")
    except OSError:
        continue
    runs = {"unflushed": f"{name}.dram0.csv", "flushed": f"{name}.dram1.csv",
            "flushed by a kernel": f"{name}.dram2.csv"}
    if name == "tf":
        runs["2nd launch, flushed"] = "tf.dram_skip.csv"
        runs["2nd launch, flushed by a kernel"] = "tf.dram2_skip.csv"
    for label, file in runs.items():
        try:
            ranged = probe(f"{results}/{file}")
        except OSError:
            print(f"{name} {label}: no file")
            continue
        both = sorted(set(reference) & set(ranged))
        within, same_side, gaps = 0, 0, []
        for kernel in both:
            a, b = number(ranged[kernel][PCT]), number(reference[kernel][PCT])
            within += abs(a - b) <= 5.0
            same_side += (a < BAR) == (b < BAR)
            gaps.append((abs(a - b), kernel, a, b))
        print(f"{name} {label}: {len(both)} kernels; DRAM % within 5 points of ncu's: {within}; "
              f"same side of {BAR:.0f}%: {same_side}")
        for gap, kernel, a, b in sorted(gaps, reverse=True)[:6]:
            r, n = ranged[kernel], reference[kernel]
            print(f"  {kernel[:36]:36} DRAM % {a:5.1f} ncu {b:5.1f} | written "
                  f"{number(r['dram__bytes_write.sum']):11.0f} ncu {number(n['dram__bytes_write.sum']):11.0f}"
                  f" | read {number(r['dram__bytes_read.sum']):11.0f} ncu {number(n['dram__bytes_read.sum']):11.0f}")
