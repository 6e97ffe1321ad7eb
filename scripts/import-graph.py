#!/usr/bin/env python3
"""import-graph.py — the shape of logz's import graph, for docs/architecture.md
and restructuring notes: packages, import edges between logz packages, the
number of floors (the longest chain of imports) with that chain, and what
data, config and train reach (go list -deps, internal packages left out).

    /usr/bin/python3 scripts/import-graph.py [REPO_DIR]
"""
import functools, json, subprocess, sys

repo = sys.argv[1] if len(sys.argv) > 1 else "."
mod = "github.com/logz-ml/logz"
out = subprocess.run(["go", "list", "-json", "./..."], cwd=repo, capture_output=True, text=True, check=True).stdout
imports, dec, i = {}, json.JSONDecoder(), 0
while i < len(out):
    while i < len(out) and out[i].isspace():
        i += 1
    if i >= len(out):
        break
    p, i = dec.raw_decode(out, i)
    if "/scripts/" not in p["ImportPath"]:
        imports[p["ImportPath"]] = [x for x in p.get("Imports", []) if x.startswith(mod + "/")]

@functools.lru_cache(None)
def floors(p):
    return 1 + max([floors(q) for q in imports[p] if q in imports] or [0])

top = max(imports, key=floors)
chain = [top]
while [q for q in imports[chain[-1]] if q in imports]:
    chain.append(max((q for q in imports[chain[-1]] if q in imports), key=floors))
short = lambda p: p[len(mod) + 1:]
print(f"packages {len(imports)}, import edges {sum(map(len, imports.values()))}, floors {floors(top)}")
print("longest chain:", " → ".join(map(short, chain)))
for name in ["data", "config", "train"]:
    deps = subprocess.run(["go", "list", "-deps", "./" + name], cwd=repo, capture_output=True, text=True, check=True).stdout.split()
    up = [short(d) for d in deps if d.startswith(mod + "/") and not d.startswith(mod + "/internal") and d != f"{mod}/{name}"]
    print(f"go list -deps ./{name}: {' '.join(up) or '(nothing above internal)'}")
