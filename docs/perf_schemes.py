#!/usr/bin/env python3
"""perf_schemes.py DIR: the per-scheme table of docs/measure_schemes.sh's outputs, before → after (or after alone), per path. Each
measurement is a median over chunks; on a machine other jobs load, a slow chunk is interference,
so each figure here is the best (smallest time) of a scheme's measurements over the rounds (and
none's three a round), and a ratio is the scheme's best over none's best at the same length."""
import glob, os, re, sys
D = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
def load(pat):
    out = {}  # (scheme, T) -> list of (ms per step or per pass, alloc MB)
    for f in sorted(glob.glob(os.path.join(D, pat))):
        for line in open(f):
            m = re.match(r"BENCH train scheme=(\S+) tok/s=\d+ ms/step=([\d.]+) alloc_MB/step=([\d.]+)", line)
            if m:
                out.setdefault((m[1], 0), []).append((float(m[2]), float(m[3])))
                continue
            m = re.match(r"BENCH eval scheme=(\S+) T=(\d+) tok/s=(\d+)", line)
            if m:
                out.setdefault((m[1], int(m[2])), []).append((1e3 / float(m[3]), 0.0))  # ms per 1000 tokens
    return out
def best(d, s, T):
    xs = d.get((s, T))
    return min(x[0] for x in xs) if xs else None
def ratio(d, s, T):
    b, n = best(d, s, T), best(d, "none", T)
    return b / n if b and n else None
def f(x, p=2):
    return "–" if x is None else f"{x:.{p}f}"
order = []
for line in open(os.path.join(D, "after.avx512.len64.r1.out")):
    m = re.match(r"BENCH (?:train|eval) scheme=(\S+)", line)
    if m and m[1] not in order:
        order.append(m[1])
for path in ("avx512", "avx2"):
    b, a = load(f"before.{path}.len64.r*.out"), load(f"after.{path}.len64.r*.out")
    b2, a2 = load(f"before.{path}.len256.out"), load(f"after.{path}.len256.out")
    n = len(glob.glob(os.path.join(D, f"after.{path}.len64.r*.out")))
    print(f"\n{path} ({n} rounds): best of the rounds; ratio to none's best at the same length, before → after\n")
    print("| scheme | step ms (T 64) | ratio | MB/step | eval T 256 | eval T 1024 | step T 256 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for s in order:
        if (s, 0) in a:
            mb = lambda d: min(x[1] for x in d[(s, 0)]) if (s, 0) in d else None
            c = [f"{f(best(b,s,0),1)} → {f(best(a,s,0),1)}", f"{f(ratio(b,s,0))} → **{f(ratio(a,s,0))}**", f"{f(mb(b))} → {f(mb(a))}"]
        else:
            c = ["(evaluation only)", "", ""]
        c += [f"{f(ratio(b,s,T))} → **{f(ratio(a,s,T))}**" for T in (256, 1024)]
        c.append(f"{f(ratio(b2,s,0))} → **{f(ratio(a2,s,0))}**" if (s, 0) in a2 else "")
        print(f"| {s} | " + " | ".join(c) + " |")
    for name, d, d2 in (("before", b, b2), ("after", a, a2)):
        if best(d, "none", 0):
            print(f"\nnone {name}: step {f(best(d,'none',0))} ms (T 64), {f(best(d2,'none',0))} ms (T 256); eval {f(1e3/best(d,'none',256),0)} and {f(1e3/best(d,'none',1024),0)} tok/s at T 256 and 1024")
