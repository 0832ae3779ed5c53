"""Findings of every raw H200 capture with columns dropped: does a metric cut change a verdict?
Usage: verdicts_without.py CANDIDATES FILES: CANDIDATES has one cut per line (metric names,
space-separated), FILES the captures (for the 2026-12-05 run: every CSV under fixtures/ and
../shared/ncu-captures/ that has sm__mio_inst_issued, found with grep -l). Warnings and
errors only, by kernel and rule."""
import csv, json, subprocess, sys, os, io, concurrent.futures as cf
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '../../..'))
GPULINT = ROOT + '/target/release/gpulint'
# files.txt: the captures to check, relative to the repository (one per line)
files = [ROOT + '/' + l.strip() for l in open(sys.argv[2])]
def findings(path, drop):
    with open(path, newline='') as f:
        rows = list(csv.reader(f))
    if not rows: return None
    keep = [i for i, h in enumerate(rows[0]) if h not in drop]
    buf = io.StringIO(); w = csv.writer(buf, quoting=csv.QUOTE_ALL)
    for r in rows: w.writerow([r[i] for i in keep if i < len(r)])
    p = subprocess.run([GPULINT, 'check', '--format', 'json', '-'], input=buf.getvalue(), capture_output=True, text=True)
    if p.returncode == 2: return ('error', p.stderr[:200])
    d = json.loads(p.stdout)
    return sorted({(x['kernel'], x['rule'], x['severity']) for x in d['findings'] if x['severity'] != 'info'})
def run(drop):
    out = {}
    with cf.ThreadPoolExecutor(2) as ex:
        for f, r in zip(files, ex.map(lambda f: findings(f, drop), files)): out[f] = r
    return out
if __name__ == '__main__':
    base = run(set())
    
    cands = [l.strip().split() for l in open(sys.argv[1]) if l.strip()]
    for c in cands:
        got = run(set(c))
        diff = [(f, sorted(set(map(tuple, base[f])) ^ set(map(tuple, got[f])))) for f in files if base[f] != got[f]]
        print(' '.join(c), '|', len(diff), 'files changed', flush=True)
        for f, d in diff[:8]: print('   ', f, d, flush=True)
