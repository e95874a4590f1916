#!/bin/bash
# Runs a claims file's sequential design on Slurm, one job array a look (docs/runs.md,
# "Deciding claims seed by seed"): `claims -decide -plan` collects the finished runs into the
# file's tables, judges, writes the document and prints the next look's runs; decide.sbatch
# trains them as an array of that many tasks (one run each; --array can be narrowed with
# POSFORMER_TASKS); until no run is left. Stopped at any point, run it again: it goes on where it
# stopped. From the repository root, with bin/posformer built and POSFORMER_OUT shared by every node:
#
#   go build -o bin/posformer ./cmd/train && mkdir -p logs
#   POSFORMER_OUT=$PWD/runs bash deploy/slurm/decide.sh docs/claims/flip_flop.yaml
set -euo pipefail
file=${1:?usage: decide.sh CLAIMS_FILE}
export POSFORMER_CLAIMS=$file POSFORMER_OUT=${POSFORMER_OUT:-$PWD/runs}
while :; do
  plan=$(./bin/posformer claims -decide -plan -runs "$POSFORMER_OUT" "$file")
  echo "$plan"
  n=$(sed -n 's/^next look: \([0-9]*\) runs$/\1/p' <<<"$plan")
  [ -n "$n" ] || { echo "decide.sh: no plan line from claims -decide -plan" >&2; exit 1; }
  [ "$n" -gt 0 ] || break
  tasks=$((n < ${POSFORMER_TASKS:-$n} ? n : ${POSFORMER_TASKS:-$n}))
  sbatch --wait --array=0-$((tasks - 1)) ${POSFORMER_SBATCH_ARGS:-} deploy/slurm/decide.sbatch
done
