#!/usr/bin/env bash
# Re-measures the tables of docs/performance.md on this machine: interleaved rounds of
# posformer's `train bench` (pure-Go build and -tags openblas build) and the PyTorch model
# (python/posformer_torch.py bench), then how a training step scales with sequence length and
# d_model, then a summary (medians over the rounds, ratios to PyTorch).
#
#   bash docs/measure_performance.sh [rounds] [before-commit]
#
# rounds defaults to 5. With a before-commit, its `train bench` also runs in the odd rounds (it
# must have the bench command). Needs Debian's python3-torch and libopenblas-dev (apt-get install
# -y python3-torch libopenblas-dev). OUT is the output directory (default /tmp/posformer-perf: log.txt, the raw lines; summary.md, the tables),
# SCALING=0 skips the scaling pairs, QUICK=1 makes every measurement a few steps (to check that
# the script works, not to measure). Takes about 7 minutes on 2 cores with the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
BEFORE=${2:-}
REF=python/posformer_torch.py
OUT=${OUT:-/tmp/posformer-perf}
PY=/usr/bin/python3
mkdir -p "$OUT"
LOG=$OUT/log.txt
: >"$LOG"

# PyTorch's best set-up on these machines (docs/performance.md): no forced OpenBLAS core type,
# passive OpenMP threads, glibc keeping freed memory. posformer runs under the same environment.
export OMP_WAIT_POLICY=PASSIVE GLIBC_TUNABLES=glibc.malloc.trim_threshold=68719476736:glibc.malloc.mmap_max=0
unset OPENBLAS_CORETYPE

$PY -c 'import torch' 2>/dev/null || { echo "measure: $PY cannot import torch: apt-get install -y python3-torch" >&2; exit 1; }

echo "measure: building into $OUT" >&2
go build -o "$OUT/posformer" ./cmd/train
go build -tags openblas -o "$OUT/posformer-openblas" ./cmd/train
if [ -n "$BEFORE" ]; then
  rm -rf "$OUT/before-src" && mkdir -p "$OUT/before-src"
  git archive "$BEFORE" | tar -x -C "$OUT/before-src"
  (cd "$OUT/before-src" && go build -o "$OUT/posformer-before" ./cmd/train)
fi

# tag PREFIX: prefix every line read from stdin, and append it to the log.
tag() { sed -u "s/^/$1 /" | tee -a "$LOG" >&2; }
stamp() { echo "# $1 $(date -u +%FT%TZ) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$LOG" >&2; }

GO_ARGS=() TORCH_TRAIN=(--steps 200) TORCH_EVAL=()
if [ "${QUICK:-0}" = 1 ]; then
  GO_ARGS=(-steps 2 -chunks 1 -warmup 1 -eval-iters 1 -eval-lens 64)
  TORCH_TRAIN=(--steps 4 --warmup 2) TORCH_EVAL=(--eval-iters 1 --eval-seqs 64)
  SCALING=0
fi

for r in $(seq "$ROUNDS"); do
  stamp "round $r"
  "$OUT/posformer" bench "${GO_ARGS[@]}" 2>/dev/null | grep '^BENCH' | tag "r$r go"
  $PY "$REF" bench "${TORCH_TRAIN[@]}" --pos sinusoidal 2>&1 | grep '^RESULT' | tag "r$r torch"
  "$OUT/posformer-openblas" bench "${GO_ARGS[@]}" 2>/dev/null | grep '^BENCH' | tag "r$r openblas"
  $PY "$REF" bench "${TORCH_TRAIN[@]}" --pos rope 2>&1 | grep '^RESULT' | tag "r$r torch"
  $PY "$REF" bench --eval "${TORCH_EVAL[@]}" --pos sinusoidal 2>&1 | grep '^EVAL seq' | tag "r$r torch sinusoidal"
  $PY "$REF" bench --eval "${TORCH_EVAL[@]}" --pos rope 2>&1 | grep '^EVAL seq' | tag "r$r torch rope"
  if [ -n "$BEFORE" ] && [ $((r % 2)) = 1 ]; then
    "$OUT/posformer-before" bench "${GO_ARGS[@]}" 2>/dev/null | grep '^BENCH' | tag "r$r before"
  fi
done

if [ "${SCALING:-1}" != 0 ]; then
  stamp scaling
  for rep in 1 2; do
    for s in 128 256; do
      "$OUT/posformer" bench -len "$s" -steps 30 -chunks 3 -eval-lens "" -schemes sinusoidal 2>/dev/null | grep '^BENCH' | tag "s$rep go len$s"
      $PY "$REF" bench --steps 60 --warmup 5 --seq "$s" --pos sinusoidal 2>&1 | grep '^RESULT' | tag "s$rep torch len$s"
    done
    for d in 128 256; do
      "$OUT/posformer" bench -d-model "$d" -d-ff $((4 * d)) -steps 30 -chunks 3 -eval-lens "" -schemes sinusoidal 2>/dev/null | grep '^BENCH' | tag "s$rep go d$d"
      $PY "$REF" bench --steps 60 --warmup 5 --d-model "$d" --d-ff $((4 * d)) --pos sinusoidal 2>&1 | grep '^RESULT' | tag "s$rep torch d$d"
    done
  done
fi
stamp done

# The summary: medians over the rounds, the ratio of medians, and the median of the per-round
# ratios (each posformer figure against the PyTorch one of the same round).
$PY - "$LOG" >"$OUT/summary.md" <<'EOF'
import statistics, sys
from collections import defaultdict
tok = defaultdict(lambda: defaultdict(dict))  # key -> impl -> round -> tok/s
ms = defaultdict(lambda: defaultdict(dict))   # key -> impl -> round -> ms/step
alloc = {}                                    # (key, impl) -> (MB/step, allocs/step), last seen
for line in open(sys.argv[1]):
    f = line.split()
    if not f or f[0].startswith('#'):
        continue
    rnd, impl = f[0], f[1]
    at = next(i for i, w in enumerate(f) if w in ('BENCH', 'RESULT', 'EVAL'))
    words, kind = f[2:at], f[at]
    kv = dict(w.split('=', 1) for w in f[at + 1:] if '=' in w)
    if kind == 'BENCH':
        key = '%s %s' % (f[at + 1], kv['scheme']) + (' T=%s' % kv['T'] if 'T' in kv else '')
    elif kind == 'RESULT':
        key = 'train %s' % kv['pos']
    else:
        key = 'eval %s T=%s' % (words.pop(0), kv['seq'])
    if rnd.startswith('s'):
        key = '%s: %s' % (words[0], key)
    tok[key][impl][rnd] = float(kv['tok/s'])
    if 'ms/step' in kv:
        ms[key][impl][rnd] = float(kv['ms/step'])
    if 'alloc_MB/step' in kv:
        alloc[(key, impl)] = (kv['alloc_MB/step'], kv['allocs/step'])

med = lambda xs: statistics.median(xs) if xs else float('nan')
k = lambda x: '%.1fk' % (x / 1e3)

def ratio(key, impl):
    t, v = tok[key].get('torch', {}), tok[key].get(impl, {})
    pr = [v[r] / t[r] for r in v if r in t]
    if not pr:
        return ''
    return '**%.2fx**; %.2fx (%.2f–%.2f)' % (med(list(v.values())) / med(list(t.values())), med(pr), min(pr), max(pr))

print('| measurement | PyTorch tok/s | pure Go tok/s | ratio: of medians; median per round (range) | -tags openblas tok/s | ratio | before tok/s |')
print('| --- | ---: | ---: | ---: | ---: | ---: | ---: |')
for key in sorted((x for x in tok if ':' not in x), key=lambda x: (x.split()[0] != 'train', x.split()[1], int(x.split('T=')[-1]) if 'T=' in x else 0)):
    row = [key, k(med(list(tok[key]['torch'].values())))]
    for impl in ('go', 'openblas'):
        row += [k(med(list(tok[key].get(impl, {}).values()))), ratio(key, impl)]
    b = tok[key].get('before', {})
    row.append(k(med(list(b.values()))) if b else '')
    print('| ' + ' | '.join(row) + ' |')
print()
print('| training step | PyTorch ms/step | pure Go ms/step | -tags openblas ms/step | before ms/step | pure Go MB, allocs per step |')
print('| --- | ---: | ---: | ---: | ---: | ---: |')
for key in sorted(x for x in ms if ':' not in x):
    row = [key] + ['%.2f' % med(list(ms[key][i].values())) if ms[key].get(i) else '' for i in ('torch', 'go', 'openblas', 'before')]
    row.append('%s MB, %s' % alloc[(key, 'go')] if (key, 'go') in alloc else '')
    print('| ' + ' | '.join(row) + ' |')
scal = sorted(x for x in tok if ':' in x)
if scal:
    print()
    print('| scaling (sinusoidal training step) | PyTorch tok/s (ms/step) | pure Go tok/s (ms/step) | ratio of medians |')
    print('| --- | ---: | ---: | ---: |')
    for key in scal:
        t, g = tok[key].get('torch', {}), tok[key].get('go', {})
        print('| %s | %s (%.1f) | %s (%.1f) | %.2fx |' % (key.split(':')[0], k(med(list(t.values()))), med(list(ms[key]['torch'].values())),
              k(med(list(g.values()))), med(list(ms[key]['go'].values())), med(list(g.values())) / med(list(t.values()))))
print()
print('%d rounds; ratio = posformer tok/s / PyTorch tok/s.' % len({r for x in tok for i in tok[x] for r in tok[x][i] if r.startswith('r')}))
EOF
echo "measure: raw lines in $LOG, summary in $OUT/summary.md" >&2
cat "$OUT/summary.md"
