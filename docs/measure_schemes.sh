#!/usr/bin/env bash
# Measures every scheme beside NoPE (docs/performance.md, "Every scheme beside NoPE"): `train bench
# -schemes all` on the reference model (training at -len 64, evaluation at 256 and 1024), then
# training at -len 256, on both amd64 kernel paths (POSFORMER_AVX512=0 for AVX2), in interleaved
# rounds; with a before-commit, that commit's binary (given this checkout's cmd/train/bench*.go, so
# that both measure the same things) runs beside it in each round. docs/perf_schemes.py makes the table:
# each figure the best of its measurements (a median over chunks each), each ratio over none's.
#
#   bash docs/measure_schemes.sh [rounds] [before-commit]
#
# OUT is the output directory (default /tmp/posformer-schemes); QUICK=1 makes every measurement a
# few steps (to check the script). Run it on an idle machine: identical code measured 1.0 to 1.9 ×
# none on a loaded one.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-2}
BEFORE=${2:-}
OUT=${OUT:-/tmp/posformer-schemes}
mkdir -p "$OUT"
go build -o "$OUT/train-after" ./cmd/train
sides="after"
if [ -n "$BEFORE" ]; then
  wt=$(mktemp -d)
  git worktree add -q --detach "$wt" "$BEFORE"
  for f in cmd/train/bench*.go; do # the bench command's files, not its tests
    case $f in *_test.go) ;; *) cp "$f" "$wt/$f" ;; esac
  done
  (cd "$wt" && go build -o "$OUT/train-before" ./cmd/train) || { echo "the before-commit does not build with this bench.go: measure it without" >&2; exit 1; }
  git worktree remove --force "$wt"
  sides="before after"
fi
steps=100 chunks=5 iters=20 steps256=25
[ -n "${QUICK:-}" ] && steps=4 chunks=2 iters=2 steps256=2
for round in $(seq 1 "$ROUNDS"); do
  for path in avx512 avx2; do
    for side in $sides; do
      { echo "# $side $path len64 round $round start $(date -u +%FT%TZ) load: $(cat /proc/loadavg)"
        if [ $path = avx2 ]; then export POSFORMER_AVX512=0; else unset POSFORMER_AVX512; fi
        "$OUT/train-$side" bench -schemes all -eval-lens 256,1024 -steps $steps -chunks $chunks -eval-iters $iters 2>"$OUT/$side.$path.len64.r$round.err"
        echo "# end $(date -u +%FT%TZ) load: $(cat /proc/loadavg)"
      } >"$OUT/$side.$path.len64.r$round.out"
    done
  done
done
for path in avx512 avx2; do
  for side in $sides; do
    { echo "# $side $path len256 start $(date -u +%FT%TZ) load: $(cat /proc/loadavg)"
      if [ $path = avx2 ]; then export POSFORMER_AVX512=0; else unset POSFORMER_AVX512; fi
      "$OUT/train-$side" bench -schemes all -len 256 -eval-lens= -steps $steps256 -chunks $chunks -peak 0 2>"$OUT/$side.$path.len256.err"
      echo "# end $(date -u +%FT%TZ) load: $(cat /proc/loadavg)"
    } >"$OUT/$side.$path.len256.out"
  done
done
python3 docs/perf_schemes.py "$OUT" | tee "$OUT/summary.md"
