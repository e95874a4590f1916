#!/usr/bin/env bash
# Re-measures the tables of docs/performance.md on this machine: interleaved rounds of
# posformer's `train bench` (pure-Go build and -tags openblas build) and the PyTorch model
# (python/posformer_torch.py bench) on the research-scale model, the reference model and long
# evaluations; then how a training step scales with sequence length and d_model, the machine's
# sgemm peak, and the peak memory of long evaluations; then a summary (medians over the rounds,
# ratios to PyTorch) and a plot.
#
#   bash docs/measure_performance.sh [rounds] [before-commit]
#
# rounds defaults to 3. With a before-commit, its `train bench` also runs in every round on the
# research-scale model and the reference model (it must have the bench command). Needs Debian's
# python3-torch and libopenblas-dev (apt-get install -y python3-torch libopenblas-dev). OUT is
# the output directory (default /tmp/posformer-perf: log.txt, the raw lines; summary.md, the
# tables; scaling.svg, the plot), SCALING=0 skips the scaling pairs, QUICK=1 makes every
# measurement a few steps (to check that the script works, not to measure). Takes about 5
# minutes on 2 cores with the defaults.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}
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
# PyTorch's BLAS: Debian's libblas.so.3 must be OpenBLAS (the reference BLAS trains ~15x slower)
blas=$(update-alternatives --query libblas.so.3-x86_64-linux-gnu 2>/dev/null | sed -n 's/^Value: //p')
echo "# torch $($PY -c 'import torch; print(torch.__version__)') libblas.so.3=${blas:-unknown} $(nproc) cores" >>"$LOG"
case "$blas" in *openblas*) ;; *) echo "measure: warning: libblas.so.3 is ${blas:-unknown}, not OpenBLAS: PyTorch will be slow" >&2 ;; esac

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

# The research-scale model (4 layers, d_model 256, T 128) and the reference model (train bench's defaults).
BIG_GO=(-layers 4 -d-model 256 -heads 8 -d-ff 1024 -len 128 -schemes sinusoidal -eval-lens "")
BIG_PT=(--layers 4 --d-model 256 --heads 8 --d-ff 1024 --seq 128 --pos sinusoidal)
BIG_STEPS_GO=(-steps 15 -chunks 3 -warmup 3) BIG_STEPS_PT=(--steps 18 --warmup 3)
GO_ARGS=() TORCH_TRAIN=(--steps 200) TORCH_EVAL=()
LONG=256,512,1024,1536 LONG_ITERS=(-eval-iters 6 -chunks 3) LONG_PT=(--eval-iters 6)
T_SWEEP="64 128 256 512 1024" D_SWEEP="64 128 256 512"
if [ "${QUICK:-0}" = 1 ]; then
  GO_ARGS=(-steps 2 -chunks 1 -warmup 1 -eval-iters 1 -eval-lens 64)
  TORCH_TRAIN=(--steps 4 --warmup 2) TORCH_EVAL=(--eval-iters 1 --eval-seqs 64)
  BIG_STEPS_GO=(-steps 1 -chunks 1 -warmup 0) BIG_STEPS_PT=(--steps 2 --warmup 1)
  LONG=256 LONG_ITERS=(-eval-iters 1 -chunks 1) LONG_PT=(--eval-iters 1)
  T_SWEEP="64" D_SWEEP="64"
fi

for r in $(seq "$ROUNDS"); do
  stamp "round $r"
  # research scale: 4 layers, d_model 256, T 128, batch 32
  "$OUT/posformer" bench "${BIG_GO[@]}" "${BIG_STEPS_GO[@]}" 2>/dev/null | grep '^BENCH' | sed 's/^BENCH train/BENCH trainbig/' | tag "r$r go"
  $PY "$REF" bench "${BIG_PT[@]}" "${BIG_STEPS_PT[@]}" 2>&1 | grep '^RESULT' | sed 's/^RESULT/RESULT big/' | tag "r$r torch"
  "$OUT/posformer-openblas" bench "${BIG_GO[@]}" "${BIG_STEPS_GO[@]}" 2>/dev/null | grep '^BENCH' | sed 's/^BENCH train/BENCH trainbig/' | tag "r$r openblas"
  if [ -n "$BEFORE" ]; then
    "$OUT/posformer-before" bench "${BIG_GO[@]}" "${BIG_STEPS_GO[@]}" 2>/dev/null | grep '^BENCH' | sed 's/^BENCH train/BENCH trainbig/' | tag "r$r before"
  fi
  # the reference model: 2 layers, d_model 64, T 64, batch 32; evaluation at T = 64..512
  "$OUT/posformer" bench "${GO_ARGS[@]}" 2>/dev/null | grep '^BENCH' | tag "r$r go"
  $PY "$REF" bench "${TORCH_TRAIN[@]}" --pos sinusoidal 2>&1 | grep '^RESULT' | tag "r$r torch"
  "$OUT/posformer-openblas" bench "${GO_ARGS[@]}" 2>/dev/null | grep '^BENCH' | tag "r$r openblas"
  $PY "$REF" bench "${TORCH_TRAIN[@]}" --pos rope 2>&1 | grep '^RESULT' | tag "r$r torch"
  $PY "$REF" bench --eval "${TORCH_EVAL[@]}" --pos sinusoidal 2>&1 | grep '^EVAL seq' | tag "r$r torch sinusoidal"
  $PY "$REF" bench --eval "${TORCH_EVAL[@]}" --pos rope 2>&1 | grep '^EVAL seq' | tag "r$r torch rope"
  if [ -n "$BEFORE" ]; then
    "$OUT/posformer-before" bench "${GO_ARGS[@]}" 2>/dev/null | grep '^BENCH' | tag "r$r before"
  fi
  # long evaluations of the reference model, batch 8 (the encoder protocol's lengths)
  "$OUT/posformer" bench -train=false -batch 8 -schemes sinusoidal -eval-lens "$LONG" "${LONG_ITERS[@]}" 2>/dev/null | grep '^BENCH' | sed 's/^BENCH eval/BENCH evallong/' | tag "r$r go"
  $PY "$REF" bench --eval --batch 8 --eval-seqs "$LONG" "${LONG_PT[@]}" --pos sinusoidal 2>&1 | grep '^EVAL seq' | tag "r$r torch long"
done

if [ "${SCALING:-1}" != 0 ]; then
  stamp scaling
  # the machine's sgemm peak: OpenBLAS through PyTorch, 2048³ on 2 threads, best of 5 runs of 10
  $PY - <<'EOF' 2>&1 | tag "peak torch"
import time, torch
torch.set_num_threads(2)
a, b = torch.randn(2048, 2048), torch.randn(2048, 2048)
for _ in range(3):
    a @ b
best = 0
for _ in range(5):
    t0 = time.perf_counter()
    for _ in range(10):
        a @ b
    best = max(best, 10 * 2 * 2048**3 / (time.perf_counter() - t0) / 1e9)
print("PEAK sgemm=2048 GFLOP/s=%.1f" % best)
EOF
  for T in $T_SWEEP; do # the reference model's training step against T
    steps=$((T >= 512 ? 6 : 15))
    "$OUT/posformer" bench -len "$T" -steps "$steps" -chunks 3 -warmup 2 -eval-lens "" -schemes sinusoidal 2>/dev/null | grep '^BENCH' | tag "sT go len$T"
    $PY "$REF" bench --steps $((steps + 2)) --warmup 2 --seq "$T" --pos sinusoidal 2>&1 | grep '^RESULT' | tag "sT torch len$T"
  done
  for d in $D_SWEEP; do # the research-scale model's training step against d_model (heads of 32)
    steps=$((d >= 512 ? 3 : 9))
    "$OUT/posformer" bench -layers 4 -d-model "$d" -heads $((d / 32)) -d-ff $((4 * d)) -len 128 -steps "$steps" -chunks 3 -warmup 1 -eval-lens "" -schemes sinusoidal 2>/dev/null | grep '^BENCH' | tag "sD go d$d"
    $PY "$REF" bench --layers 4 --d-model "$d" --heads $((d / 32)) --d-ff $((4 * d)) --seq 128 --steps $((steps + 1)) --warmup 1 --pos sinusoidal 2>&1 | grep '^RESULT' | tag "sD torch d$d"
  done
  # peak memory (max RSS) of a forward-only evaluation against T: one process per length
  for T in ${LONG//,/ }; do
    /usr/bin/time -f "MEM maxrss_kB=%M" "$OUT/posformer" bench -train=false -batch 8 -schemes sinusoidal -eval-lens "$T" -eval-iters 1 -chunks 1 -warmup 1 2>&1 >/dev/null | grep '^MEM' | tag "mem go T=$T"
    /usr/bin/time -f "MEM maxrss_kB=%M" $PY "$REF" bench --eval --batch 8 --eval-seqs "$T" --eval-iters 1 --pos sinusoidal 2>&1 >/dev/null | grep '^MEM' | tag "mem torch T=$T"
  done
fi
stamp done

$PY docs/perf_summary.py "$LOG" "$OUT/scaling.svg" >"$OUT/summary.md"
echo "measure: raw lines in $LOG, summary in $OUT/summary.md, plot in $OUT/scaling.svg" >&2
cat "$OUT/summary.md"
