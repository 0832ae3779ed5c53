"""For lab/runs/2026-12-05-passes.txt, from the repository root: ncu's sm__throughput against
the maximum of its sub-units, with all of them and without those DROP names (comma list,
default adu,mio), on every distinct launch of the `--set full` captures."""
import csv, glob, sys
import os
DROP = os.environ.get('DROP','adu,mio').split(',')
parts = {'issue':'sm__inst_issued.avg.pct_of_peak_sustained_elapsed','lsu':'sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed','adu':'sm__inst_executed_pipe_adu.avg.pct_of_peak_sustained_elapsed','mio':'sm__mio_inst_issued.avg.pct_of_peak_sustained_elapsed','mio_pq':'sm__mio_pq_read_cycles_active.avg.pct_of_peak_sustained_elapsed','shared':'sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed','alu':'sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_elapsed','xu':'sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed','fp64':'sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_elapsed'}
whole = 'sm__throughput.avg.pct_of_peak_sustained_elapsed'
def num(s):
    try: return float(s.replace(',', ''))
    except: return None
n = 0; worst = {}; argmax = {}
seen = set()
for f in sorted(set(glob.glob('fixtures/**/*.csv', recursive=True) + glob.glob('../shared/ncu-captures/**/*.csv', recursive=True))):
    try: rows = list(csv.reader(open(f, newline='')))
    except Exception: continue
    if not rows or whole not in rows[0] or not all(p in rows[0] for p in parts.values()): continue
    h = rows[0]; idx = {k: h.index(v) for k, v in parts.items()}; wi = h.index(whole)
    for r in rows[1:]:
        if len(r) != len(h): continue
        w = num(r[wi]); vals = {k: num(r[i]) for k, i in idx.items()}
        if w is None or any(v is None for v in vals.values()): continue
        key = (r[h.index('Kernel Name')] if 'Kernel Name' in h else '', round(w, 3), tuple(round(v, 3) for v in vals.values()))
        if key in seen: continue
        seen.add(key); n += 1
        full = max(vals.values()); cut = max(v for k, v in vals.items() if k not in DROP)
        top = max(vals, key=vals.get); argmax[top] = argmax.get(top, 0) + 1
        for name, m in (('all 9', full), ('without '+','.join(DROP), cut)):
            d = w - m
            worst.setdefault(name, []).append((d, f, key[0][:60], w, m))
print(n, 'distinct launches; sub-unit that is the maximum:', argmax)
for name, ds in worst.items():
    ds.sort(reverse=True)
    within = sum(1 for d in ds if abs(d[0]) <= 0.05)
    print(f'{name}: within 0.05 points of sm__throughput on {within} of {len(ds)}; largest gaps:')
    for d in ds[:5]: print('   %.2f' % d[0], d[1], d[2], 'ncu', d[3], 'ours', d[4])
