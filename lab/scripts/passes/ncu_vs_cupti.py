"""For lab/runs/2026-12-05-passes.txt, run from the repository root after setup.sh.
ncu's measured replay passes (profiler__replayer_passes) against CUPTI's host-side count
for the same metric set, one row per distinct set in the fixtures."""
import csv, glob, os, re, subprocess
SKIP = ('launch__', 'device__', 'derived__', 'profiler__', 'sm__maximum_warps', 'nvlink', 'c2clink__', 'pmsampling', 'numa__', 'gpc__cycles_elapsed.max', 'smsp__pcsamp', 'sass__', 'inst_executed', 'memory_', 'nvtx', 'gpu__time_duration_measured')
CHIP = {'h200': 'GH100', 'a100': 'GA100', 'l4': 'AD104', 'rtx4090': 'AD102', 't4': 'TU104'}
def passes(chip, ms):
    out = subprocess.run([os.environ.get('CUPTI_PASSES_DIR', '/tmp/cupti-passes') + '/cupti_passes', chip], input='\n'.join(ms) + '\n', capture_output=True, text=True, env={'ALL_ONLY': '1', 'LD_LIBRARY_PATH': os.environ.get('CUPTI_PASSES_DIR', '/tmp/cupti-passes') + '/nvidia/cu13/lib'})
    m = re.search(r'all \d+: (-?\d+) passes', out.stdout)
    return int(m.group(1)) if m else None, out.stderr.strip()[:120]
VALID = {}
def valid(chip, m):
    if (chip, m) not in VALID: VALID[(chip, m)] = passes(chip, [m])[0] not in (None, -1)
    return VALID[(chip, m)]
seen = {}
for f in sorted(glob.glob('fixtures/**/*.csv', recursive=True)):
    try: rows = list(csv.reader(open(f, newline='')))
    except Exception: continue
    if not rows or 'profiler__replayer_passes' not in rows[0]: continue
    h = rows[0]
    ncu = {r[h.index('profiler__replayer_passes')] for r in rows[2:] if len(r) == len(h)} - {'pass', ''}
    ms = tuple(sorted(x for x in h if '__' in x and not x.startswith(SKIP)))
    chip = next((v for k, v in CHIP.items() if k in f.split('/')[-1] or k in f.split('/')[-2]), 'GH100')
    key = (chip, ms)
    seen.setdefault(key, [set(), []]); seen[key][0] |= ncu; seen[key][1].append(f.split('fixtures/')[1])
for (chip, ms), (ncu, files) in sorted(seen.items(), key=lambda kv: kv[1][1][0]):
    ok = [m for m in ms if valid(chip, m)]
    p, err = passes(chip, ok)
    ms = ok
    print(f'{chip} {len(ms):4} metrics  ncu {sorted(ncu, key=float)}  cupti {p}  {files[0]} (+{len(files)-1}) {err if p is None else ""}')
