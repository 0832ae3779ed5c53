"""For lab/runs/2026-12-05-passes.txt, from the repository root: L1's global request counts
against the SASS counts of global load and store instructions, on every distinct
(kernel, op) value of the captures that carry both."""
import csv, glob
pairs = [('l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum','smsp__sass_inst_executed_op_global_ld.sum'),('l1tex__t_requests_pipe_lsu_mem_global_op_st.sum','smsp__sass_inst_executed_op_global_st.sum')]
def num(s):
    try: return float(s.replace(',', ''))
    except: return None
seen=set(); n=0; off=[]
for f in sorted(set(glob.glob('fixtures/**/*.csv', recursive=True)+glob.glob('../shared/ncu-captures/**/*.csv', recursive=True))):
    try: rows=list(csv.reader(open(f,newline='')))
    except Exception: continue
    if not rows: continue
    h=rows[0]
    for a,b in pairs:
        if a in h and b in h:
            ia,ib=h.index(a),h.index(b); k=h.index('Kernel Name') if 'Kernel Name' in h else 0
            for r in rows[1:]:
                if len(r)!=len(h): continue
                x,y=num(r[ia]),num(r[ib])
                if x is None or y is None: continue
                key=(r[k],a,x,y)
                if key in seen: continue
                seen.add(key); n+=1
                if x!=y: off.append((f.split('/')[-1],r[k][:50],a[-6:],x,y))
kernels=sorted({k[0][:40] for k in seen}); print(len(kernels), kernels)
print(n,'distinct (kernel, op) values;', len(off),'differ')
for o in off[:30]: print(o)
