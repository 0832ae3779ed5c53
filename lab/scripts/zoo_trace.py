#!/usr/bin/env python3
"""A launch trace for the zoo capture (fixtures/h200-zoo/full_raw_base.csv), for tests of
what gpulint run does with a trace: each launch's shape, registers and duration from the
raw page, in ID order, 5 us apart; mangled names from g++ on the same signatures (the zoo
was not run under the launch tracer). Writes fixtures/h200-zoo/derived_trace.csv.
  usage: python3 lab/scripts/zoo_trace.py   (from the repository root; needs g++ and nm)"""
import csv, re, subprocess, tempfile, os

raw = list(csv.reader(open("fixtures/h200-zoo/full_raw_base.csv")))
head, rows = raw[0], raw[2:]
ix = {c: i for i, c in enumerate(head)}
num = lambda row, c: int(float(row[ix[c]].replace(",", "")))
names = sorted({r[ix["Kernel Name"]] for r in rows})
# One C++ declaration per signature; its mangled name from the object's symbols.
src, decls = ["struct Particle; struct float4; struct double2;"], {}
for n in names:
    m = re.match(r"(?:void )?(\w+)(?:<(\d+)>)?\((.*)\)$", n)
    ident, targ, params = m.groups()
    if targ:
        template = f"template<int N> void {ident}({params}) {{}}"
        if template not in src:
            src.append(template)
        src.append(f"template void {ident}<{targ}>({params});")
    else:
        src.append(f"void {ident}({params}) {{}}")
with tempfile.TemporaryDirectory() as d:
    open(f"{d}/k.cpp", "w").write("\n".join(src) + "\n")
    subprocess.run(["g++", "-c", f"{d}/k.cpp", "-o", f"{d}/k.o"], check=True)
    symbols = subprocess.run(["nm", "--defined-only", f"{d}/k.o"], capture_output=True, text=True).stdout.split()
    mangled = [s for s in symbols if s.startswith("_Z")]
    demangled = subprocess.run(["c++filt"] + mangled, capture_output=True, text=True).stdout.splitlines()
by_sig = {}
for m, dm in zip(mangled, demangled):
    # c++filt writes `float const*` where ncu writes `const float *`.
    dm = re.sub(r"((?:unsigned )?\w+) const\*", r"const \1*", re.sub(r"^void ", "", dm))
    by_sig[re.sub(r"\s+", "", dm)] = m
out = open("fixtures/h200-zoo/derived_trace.csv", "w", newline="")
out.write("# gpulint launch trace 1, process 1, dropped records: 0\n")
w = csv.writer(out, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
w.writerow("correlation,device,stream,start_ns,end_ns,grid_x,grid_y,grid_z,block_x,block_y,block_z,registers_per_thread,shared_memory_bytes,name,launched_from,mangled".split(","))
t = 1_000_000_000
for k, r in enumerate(rows, 1):
    n = r[ix["Kernel Name"]]
    key = re.sub(r"\s+", "", n.replace("void ", ""))
    dur = num(r, "gpu__time_duration.sum")
    shape = [num(r, c) for c in ("launch__grid_dim_x", "launch__grid_dim_y", "launch__grid_dim_z", "launch__block_dim_x", "launch__block_dim_y", "launch__block_dim_z", "launch__registers_per_thread")]
    smem = num(r, "launch__shared_mem_per_block_static") if "launch__shared_mem_per_block_static" in ix else 0
    w.writerow([k, 0, 7, t, t + dur, *shape, smem, n, "/work/zoo/zoo", by_sig[key]])
    t += dur + 5_000
print("wrote fixtures/h200-zoo/derived_trace.csv:", len(rows), "launches")
