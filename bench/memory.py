"""Peak memory against input size (issue #6): gpulint's peak RSS must not grow with the
export. Builds raw-page and details-page exports of several sizes from the zoo's real
H200 captures (bench/scale.py's generator), runs `gpulint check --format json` on each,
and prints wall time and peak RSS (GNU time's %M). `--distinct-mib N` adds the worst
case for folding: a raw export of N MiB in which every launch is a different kernel.

    python3 bench/memory.py [--sizes-mib 64,512,2048] [--distinct-mib 64]
"""

import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scale  # noqa: E402

PAGES = {
    "raw": os.path.join(scale.ROOT, "fixtures", "h200-zoo", "full_raw_base.csv"),
    "details": os.path.join(scale.ROOT, "fixtures", "h200-zoo", "full_details.csv"),
}


def build_distinct(path, size_mib):
    """The raw rows again and again, each launch renamed `k<ID>_<name>`: nothing folds."""
    with open(PAGES["raw"], encoding="utf-8") as f:
        lines = [l for l in f.read().split("\n") if l.startswith('"')]
    head, rows = lines[:2], [r.split('","') for r in lines[2:]]
    name = head[0].split('","').index("Kernel Name")
    written, launch = 0, 0
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(head) + "\n")
        while written < size_mib * 2**20:
            for fields in rows:
                fields = list(fields)
                fields[0] = f'"{launch}'
                fields[name] = f"k{launch}_{fields[name]}"
                line = '","'.join(fields) + "\n"
                out.write(line)
                written += len(line)
                launch += 1
    return launch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes-mib", default="64,512,2048")
    ap.add_argument("--distinct-mib", type=int, default=0)
    args = ap.parse_args()
    subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=scale.ROOT, check=True)
    work = os.path.join(scale.ROOT, "target", "bench")
    os.makedirs(work, exist_ok=True)
    print(f"{'page':<8} {'size MiB':>9} {'launches':>9} {'seconds':>8} {'MiB/s':>7} {'peak RSS MiB':>13}")
    for page, source in PAGES.items():
        for size_mib in (int(s) for s in args.sizes_mib.split(",")):
            export = os.path.join(work, f"memory_{page}_{size_mib}MiB.csv")
            launches = scale.build_export(export, size_mib, source)
            mib = os.path.getsize(export) / 2**20
            cmd = [scale.GPULINT, "check", export, "--format", "json", "--exit-zero"]
            seconds, rss = scale.measure(cmd, os.path.join(work, "memory.json"))
            print(f"{page:<8} {mib:9.0f} {launches:9d} {seconds:8.2f} {mib / seconds:7.1f} {rss:13.1f}", flush=True)
            os.remove(export)
    if args.distinct_mib:
        export = os.path.join(work, "memory_distinct.csv")
        launches = build_distinct(export, args.distinct_mib)
        mib = os.path.getsize(export) / 2**20
        cmd = [scale.GPULINT, "check", export, "--format", "json", "--exit-zero"]
        seconds, rss = scale.measure(cmd, os.path.join(work, "memory.json"))
        # "distinct": the raw page with every launch a different kernel.
        print(f"{'distinct':<8} {mib:9.0f} {launches:9d} {seconds:8.2f} {mib / seconds:7.1f} {rss:13.1f}", flush=True)
        os.remove(export)


if __name__ == "__main__":
    main()
