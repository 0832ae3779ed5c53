"""For lab/runs/2026-12-05-passes.txt, from the repository root: on every distinct launch of
the captures (fixtures/ and ../shared/ncu-captures/) that carry sm__throughput's sub-units,
how far sm__mio_inst_issued lies above the busiest of the others (never, if none is)."""
import csv, glob
parts = {'issue':'sm__inst_issued.avg.pct_of_peak_sustained_elapsed','lsu':'sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed','adu':'sm__inst_executed_pipe_adu.avg.pct_of_peak_sustained_elapsed','mio':'sm__mio_inst_issued.avg.pct_of_peak_sustained_elapsed','mio_pq':'sm__mio_pq_read_cycles_active.avg.pct_of_peak_sustained_elapsed','shared':'sm__pipe_shared_cycles_active.avg.pct_of_peak_sustained_elapsed','alu':'sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_elapsed','xu':'sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed','fp64':'sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_elapsed'}
def num(s):
    try: return float(s.replace(',', ''))
    except: return None
seen=set(); n=0; gaps=[]
for f in sorted(set(glob.glob('fixtures/**/*.csv', recursive=True)+glob.glob('../shared/ncu-captures/**/*.csv', recursive=True))):
    try: rows=list(csv.reader(open(f,newline='')))
    except Exception: continue
    if not rows or not all(p in rows[0] for p in parts.values()): continue
    h=rows[0]; idx={k:h.index(v) for k,v in parts.items()}; kn=h.index('Kernel Name') if 'Kernel Name' in h else 0
    for r in rows[1:]:
        if len(r)!=len(h): continue
        vals={k:num(r[i]) for k,i in idx.items()}
        if any(v is None for v in vals.values()): continue
        key=(r[kn],tuple(vals.values()))
        if key in seen: continue
        seen.add(key); n+=1
        rest=max(v for k,v in vals.items() if k!='mio')
        gaps.append((vals['mio']-rest, f.split('/')[-1], r[kn][:60], vals['mio'], rest))
gaps.sort(reverse=True)
print(n,'distinct launches; mio above the other parts on', sum(1 for g in gaps if g[0]>0))
for g in gaps[:6]: print('  %.2f'%g[0], g[1:])
