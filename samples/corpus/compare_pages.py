"""Issues #37/#39: do two source pages (ncu --csv --page source --print-source cuda,sass, as
the source pass prints them) hold the same values in the columns gpulint reads? Compares
the CUDA-line rows (file, function, line) of page $1 and page $2, column by column, for
the counted columns (the sampled ones vary from run to run and are only checked present).
    usage: python3 compare_pages.py PAGE_A PAGE_B"""
import csv
import sys

COUNTED = ["Instructions Executed", "Divergent Branches", "L1 Conflicts Shared N-Way",
           "L2 Theoretical Sectors Global Excessive", "L2 Theoretical Sectors Global"]
SAMPLED = ["Warp Stall Sampling (All Samples)"]


def cuda_rows(path):
    """{(file, function, block, line): {column: value}} and the columns seen."""
    rows, header, file, function, block, seen = {}, None, "", "", 0, set()
    for rec in csv.reader(open(path, errors="replace")):
        if not rec:
            continue
        if rec[0] == "File Path":
            file = rec[1]
        elif rec[0] == "Function Name":
            function, block = rec[1], block + 1
        elif rec[0] == "Line No":
            header = rec
            seen.update(rec)
        elif header and rec[0].isdigit() and len(rec) == len(header):
            row = dict(zip(header, rec))
            rows[(file, function, block, rec[0])] = {c: row.get(c) for c in COUNTED}
    return rows, seen


a, seen_a = cuda_rows(sys.argv[1])
b, seen_b = cuda_rows(sys.argv[2])
for c in COUNTED + SAMPLED:
    print(f"{c}: {'A' if c in seen_a else '-'}{'B' if c in seen_b else '-'}")
common = set(a) & set(b)
differ = [(k, c, a[k][c], b[k][c]) for k in sorted(common) for c in COUNTED
          if c in seen_a and c in seen_b and a[k][c] != b[k][c]]
print(f"lines: {len(a)} in A, {len(b)} in B, {len(common)} in both; "
      f"{len(differ)} counted values differ")
for d in differ[:10]:
    print("  ", d)
