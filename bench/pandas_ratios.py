"""The pandas way to get gpulint's per-kernel numbers from an ncu raw-page export:
sectors per request and useful bytes per sector (loads and stores), and the occupancy
limiter, per kernel (name, grid, block). Written as a careful user would: only the
needed columns are read (`--all-columns` reads every column, as a first attempt does).

    python bench/pandas_ratios.py EXPORT.csv [--all-columns] > out.json
"""

import json
import sys

KEY = ["Kernel Name", "Grid Size", "Block Size"]
# Sectors per request, per launch, from the L1 counters (a --set full raw page has no
# ratio column for it), averaged per kernel as gpulint does.
SECTORS = {
    "sectors_per_request_ld": (
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    ),
    "sectors_per_request_st": (
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    ),
}
RATIOS = {
    "bytes_per_sector_ld": "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",
    "bytes_per_sector_st": "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio",
}
LIMITS = {
    "blocks": "launch__occupancy_limit_blocks",
    "registers": "launch__occupancy_limit_registers",
    "shared_mem": "launch__occupancy_limit_shared_mem",
    "warps": "launch__occupancy_limit_warps",
}


def kernel_entry(key, launches, value):
    """One kernel's JSON entry, as gpulint's JSON is compared with it: `key` is (name, grid,
    block), `value(column)` a per-kernel mean (NaN when absent). Shared with polars_ratios.py."""
    limits = {name: value(col) for name, col in LIMITS.items()}
    entry = {
        "name": key[0],
        "grid": key[1],
        "block": key[2],
        "launches": launches,
        "occupancy_limiter": min(limits, key=lambda k: limits[k]),
    }
    entry.update({name: value(name) for name in SECTORS})
    entry.update({name: value(col) for name, col in RATIOS.items()})
    return entry


def main():
    import pandas as pd  # here, so that bench/polars_ratios.py can share the columns

    path = sys.argv[1]
    all_columns = "--all-columns" in sys.argv[2:]
    counters = [c for pair in SECTORS.values() for c in pair]
    wanted = ["ID"] + KEY + counters + list(RATIOS.values()) + list(LIMITS.values())
    # Row 1 under the header is ncu's units row.
    df = pd.read_csv(
        path,
        skiprows=[1],
        usecols=None if all_columns else wanted,
        thousands=",",
        low_memory=False,
    )
    for col in counters + list(RATIOS.values()) + list(LIMITS.values()):
        df[col] = pd.to_numeric(df[col], errors="coerce")
    for name, (sectors, requests) in SECTORS.items():
        df[name] = df[sectors] / df[requests].where(df[requests] > 0)
    columns = list(SECTORS) + list(RATIOS.values()) + list(LIMITS.values())
    grouped = df.groupby(KEY, sort=False)
    means = grouped[columns].mean()
    counts = grouped.size()
    out = [
        kernel_entry(key, int(counts[key]), lambda col, row=row: row[col])
        for key, row in means.iterrows()
    ]
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
