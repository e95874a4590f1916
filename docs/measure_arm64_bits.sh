#!/usr/bin/env bash
# arm64 against amd64, every registered scheme: small runs (d_model 32, 2 layers, 10 steps) of
# the arm64 train under qemu-aarch64-static and of the amd64 one with AVX-512 and with
# POSFORMER_AVX512=0, then cmp of each run's results.csv, results.json, checkpoint.bin and
# diagnostics.json. Prints one line per run and file that differs, and a summary; exits 1 if any
# file differs. Run from the repository root on an amd64 machine with qemu-user-static:
#   bash docs/measure_arm64_bits.sh [OUTDIR]
# (about 1-3 minutes of qemu on a 2-core machine).
set -euo pipefail
out=${1:-$(mktemp -d)}
mkdir -p "$out"
GOARCH=amd64 go build -o "$out/train-amd64" ./cmd/train
GOARCH=arm64 go build -o "$out/train-arm64" ./cmd/train

# Every scheme on copy (abacus and coupled on addition), and rope's variants that change its
# tables or its scaling beyond the training lengths (evaluation goes to 1.5x of them).
cat >"$out/copy.yaml" <<'YAML'
name: copy
seed: 1
task: {name: copy, min_len: 1, max_len: 8}
model: {d_model: 32, heads: 2, layers: 2, d_ff: 64}
train: {steps: 10, batch_size: 8, lr: 0.003}
eval: {lengths: "1..12", examples: 16}
sweep:
  position:
    - {kind: none}
    - {kind: sinusoidal}
    - {kind: learned}
    - {kind: rope}
    - {kind: p_rope}
    - {kind: xpos}
    - {kind: alibi}
    - {kind: t5}
    - {kind: kerple}
    - {kind: fire}
    - {kind: relative}
    - {kind: cope}
    - {kind: rope, rope_scaling: ntk}
    - {kind: rope, rope_scaling: yarn}
    - {kind: rope, rope_scaling: llama3}
    - {kind: rope, log_scaling: 1}
    - {kind: rope, randomized: true, max_random: 64}
    - {kind: sinusoidal, randomized: true, max_random: 64}
YAML
cat >"$out/addition.yaml" <<'YAML'
name: addition
seed: 1
task: {name: addition, min_len: 1, max_len: 9}
model: {d_model: 32, heads: 2, layers: 2, d_ff: 64}
train: {steps: 10, batch_size: 8, lr: 0.003}
eval: {lengths: "1..13:2", examples: 16}
sweep:
  position:
    - {kind: abacus, max_offset: 10}
    - {kind: coupled, max_position: 12}
YAML
# float64 models: their GELU, exponentials and products are other code.
cat >"$out/float64.yaml" <<'YAML'
name: float64
seed: 1
task: {name: copy, min_len: 1, max_len: 8}
model: {d_model: 32, heads: 2, layers: 2, d_ff: 64, dtype: float64}
train: {steps: 10, batch_size: 8, lr: 0.003}
eval: {lengths: "1..12", examples: 16}
sweep:
  position:
    - {kind: rope}
    - {kind: kerple}
YAML

for grid in copy addition float64; do
	"$out/train-amd64" -config "$out/$grid.yaml" -out "$out/avx512" -force -jobs 2 >/dev/null 2>&1
	POSFORMER_AVX512=0 "$out/train-amd64" -config "$out/$grid.yaml" -out "$out/avx2" -force -jobs 2 >/dev/null 2>&1
	qemu-aarch64-static "$out/train-arm64" -config "$out/$grid.yaml" -out "$out/arm64" -force -jobs 1 >/dev/null 2>&1
done

runs=0 bad=0
for dir in "$out"/avx512/*/*/; do
	run=${dir#"$out/avx512/"}
	[ -f "$dir/results.json" ] || continue
	runs=$((runs + 1))
	same=1
	for f in results.csv results.json checkpoint.bin diagnostics.json; do
		for other in avx2 arm64; do
			if ! cmp -s "$dir/$f" "$out/$other/$run/$f"; then
				echo "DIFFERS: $other ${run%/} $f"
				same=0
			fi
		done
	done
	[ $same = 1 ] && echo "identical: ${run%/}" || bad=$((bad + 1))
done
echo "$runs runs, $bad with a file that differs ($out)"
[ $runs -gt 0 ] && [ $bad = 0 ]
