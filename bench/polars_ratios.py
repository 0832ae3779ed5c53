"""The polars way to get gpulint's per-kernel numbers from an ncu raw-page export: the same
columns and the same per-kernel means as bench/pandas_ratios.py, multi-threaded, reading only
the columns it needs (as a careful user would). Prints the same JSON.

    python bench/polars_ratios.py EXPORT.csv > out.json
"""

import json
import sys

import polars as pl

from pandas_ratios import KEY, LIMITS, RATIOS, SECTORS, kernel_entry


def number(col):
    # ncu writes counters with thousands separators ("1,234"); "n/a" and "" are absent.
    return pl.col(col).str.replace_all(",", "").cast(pl.Float64, strict=False)


def main():
    path = sys.argv[1]
    counters = [c for pair in SECTORS.values() for c in pair]
    numeric = counters + list(RATIOS.values()) + list(LIMITS.values())
    wanted = KEY + numeric
    # Row 1 under the header is ncu's units row; every cell is read as text, then converted.
    df = pl.read_csv(
        path,
        columns=wanted,
        skip_rows_after_header=1,
        infer_schema=False,
    ).with_columns([number(c) for c in numeric])
    df = df.with_columns(
        [
            (pl.col(s) / pl.when(pl.col(r) > 0).then(pl.col(r))).alias(name)
            for name, (s, r) in SECTORS.items()
        ]
    )
    columns = list(SECTORS) + list(RATIOS.values()) + list(LIMITS.values())
    grouped = df.group_by(KEY, maintain_order=True).agg(
        [pl.col(c).mean() for c in columns] + [pl.len().alias("launches")]
    )
    # polars writes an absent mean as None; pandas and gpulint's comparison expect NaN.
    def value(row, col):
        return float("nan") if row[col] is None else row[col]

    out = [
        kernel_entry(
            tuple(row[k] for k in KEY), row["launches"], lambda col, row=row: value(row, col)
        )
        for row in grouped.iter_rows(named=True)
    ]
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
