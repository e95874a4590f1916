#!/usr/bin/env bash
# The cluster path run for real: a one-node Slurm on this machine runs a small grid
# (deploy/slurm/test-grid.yaml, 4 cells) through the sbatch scripts a user submits
# (literature.sbatch as a 2-task array, then report.sbatch with --dependency), requeues one array
# task in the middle of its training, and compares every run's results.csv and checkpoint.bin and
# the merged report with the same grid run locally with -jobs 1, byte for byte; a job whose cell
# does not fit its memory limit is refused in one line of its log; a claims file's sequential
# design run by decide.sh (one array a look) gives one local `claims -decide`'s table. One line
# per check.
#
#   bash deploy/slurm/test.sh        # as root on Debian: installs slurm-wlm and munge if missing
#
# It starts munged, slurmctld and slurmd with their state, spool, logs and config in a temporary
# directory (slurm.conf: this node's CPUs and memory from `slurmd -C`, no cgroups:
# proctrack/linuxproc, task/none) and stops every process it started by its pid, also on failure.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
start=$(date +%s)
passed=0
failed=0
check() { # check NAME CONDITION...: runs the condition, prints one line
  local name=$1
  shift
  if "$@"; then
    echo "ok    $name"
    passed=$((passed + 1))
  else
    echo "FAIL  $name"
    failed=$((failed + 1))
  fi
}
die() {
  echo "FAIL  $*" >&2
  exit 1
}

# Slurm and munge: Debian's packages, installed as root when missing. Another apt may hold the
# lock (CI installs PyTorch the same way): wait for it.
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  if [ "$(id -u)" != 0 ] || [ ! -f /etc/debian_version ]; then
    die "slurm-wlm and munge are not installed and this is not root on Debian: apt-get install slurm-wlm munge, then run again"
  fi
  echo "== apt-get install slurm-wlm munge"
  for try in $(seq 1 30); do
    if apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null 2>&1; then break; fi
    [ "$try" -lt 30 ] || die "apt-get update failed (5 minutes of tries)"
    sleep 10 # another apt holds the lists' lock
  done
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends slurm-wlm munge >/dev/null ||
    die "apt-get install slurm-wlm munge failed"
fi
echo "== $(slurmctld -V) on $(hostname -s), $(nproc) CPUs"

tmp=$(mktemp -d /tmp/posformer-slurm.XXXXXX)
export SLURM_CONF=$tmp/etc/slurm.conf
pids=()   # the daemons this script started
jobs_=()  # the Slurm jobs it submitted
cleanup() {
  local rc=$?
  set +e
  for j in "${jobs_[@]}"; do scancel "$j" 2>/dev/null; done
  if [ "${#jobs_[@]}" -gt 0 ]; then # let slurmd end the jobs' processes before it stops
    for _ in $(seq 1 60); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 1
    done
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do kill "${pids[i]}" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$p" 2>/dev/null && kill -9 "$p" 2>/dev/null
  done
  # A job step's slurmstepd outlives a killed slurmd: end those of this cluster (they carry its
  # SLURM_CONF), by pid.
  for p in $(pgrep -x slurmstepd); do
    if { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qx "SLURM_CONF=$SLURM_CONF"; then kill -9 "$p" 2>/dev/null; fi
  done
  if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ]; then
    echo "== logs kept in $tmp"
    tail -n 20 "$tmp"/log/*.log "$tmp"/work/logs/* 2>/dev/null
  else
    rm -rf "$tmp"
  fi
  echo "slurm: $passed passed, $failed failed in $(($(date +%s) - start)) s"
  [ "$failed" -eq 0 ] || rc=1
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The binary and the grid run locally, one run at a time: what the cluster must reproduce.
work=$tmp/work
mkdir -p "$work/bin" "$work/logs" "$tmp/etc" "$tmp/log" "$tmp/state" "$tmp/spool" "$tmp/munge"
go build -o "$work/bin/posformer" ./cmd/train
grid=$repo/deploy/slurm/test-grid.yaml
name=slurm-test
# It runs in the directory the cluster will write, then moves aside: report.md names the grid's
# directory, so both reports name the same one.
"$work/bin/posformer" -config "$grid" -out "$tmp/cluster" -jobs 1 >"$tmp/log/local.out" 2>&1 ||
  die "the local run of $grid failed: $(tail -1 "$tmp/log/local.out")"
mv "$tmp/cluster" "$tmp/local"

# munged with its own key and socket; slurm.conf for this node.
mungekey -c -k "$tmp/munge/munge.key"
munged -F -f --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/seed" >>"$tmp/log/munged.log" 2>&1 &
pids+=($!)
host=$(hostname -s)
node=$(slurmd -C | head -1) # NodeName=... CPUs=... RealMemory=...
cat >"$SLURM_CONF" <<EOF
ClusterName=posformer-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/munge/munge.socket,cred_expire=20
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=2
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
ReturnToService=2
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
for _ in $(seq 1 50); do [ -S "$tmp/munge/munge.socket" ] && break; sleep 0.1; done
slurmctld -D -i >"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D >"$tmp/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do
  [ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" = idle ] && break
  sleep 1
done
check "the node is up and idle: $(sinfo -h -n "$host" -o '%n %c CPUs %m MB %t' 2>/dev/null)" \
  test "$(sinfo -h -n "$host" -o %t 2>/dev/null)" = idle
[ "$failed" -eq 0 ] || exit 1

# The grid as the user submits it: literature.sbatch from the run directory (the job's cwd,
# holding bin/posformer and logs/, as the scripts' launch lines say), with the test's grid, a
# 2-task array and one CPU a task.
export POSFORMER_OUT=$tmp/cluster POSFORMER_CONFIG=$grid POSFORMER_GRID=$name
jid=$(sbatch --parsable --chdir="$work" --array=0-1 --cpus-per-task=1 deploy/slurm/literature.sbatch)
jobs_+=("$jid")

# Requeue task 1 in the middle of its first run: when a run directory it trains in (its lock
# holds the pid of a process of array task 1) has logged 2000 to 5000 of its 6000 steps.
# A requeued job waits cred_expire seconds (AuthInfo; Slurm's default 120 s, 20 s here) and
# the next scheduling pass (sched_interval=2 here, default 60 s) before it runs again.
laststep() { tail -n 1 "$1/metrics.jsonl" 2>/dev/null | sed -n 's/^{"step":\([0-9]*\),.*/\1/p' | grep . || echo 0; }
requeued=
for _ in $(seq 1 600); do
  [ -n "$(squeue -h -j "${jid}_1" -o %i 2>/dev/null)" ] || break # it ended before we saw it train
  for lock in "$POSFORMER_OUT/$name"/*/.posformer.lock; do
    [ -f "$lock" ] || continue
    pid=$(cat "$lock" 2>/dev/null) || continue
    run=$(dirname "$lock")
    if { tr '\0' '\n' <"/proc/$pid/environ"; } 2>/dev/null | grep -qx SLURM_ARRAY_TASK_ID=1 &&
      at=$(laststep "$run") && [ "$at" -ge 2000 ] && [ "$at" -lt 5000 ] && [ ! -f "$run/results.json" ]; then
      scontrol requeue "${jid}_1"
      requeued=$run
      break 2
    fi
  done
  sleep 0.1
done
check "array task ${jid}_1 requeued while training $(basename "${requeued:-none}") (step ${at:-?} of 6000 logged)" test -n "$requeued"

# The merged report once the array is done, whatever its tasks' fate (afterany), as the user does.
rid=$(sbatch --parsable --chdir="$work" --dependency=afterany:"$jid" deploy/slurm/report.sbatch)
jobs_+=("$rid")
deadline=$(($(date +%s) + 240))
while [ -n "$(squeue -h -j "$jid,$rid" -o %i 2>/dev/null)" ]; do
  [ "$(date +%s)" -lt "$deadline" ] || die "the jobs did not finish in 240 s: $(squeue -h -o '%i %T %r' 2>&1 | tr '\n' ';')"
  sleep 1
done
jobs_=()
for j in "${jid}_0" "${jid}_1" "$rid"; do
  info=$(scontrol show job "$j" 2>/dev/null | tr ' ' '\n')
  state=$(grep -m1 '^JobState=' <<<"$info" | cut -d= -f2)
  code=$(grep -m1 '^ExitCode=' <<<"$info" | cut -d= -f2)
  restarts=$(grep -m1 '^Restarts=' <<<"$info" | cut -d= -f2)
  check "job $j: $state, exit $code, restarts ${restarts:-?}" test "$state/$code" = COMPLETED/0:0
done
check "array task ${jid}_1 ran twice (Restarts=1)" \
  grep -qx Restarts=1 <(scontrol show job "${jid}_1" | tr ' ' '\n')
log1=$work/logs/posformer-literature_${jid}_1.out
stopped=$(grep -o "interrupted at step [0-9]* of [0-9]*: checkpoint saved" "$log1" | head -1 || true)
check "its log kept both attempts (--open-mode=append): ${stopped:-no interruption logged}, then $(grep -c 'runs finished' "$log1" || true) finished" \
  test -n "$stopped" -a "$(grep -c 'shard 1/2 (from SLURM_ARRAY_TASK_ID), 2 of 4 runs' "$log1")" = 2

# A cell that does not fit the job's memory is refused in one line in its log before anything is
# allocated: the submitting shell's address-space limit travels with the job (--propagate=AS),
# as a site's limits do, and posformer reads it (internal/memlimit; a cgroup's memory.max alike).
cat >"$tmp/big.yaml" <<'YAML'
name: slurm-big
task: {name: copy, min_len: 1, max_len: 64}
model: {d_model: 1024, heads: 8, layers: 8}
train: {steps: 10, batch_size: 256}
YAML
bid=$(
  ulimit -v 2000000
  POSFORMER_CONFIG=$tmp/big.yaml POSFORMER_OUT=$tmp/big sbatch --parsable --chdir="$work" --array=0 --cpus-per-task=1 --propagate=AS deploy/slurm/literature.sbatch
)
jobs_+=("$bid")
deadline=$(($(date +%s) + 120))
while [ -n "$(squeue -h -j "$bid" -o %i 2>/dev/null)" ]; do
  [ "$(date +%s)" -lt "$deadline" ] || die "the job that does not fit did not end in 120 s"
  sleep 1
done
jobs_=()
blog=$work/logs/posformer-literature_${bid}_0.out
bstate=$(scontrol show job "${bid}_0" 2>/dev/null | tr ' ' '\n' | grep -m1 '^JobState=' | cut -d= -f2)
check "a cell that does not fit is refused ($bstate) in one line of its log: $(grep -m1 'address-space limit' "$blog" 2>/dev/null | cut -c1-110)..." \
  test "$bstate" = FAILED -a "$(grep -c . "$blog" 2>/dev/null)" = 1 -a "$(grep -c 'address-space limit' "$blog" 2>/dev/null)" = 1
check "and it trained nothing: no checkpoint under its -out" test -z "$(find "$tmp/big" -name checkpoint.bin 2>/dev/null)"

# Byte for byte against the local run.
same() { cmp -s "$1" "$2"; }
runs=0
for run in "$tmp/local/$name"/*/; do
  [ -f "$run/results.csv" ] || continue # report/
  runs=$((runs + 1))
  r=$(basename "$run")
  for f in results.csv checkpoint.bin; do
    check "$r/$f identical" same "$run$f" "$POSFORMER_OUT/$name/$r/$f"
  done
done
n=0
for f in "$tmp/local/$name/report"/*; do
  n=$((n + 1))
  check "report/$(basename "$f") identical" same "$f" "$POSFORMER_OUT/$name/report/$(basename "$f")"
done
check "compared $runs runs and $n report files" test "$runs" = 4 -a "$n" -gt 0

# A claims file's sequential design, one job array a look (decide.sh: `claims -decide -plan`
# between arrays of decide.sbatch): the same table and document as one local `claims -decide`.
mkdir -p "$tmp/dec-local" "$tmp/dec-cluster" "$work/deploy/slurm"
cp "$repo/deploy/slurm/decide.sbatch" "$work/deploy/slurm/"
for d in "$tmp/dec-local" "$tmp/dec-cluster"; do
  cat >"$d/grid.yaml" <<'YAML'
name: slurm-decide
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
train: {steps: 2, batch_size: 4, val_every: 0}
eval: {lengths: "1..8", examples: 4}
sweep:
  position.kind: [alibi, none]
  seed: [1, 2]
YAML
  cat >"$d/claims.yaml" <<'YAML'
title: decide
tables:
  - {name: t, csv: t.csv, grid: grid.yaml}
statistic: {metric: token_accuracy, past_training: 2, learned: 0}
sequential: {max_seeds: 3}
claims:
  - {id: r, kind: ranking, a: {task: copy, scheme: alibi}, b: {task: copy, scheme: none}}
YAML
done
"$work/bin/posformer" claims -decide -jobs 1 -runs "$tmp/dec-local/runs" "$tmp/dec-local/claims.yaml" >"$tmp/log/dec-local.out" 2>&1 ||
  die "the local claims -decide failed: $(tail -1 "$tmp/log/dec-local.out")"
(cd "$work" && POSFORMER_OUT=$tmp/dec-cluster/runs POSFORMER_SBATCH_ARGS=--cpus-per-task=1 timeout 300 bash "$repo/deploy/slurm/decide.sh" "$tmp/dec-cluster/claims.yaml") >"$tmp/log/dec-cluster.out" 2>&1 ||
  die "decide.sh failed: $(tail -3 "$tmp/log/dec-cluster.out" | tr '\n' ' ')"
plans=$(grep '^next look: ' "$tmp/log/dec-cluster.out" | sed 's/^next look: //' | tr '\n' ' ')
check "decide.sh: plans of ${plans}(the grid's 4 seeds, then seed 3 of both cells, then none), one array a look" test "$plans" = "4 runs 2 runs 0 runs "
check "its table identical to one local claims -decide's" same "$tmp/dec-local/t.csv" "$tmp/dec-cluster/t.csv"
check "its document identical too (but for the paths it names)" \
  same <(sed "s|$tmp/dec-local|DIR|g" "$tmp/dec-local/claims.md") <(sed "s|$tmp/dec-cluster|DIR|g" "$tmp/dec-cluster/claims.md")
