#!/usr/bin/env python3
"""Writes the launch tracer's per-instruction counters (GPULINT_SASS_OUT's format) from an
ncu source page with SASS rows (--print-source cuda,sass), for tests that need the traced
run's counters of a kernel whose page is a fixture. On the H200 CUPTI's SASS metrics equal
the page's columns instruction for instruction (lab/runs/2026-12-04-sass-lines.txt), so
the page's SASS rows give the counts the tracer would write; each instruction's offset is
its address less the function's first.

usage: rows_from_page.py PAGE.csv MANGLED > ROWS.csv   (the page's first function only)
"""
import csv
import sys

COLUMNS = [
    ("smsp__sass_inst_executed", "Instructions Executed"),
    ("smsp__sass_sectors_mem_global", "L2 Theoretical Sectors Global"),
    ("smsp__sass_sectors_mem_global_ideal", "L2 Theoretical Sectors Global Ideal"),
    ("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared", "L1 Wavefronts Shared"),
    ("smsp__sass_l1tex_pipe_lsu_wavefronts_mem_shared_ideal", "L1 Wavefronts Shared Ideal"),
]


def sass_rows(page):
    """Each distinct SASS row of the page's first function: (offset, file, line, header,
    row), the offset its address less the function's first; also read by
    stall_rows_from_page.py."""
    file = header = line = base = None
    seen = set()
    with open(page, newline="") as f:
        for row in csv.reader(f):
            if not row:
                continue
            if row[0] == "File Path":
                file = row[1]
            elif row[0] == "Function Name" and header is not None:
                break
            elif row[0] == "Line No":
                header = row
            elif header and row[0].isdigit():
                line = int(row[0])
            elif header and row[0] == "" and row[2].startswith("0x"):
                address = int(row[2], 16)
                base = address if base is None else base
                if address not in seen:
                    seen.add(address)
                    yield address - base, file, line, header, row


def main():
    page, mangled = sys.argv[1], sys.argv[2]
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["function", "pc", "file", "line"] + [m for m, _ in COLUMNS])
    for offset, file, line, header, row in sass_rows(page):
        values = []
        for _, label in COLUMNS:
            text = row[header.index(label)] if label in header else "0"
            values.append(int(float(text.replace(",", ""))) if text not in ("-", "") else 0)
        out.writerow([mangled, offset, file, line] + values)


if __name__ == "__main__":
    main()
