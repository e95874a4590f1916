#!/usr/bin/env python3
"""Per-op table of training steps from CPU profiles (docs/performance-log.md, "CPU classes").

    python3 docs/perf_ops.py STEPS NAME=BINARY:PROFILE[,PROFILE...] ...

Each NAME is a column: its profiles (of one test binary, e.g. the before and after builds of
`go test ./train -bench TrainStep -cpuprofile`) are read with `go tool pprof -top`, every
function's flat CPU time is put in a row by its name, and the column gives CPU milliseconds per
training step (the profiles' sum over STEPS times their count) and the share of the total.
"""
import re
import subprocess
import sys
from collections import defaultdict

ROWS = [  # (row, pattern on the function's name), first match wins
    ('matrix kernels (micro-kernels)', r'sgemmKernel|dgemmKernel|goKernel'),
    ('packing and copies (B panels, A blocks, memmove)', r'copyRows|packB|packA|copyA|packRows|memmove|bPacker'),
    ('matrix driver (Go: tiles, bias, sums)', r'gemmSerial|gemmBlocked|gemmSplit|gemmBias|gemmTN|addInto|colSumRows'),
    ('GELU forward and gradient', r'gelu'),
    ('attention: softmax, dS, row dots', r'softmax|expShiftSum|subMul8|rowDots|headDots|max8|scale8|attn'),
    ('residual additions, gradient sums', r'addv8|addKernel|Engine\)\.Add'),
    ('layer norm, column sums', r'lnFwd|lnGrad|lnRow|lnGamma|layerNorm|rowStats|colSum|sum8|sqdev8'),
    ('Adam', r'adam|Adam'),
    ('cross-entropy', r'crossEntropy|expFast|expRow'),
    ('embedding', r'embed|Embed|pick'),
    ('helpers polling, scheduling, time', r'^runtime\.|^time\.|helper|fanout|parallel'),
    ('Gorgonia tape and tensors', r'gorgonia|tensor\.'),
]


def profile_rows(binary, prof):
    out = subprocess.run(['go', 'tool', 'pprof', '-top', '-nodecount', '100000', binary, prof],
                         capture_output=True, text=True, check=True).stdout
    rows = defaultdict(float)
    for line in out.splitlines():
        m = re.match(r'\s*([\d.]+)(ms|s|us|µs)\s+[\d.]+%\s+[\d.]+%\s+[\d.]+\w+\s+[\d.]+%\s+(.+)$', line)
        if not m:
            continue
        t = float(m.group(1)) * {'s': 1000, 'ms': 1, 'us': 1e-3, 'µs': 1e-3}[m.group(2)]
        fn = m.group(3)
        row = next((r for r, p in ROWS if re.search(p, fn)), 'other')
        rows[row] += t
    return rows


def main():
    steps = int(sys.argv[1])
    cols = []
    for arg in sys.argv[2:]:
        name, spec = arg.split('=', 1)
        binary, profs = spec.split(':', 1)
        total = defaultdict(float)
        profs = profs.split(',')
        for p in profs:
            for r, t in profile_rows(binary, p).items():
                total[r] += t / steps / len(profs)
        cols.append((name, total))
    names = [r for r, _ in ROWS] + ['other']
    print('| where (CPU ms per step, share) | ' + ' | '.join(n for n, _ in cols) + ' |')
    print('| --- |' + ' ---: |' * len(cols))
    for r in names + ['total']:
        cells = []
        for _, t in cols:
            s = sum(t.values())
            v = s if r == 'total' else t.get(r, 0)
            cells.append('%.1f (%.0f%%)' % (v, 100 * v / s) if r != 'total' else '%.1f' % v)
        print('| %s | %s |' % (r, ' | '.join(cells)))


main()
