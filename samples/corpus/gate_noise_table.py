#!/usr/bin/env python3
"""The run-to-run spread of every gated metric in fixtures/h200-repeat (six captures of
each program by lab/scripts/corpus/gate_noise.sh), as gpulint's baselines summarise them:
per metric, the largest change from the first capture, absolute and relative, and where.
   usage: python3 samples/corpus/gate_noise_table.py [GPULINT]   (from the repository root)
"""
import collections, glob, json, os, subprocess, sys, tempfile

gl = sys.argv[1] if len(sys.argv) > 1 else "target/release/gpulint"
programs = sorted({os.path.basename(f).rsplit("_", 1)[0]
                   for f in glob.glob("fixtures/h200-repeat/*_[1-6].csv")} - {"pipeline_regressed"})
worst = collections.defaultdict(lambda: {"abs": 0.0, "rel": 0.0, "at_abs": "", "at_rel": ""})
with tempfile.TemporaryDirectory() as tmp:
    for p in programs:
        rounds = []
        for r in range(1, 7):
            out = os.path.join(tmp, f"{p}_{r}.json")
            subprocess.run([gl, "baseline", f"fixtures/h200-repeat/{p}_{r}.csv", "-o", out],
                           check=True, capture_output=True)
            rounds.append(json.load(open(out))["kernels"])
        for k, entry in rounds[0].items():
            for m, stat in entry["metrics"].items():
                base = stat["mean"]
                dev = max(abs(r[k]["metrics"][m]["mean"] - base) for r in rounds[1:] if k in r)
                rel = dev / abs(base) if base else 0.0
                w = worst[m]
                where = f"{p} {k.split('(')[0]}"
                if dev > w["abs"]:
                    w["abs"], w["at_abs"] = dev, where
                if rel > w["rel"]:
                    w["rel"], w["at_rel"] = rel, where
print(f"{len(programs)} programs x 6 captures: {', '.join(programs)}")
print(f"{'metric':28} {'largest change':>16} {'where':34} {'largest %':>10}  where")
for m in sorted(worst):
    w = worst[m]
    print(f"{m:28} {w['abs']:16.4f} {w['at_abs'][:34]:34} {w['rel'] * 100:9.2f}%  {w['at_rel']}")
