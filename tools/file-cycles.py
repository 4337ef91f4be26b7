#!/usr/bin/env python3
"""file-cycles.py OBJDIR: prints each set of src/ files that call each other in a circle, from nm."""
import glob, os, subprocess, sys

defined, used = {}, {}
for obj in sorted(glob.glob(os.path.join(sys.argv[1], '*.o'))):
    name = os.path.basename(obj)[:-2]
    for line in subprocess.run(['nm', obj], capture_output=True, text=True, check=True).stdout.splitlines():
        f = line.split()
        if len(f) == 3 and f[1] in 'TDBRC':
            defined[f[2]] = name
        elif len(f) == 2 and f[0] == 'U':
            used.setdefault(name, set()).add(f[1])
calls = {a: {defined[s] for s in syms if defined.get(s, a) != a} for a, syms in used.items()}

# Tarjan's strongly connected components: every component of more than one file is a circle.
index, low, stack, on_stack, circles = {}, {}, [], set(), []
def visit(v):
    index[v] = low[v] = len(index)
    stack.append(v); on_stack.add(v)
    for w in sorted(calls.get(v, ())):
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on_stack:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on_stack.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            circles.append(sorted(comp))
for v in sorted(calls):
    if v not in index:
        visit(v)
for c in circles:
    print(' '.join(c))
