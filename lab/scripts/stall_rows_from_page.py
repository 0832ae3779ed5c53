#!/usr/bin/env python3
"""Writes the launch tracer's stall samples (GPULINT_STALL_OUT's format) from an ncu source
page with SASS rows and warp sampling (--print-source cuda,sass, SourceCounters), for tests
that need the traced run's samples of a kernel whose page is a fixture: each SASS row's
`stall_*` columns (not the "(Not Issued)" ones) under CUPTI's reason names, one row per
instruction and reason with samples; each instruction's offset is its address less the
function's first. The page samples one launch where the tracer samples the run: the
shares per line are what a test reads.

usage: stall_rows_from_page.py PAGE.csv MANGLED > ROWS.csv   (the page's first function only)
"""
import csv
import sys

from rows_from_page import sass_rows

# ncu's column suffix -> CUPTI's reason (smsp__pcsamp_warps_issue_stalled_*).
CUPTI = {
    "long_sb": "long_scoreboard",
    "short_sb": "short_scoreboard",
    "lg": "lg_throttle",
    "mio": "mio_throttle",
    "math": "math_pipe_throttle",
    "dispatch": "dispatch_stall",
    "no_inst": "no_instructions",
    "imc": "imc_miss",
    "tex": "tex_throttle",
    "sleep": "sleeping",
}


def main():
    page, mangled = sys.argv[1], sys.argv[2]
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["function", "pc", "file", "line", "reason", "samples"])
    for offset, file, line, header, row in sass_rows(page):
        for i, label in enumerate(header):
            if not label.startswith("stall_") or "(" in label:
                continue
            text = row[i].replace(",", "")
            samples = int(float(text)) if text not in ("-", "") else 0
            if samples:
                reason = label[len("stall_"):]
                name = "smsp__pcsamp_warps_issue_stalled_" + CUPTI.get(reason, reason)
                out.writerow([mangled, offset, file, line, name, samples])


if __name__ == "__main__":
    main()
