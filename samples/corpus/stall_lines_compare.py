#!/usr/bin/env python3
"""Compares stall_lines_probe.cpp's rows (the warps' stall samples per instruction and reason,
over a whole run) with ncu's source page of one launch per kernel: per kernel, the three
lines with the most stall samples in each, with their share and top reason.

usage: stall_lines_compare.py ROWS.csv PAGE.csv
"""
import csv
import re
import sys
from collections import Counter, defaultdict

SAMPLES = "Warp Stall Sampling (All Samples)"


def page_lines(path):
    """{kernel base name: Counter(line -> samples)} from the page's source rows."""
    out = defaultdict(Counter)
    function = header = None
    with open(path, newline="", errors="replace") as f:
        for row in csv.reader(line for line in f if line.startswith('"')):
            if row[0] == "Function Name":
                function = re.sub(r"^void ", "", row[1]).split("(")[0].split("<")[0]
            elif row[0] == "Line No":
                header = row
            elif header and row[0].isdigit() and SAMPLES in header:
                value = row[header.index(SAMPLES)].replace(",", "")
                if value not in ("", "-"):
                    out[function][int(row[0])] += float(value)
    return out


def probe_lines(path):
    """{mangled kernel: (Counter(line -> samples), {line: Counter(reason -> samples)})}."""
    lines = defaultdict(Counter)
    reasons = defaultdict(lambda: defaultdict(Counter))
    with open(path, newline="") as f:
        for row in list(csv.reader(f))[1:]:
            kernel, _pc, _file, line, reason, n = row
            lines[kernel][int(line)] += int(n)
            reasons[kernel][int(line)][reason] += int(n)
    return lines, reasons


def top(counter, k=3):
    total = sum(counter.values()) or 1
    return [(line, round(100 * n / total)) for line, n in counter.most_common(k)]


def main():
    page = page_lines(sys.argv[2])
    lines, reasons = probe_lines(sys.argv[1])
    for function, counted in sorted(page.items()):
        mine = [k for k in lines if function in k]
        if not mine:
            print(f"{function}: page {top(counted)}; probe none")
            continue
        probe = lines[mine[0]]
        why = {line: reasons[mine[0]][line].most_common(1)[0][0] for line, _ in top(probe)}
        print(f"{function}: page {top(counted)}; probe {top(probe)} {why}")


if __name__ == "__main__":
    main()
