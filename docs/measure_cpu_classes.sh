#!/usr/bin/env bash
# Measures the research-scale and reference training steps on each CPU class this machine can
# stand in for, side by side with PyTorch, in interleaved rounds (docs/performance.md, "Speed
# per CPU class"):
#
#   avx512   posformer's default kernels; PyTorch's OpenBLAS as it picks its kernels itself
#   avx2     POSFORMER_AVX512=0 (the AVX2 + FMA kernels); OPENBLAS_CORETYPE=Haswell
#   generic  POSFORMER_GEMM=blas (Go loops and gonum's pure-Go products: an x86 CPU without AVX2);
#            PyTorch without AVX too: OPENBLAS_CORETYPE=Nehalem (SSE kernels) and
#            ATEN_CPU_CAPABILITY=default (ATen's vector code without AVX)
#
# Every round runs, per class: `train bench` on the research-scale model (which measures the
# float32 product peak of posformer's kernels first, PEAK), PyTorch's step on it, then the
# reference model in both; then PyTorch's own sgemm peak (2048³ on 2 threads, best of 5) under
# the class's OpenBLAS core type. With a before-commit, its `train bench` runs too (avx512 and
# avx2 classes). Medians over the rounds and ratios go to $OUT/summary.md.
#
#   bash docs/measure_cpu_classes.sh [rounds] [before-commit]
#
# CLASSES (default "avx512 avx2 generic") picks the classes, OUT the output directory (default
# /tmp/posformer-classes), QUICK=1 makes every measurement a few steps (to check the script).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
BEFORE=${2:-}
CLASSES=${CLASSES:-avx512 avx2 generic}
OUT=${OUT:-/tmp/posformer-classes}
PY=/usr/bin/python3
REF=python/posformer_torch.py
mkdir -p "$OUT"
LOG=$OUT/log.txt
: >"$LOG"
export OMP_WAIT_POLICY=PASSIVE GLIBC_TUNABLES=glibc.malloc.trim_threshold=68719476736:glibc.malloc.mmap_max=0
$PY -c 'import torch' 2>/dev/null || { echo "measure: $PY cannot import torch: apt-get install -y python3-torch" >&2; exit 1; }
echo "# cpu $(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1), $(nproc) cores; avx512f: $(grep -qw avx512f /proc/cpuinfo && echo yes || echo no)" >>"$LOG"

go build -o "$OUT/posformer" ./cmd/train
if [ -n "$BEFORE" ]; then
  rm -rf "$OUT/before-src" && mkdir -p "$OUT/before-src"
  git archive "$BEFORE" | tar -x -C "$OUT/before-src"
  (cd "$OUT/before-src" && go build -o "$OUT/posformer-before" ./cmd/train)
fi

BIG_GO=(-layers 4 -d-model 256 -heads 8 -d-ff 1024 -len 128 -schemes sinusoidal -eval-lens "")
BIG_PT=(--layers 4 --d-model 256 --heads 8 --d-ff 1024 --seq 128 --pos sinusoidal)
BIG_STEPS=(-steps 6 -chunks 3 -warmup 1) BIG_STEPS_PT=(--steps 8 --warmup 2)
REF_GO=(-schemes sinusoidal -eval-lens "" -steps 30 -chunks 3 -warmup 3) REF_PT=(--steps 40 --warmup 5 --pos sinusoidal)
PEAK=(-peak 2048)
if [ "${QUICK:-0}" = 1 ]; then
  BIG_STEPS=(-steps 1 -chunks 1 -warmup 0) BIG_STEPS_PT=(--steps 2 --warmup 1)
  REF_GO=(-schemes sinusoidal -eval-lens "" -steps 2 -chunks 1 -warmup 1) REF_PT=(--steps 4 --warmup 2 --pos sinusoidal)
  PEAK=(-peak 256)
fi

# env CLASS: the environment of posformer (go) and of PyTorch (torch) on class CLASS.
go_env() { case $1 in avx512) echo ;; avx2) echo POSFORMER_AVX512=0 ;; generic) echo POSFORMER_GEMM=blas ;; esac; }
torch_env() { case $1 in avx512) echo ;; avx2) echo OPENBLAS_CORETYPE=Haswell ;; generic) echo OPENBLAS_CORETYPE=Nehalem ATEN_CPU_CAPABILITY=default ;; esac; }
tag() { sed -u "s/^/$1 /" | tee -a "$LOG" >&2; }
stamp() { echo "# $1 $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$LOG" >&2; }

for r in $(seq "$ROUNDS"); do
  for c in $CLASSES; do
    stamp "round $r $c"
    steps=("${BIG_STEPS[@]}")
    [ "$c" = generic ] && [ "${QUICK:-0}" != 1 ] && steps=(-steps 3 -chunks 3 -warmup 1)
    env $(go_env $c) "$OUT/posformer" bench "${BIG_GO[@]}" "${steps[@]}" "${PEAK[@]}" 2>/dev/null | grep -E '^(BENCH|PEAK|KERNELS)' | sed 's/^BENCH train/BENCH trainbig/' | tag "r$r $c go"
    env $(torch_env $c) $PY "$REF" bench "${BIG_PT[@]}" "${BIG_STEPS_PT[@]}" 2>&1 | grep '^RESULT' | sed 's/^RESULT/RESULT big/' | tag "r$r $c torch"
    if [ -n "$BEFORE" ] && [ "$c" != generic ]; then
      env $(go_env $c) "$OUT/posformer-before" bench "${BIG_GO[@]}" "${steps[@]}" 2>/dev/null | grep '^BENCH' | sed 's/^BENCH train/BENCH trainbig/' | tag "r$r $c before"
    fi
    env $(go_env $c) "$OUT/posformer" bench "${REF_GO[@]}" -peak 0 2>/dev/null | grep '^BENCH' | tag "r$r $c go"
    env $(torch_env $c) $PY "$REF" bench "${REF_PT[@]}" 2>&1 | grep '^RESULT' | tag "r$r $c torch"
    if [ -n "$BEFORE" ] && [ "$c" != generic ]; then
      env $(go_env $c) "$OUT/posformer-before" bench "${REF_GO[@]}" 2>/dev/null | grep '^BENCH' | tag "r$r $c before"
    fi
    env $(torch_env $c) $PY - <<'EOF' 2>&1 | tag "r$r $c torchpeak"
import time, torch
torch.set_num_threads(2)
a, b = torch.randn(2048, 2048), torch.randn(2048, 2048)
for _ in range(2):
    a @ b
best = 0
for _ in range(5):
    t0 = time.perf_counter()
    a @ b
    best = max(best, 2 * 2048**3 / (time.perf_counter() - t0) / 1e9)
print("PEAK sgemm=2048 GFLOP/s=%.1f" % best)
EOF
  done
done
stamp done

$PY - "$LOG" >"$OUT/summary.md" <<'EOF'
# Medians over the rounds per class: tok/s, GFLOP/s and fraction of each peak; ratios to PyTorch
# as the ratio of the medians and the median (range) of the per-round ratios.
import sys, statistics as st
from collections import defaultdict
v = defaultdict(dict)  # (class, impl, what, field) -> round -> value
for line in open(sys.argv[1]):
    f = line.split()
    if not f or f[0].startswith('#'):
        continue
    rnd, cls, impl, kind = f[0], f[1], f[2], f[3]
    kv = dict(w.split('=', 1) for w in f[4:] if '=' in w)
    if kind == 'PEAK':
        v[(cls, impl, 'peak', 'GFLOP/s')][rnd] = float(kv['GFLOP/s'])
        continue
    if kind == 'KERNELS':
        continue
    what = 'big' if (kind == 'BENCH' and f[4] == 'trainbig') or (kind == 'RESULT' and f[4] == 'big') else 'ref'
    for k in ('tok/s', 'GFLOP/s', 'ms/step'):
        if k in kv:
            v[(cls, impl, what, k)][rnd] = float(kv[k])
med = lambda d: st.median(d.values()) if d else float('nan')
def ratio(a, b):
    rs = sorted(a[r] / b[r] for r in a if r in b)
    return '%.2fx; %.2fx (%.2f–%.2f)' % (med(a) / med(b), st.median(rs), rs[0], rs[-1]) if rs else '–'
classes = []
for (c, *_ ) in v:
    if c not in classes:
        classes.append(c)
for c in classes:
    gp, tp = med(v[(c, 'go', 'peak', 'GFLOP/s')]), med(v[(c, 'torchpeak', 'peak', 'GFLOP/s')])
    print(f'\n### {c}\n\nsgemm peak: posformer {gp:.0f} GFLOP/s, OpenBLAS (PyTorch) {tp:.0f} GFLOP/s\n')
    print('| model | PyTorch tok/s (GFLOP/s) | posformer tok/s (GFLOP/s) | of posformer peak | of OpenBLAS peak | ratio to PyTorch: of medians; median per round (range) | before tok/s | after / before |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    for w, name in (('big', 'research scale'), ('ref', 'reference')):
        t, g, b = v[(c, 'torch', w, 'tok/s')], v[(c, 'go', w, 'tok/s')], v[(c, 'before', w, 'tok/s')]
        tg, gg = med(v[(c, 'torch', w, 'GFLOP/s')]), med(v[(c, 'go', w, 'GFLOP/s')])
        print(f'| {name} | {med(t):.0f} ({tg:.0f}) | {med(g):.0f} ({gg:.0f}) | {gg / gp:.2f} | {gg / tp:.2f} | {ratio(g, t)} | ' +
              (f'{med(b):.0f} | {ratio(g, b)} |' if b else '– | – |'))
EOF
cat "$OUT/summary.md"
