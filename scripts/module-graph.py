#!/usr/bin/env python3
"""Prints which src/ modules use which, and any import cycle (top level and inside
src/ingest). tests/structure.rs runs it; run it from the repository root."""
import re,os,collections
deps=collections.defaultdict(set)
def mod_of(p):
    parts=p[4:-3].split('/')
    return parts[0]
for root,_,files in os.walk('src'):
    for f in files:
        if not f.endswith('.rs'): continue
        p=os.path.join(root,f); m=mod_of(p)
        if m in ('main','lib'): continue
        s=open(p).read()
        s=s.split('#[cfg(test)]')[0]
        s='\n'.join(l for l in s.split('\n') if not l.strip().startswith('//'))
        for t in re.findall(r'crate::(\w+)', s): 
            if t!=m: deps[m].add(t)
        for grp in re.findall(r'use crate::\{([^}]*)\}', s):
            for t in re.findall(r'(\w+)', grp):
                if t!=m and os.path.exists(f'src/{t}.rs') or os.path.isdir(f'src/{t}'): deps[m].add(t)
for m in sorted(deps): print(m,'->',' '.join(sorted(deps[m])))
# cycles
def cyc():
    out=[]
    for a in deps:
        for b in deps[a]:
            if a in deps.get(b,()): out.append((a,b))
    return out
import sys
def find_cycle(g):
    color={}
    stack=[]
    def dfs(u):
        color[u]=1; stack.append(u)
        for v in g.get(u,()):
            if color.get(v)==1: return stack[stack.index(v):]+[v]
            if v not in color:
                c=dfs(v)
                if c: return c
        color[u]=2; stack.pop(); return None
    for u in list(g):
        if u not in color:
            c=dfs(u)
            if c: return c
print('cycle:', find_cycle(deps))
# ingest submodules
sub=collections.defaultdict(set)
for f in os.listdir('src/ingest'):
    m=f[:-3]; s=open('src/ingest/'+f).read().split('#[cfg(test)]')[0]
    s='\n'.join(l for l in s.split('\n') if not l.strip().startswith('//'))
    for t in re.findall(r'(?:super|crate::ingest)::(\w+)', s):
        if os.path.exists(f'src/ingest/{t}.rs') and t!=m: sub[m].add(t)
    if re.search(r'(?:super|crate::ingest)::\{', s):
        for grp in re.findall(r'(?:super|crate::ingest)::\{([^}]*)\}', s):
            for t in re.findall(r'(\w+)', grp):
                if os.path.exists(f'src/ingest/{t}.rs') and t!=m: sub[m].add(t)
print('ingest:', dict(sub)); print('ingest cycle:', find_cycle(sub))

if find_cycle(deps) or find_cycle(sub):
    sys.exit(1)
