#!/usr/bin/env python3
"""Compares sass_lines_probe.cpp's rows with ncu's source page of the same launches, line by
line (lab/scripts/corpus/sass_lines.sh): for each kernel and source line with a count in either,
the page's value and the probe's, per counter, and how many lines agree exactly.

usage: sass_lines_compare.py METRICS ROWS.csv PAGE.csv
  METRICS: the probe's metric names, comma-separated, in its columns' order (the launch
  tracer's rows name theirs: give "-").
"""
import csv
import re
import sys
from collections import defaultdict

# ncu's page column -> the SASS metric the probe collected for it.
COLUMNS = {
    "Instructions Executed": "smsp__sass_inst_executed",
    "Thread Instructions Executed": "smsp__sass_thread_inst_executed",
    "L2 Theoretical Sectors Global": "smsp__sass_sectors_mem_global",
    "L2 Theoretical Sectors Global Ideal": "smsp__sass_sectors_mem_global_ideal",
    "L1 Wavefronts Shared": "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared",
    "L1 Wavefronts Shared Ideal": "smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal",
    "Divergent Branches": "smsp__sass_branch_targets_threads_divergent",
}


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def page_lines(path):
    """{(kernel base name, file name, line): {column: value}} from the page's source rows."""
    out = {}
    file = function = None
    header = None
    with open(path, newline="", errors="replace") as f:
        for row in csv.reader(line for line in f if line.startswith('"')):
            if not row:
                continue
            if row[0] == "File Path":
                file = row[1].rsplit("/", 1)[-1]
            elif row[0] == "Function Name":
                function = re.sub(r"^void ", "", row[1]).split("(")[0].split("<")[0]
            elif row[0] == "Line No":
                header = row
            elif header and row[0].isdigit():
                values = {}
                for column in COLUMNS:
                    if column in header:
                        v = number(row[header.index(column)])
                        if v is not None:
                            values[column] = v
                out[(function, file, int(row[0]))] = values
    return out


def probe_lines(metrics, path):
    """The probe's rows summed per (mangled kernel, file name, line). The launch tracer's
    rows (GPULINT_SASS_OUT) name their metrics in a header, which replaces `metrics`."""
    out = defaultdict(lambda: defaultdict(float))
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if row[0] == "function":
                metrics[:] = row[4:]
                continue
            kernel, _pc, file, line = row[:4]
            for name, value in zip(metrics, row[4:]):
                out[(kernel, file.rsplit("/", 1)[-1], int(line))][name] += float(value)
    return out


def main():
    metrics = sys.argv[1].split(",")
    page = page_lines(sys.argv[3])
    probe = probe_lines(metrics, sys.argv[2])  # may replace `metrics` from its header
    agree = disagree = 0
    for (function, file, line), values in sorted(page.items()):
        matches = [k for k in probe if k[1] == file and k[2] == line and function in k[0]]
        mine = probe[matches[0]] if matches else {}
        cells = []
        for column, value in values.items():
            metric = COLUMNS[column]
            if metric not in metrics or (value == 0 and not mine.get(metric)):
                continue
            theirs = mine.get(metric, 0.0)
            same = theirs == value
            agree += same
            disagree += not same
            cells.append(f"{column}: page {value:.0f} probe {theirs:.0f}{'' if same else ' DIFFER'}")
        if cells:
            print(f"{function} {file}:{line}: " + "; ".join(cells))
    print(f"cells agreeing: {agree}, differing: {disagree}")


if __name__ == "__main__":
    main()
