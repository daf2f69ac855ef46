#!/usr/bin/env bash
# The Slurm recipe of docs/workflow.md, run for real on this machine: installs Debian's slurm-wlm and munge,
# starts a one-node cluster (slurmctld + slurmd on localhost, munge authentication), submits a bundled sweep
# as a job array exactly as the recipe does (one array task per shard, then an --index-only job after
# all of them), and checks that its index.csv and every run's trace.csv equal a local `sweep -j 2` run's.
#   bash tools/slurm-check.sh [SWEEP.json]     (default: scenarios/quickstart.sweep.json, shortened)
# Needs root (it installs packages and starts daemons) and the build in build/ (or $SGDSIM_BUILD_DIR).
# Leaves the daemons it started stopped; exit 0 when the two studies are identical, 1 otherwise.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${SGDSIM_BUILD_DIR:-$root/build}
sgdsim="$build/sgdsim"
[ -x "$sgdsim" ] || { echo "slurm-check: build sgdsim first (bash tools/build.sh)" >&2; exit 2; }
work=$(mktemp -d /tmp/sgdsim-slurm-XXXXXX)
start=$(date +%s)

if ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge >/dev/null
fi

# The study: the quickstart sweep with fewer steps (the recipe does not care how long a point runs).
sweep=${1:-}
if [ -z "$sweep" ]; then
  sweep="$work/study.sweep.json"
  python3 - "$root/scenarios/quickstart.sweep.json" "$sweep" "$root/scenarios/quickstart.json" <<'PY'
import json, re, sys
text = re.sub(r"^\s*//.*$", "", open(sys.argv[1]).read(), flags=re.M)
study = json.loads(text)
study["base"] = sys.argv[3]
for value in study["grid"]["algorithm"]["values"]:
    value["steps"] = 100
json.dump(study, open(sys.argv[2], "w"), indent=2)
PY
fi

# A one-node cluster: this host, its processors, one partition; no cgroups, no accounting.
host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$work/spool/ctld" "$work/spool/d" /run/munge /var/log/munge /etc/slurm
chown munge:munge /run/munge /var/log/munge 2>/dev/null || true
[ -s /etc/munge/munge.key ] || { mungekey --create 2>/dev/null || create-munge-key -f; }
cat > "$work/slurm.conf" <<CONF
ClusterName=sgdsim-check
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/spool/ctld
SlurmdSpoolDir=$work/spool/d
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$work/slurm.conf"

started=()
cleanup() {
  for pidfile in "$work/slurmd.pid" "$work/slurmctld.pid"; do
    [ -s "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  for pid in "${started[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
if ! munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
  runuser -u munge -- munged --force
  started+=("$(pgrep -n -x munged)")
fi
slurmctld
slurmd
for _ in $(seq 60); do sinfo -h -o %t 2>/dev/null | grep -q idle && break; sleep 1; done
sinfo -h -o "%P %D %t" | grep -q idle || { echo "slurm-check: the node did not come up" >&2; cat "$work"/*.log >&2; exit 1; }

# The recipe (docs/workflow.md, "Slurm job array"), with the shard count of this check.
shards=4
cat > "$work/study.sbatch" <<SB
#!/bin/bash
#SBATCH --job-name=sgdsim-check
#SBATCH --array=1-$shards
#SBATCH --cpus-per-task=1
#SBATCH --output=$work/slurm-%A_%a.out
"$sgdsim" sweep "$sweep" -o "$work/slurm" --shard "\${SLURM_ARRAY_TASK_ID}/$shards" -j "\${SLURM_CPUS_PER_TASK}"
SB
jobid=$(sbatch --parsable "$work/study.sbatch")
index=$(sbatch --parsable --dependency=afterany:"$jobid" --output="$work/index-%j.out" \
  --wrap "\"$sgdsim\" sweep \"$sweep\" -o \"$work/slurm\" --index-only")
for _ in $(seq 1800); do
  [ -z "$(squeue -h -j "$jobid,$index" 2>/dev/null)" ] && break
  sleep 1
done
slurm_end=$(date +%s)

# The same study on this machine, -j 2.
"$sgdsim" sweep "$sweep" -o "$work/local" -j 2 2>"$work/local.log"

status=0
cmp -s "$work/slurm/index.csv" "$work/local/index.csv" || { echo "slurm-check: index.csv differs" >&2; status=1; }
runs=0
for run in "$work/local/runs"/*/; do
  id=$(basename "$run")
  runs=$((runs + 1))
  cmp -s "$run/trace.csv" "$work/slurm/runs/$id/trace.csv" || { echo "slurm-check: $id: trace.csv differs" >&2; status=1; }
done
echo "slurm-check: $shards array tasks + 1 index job: $((slurm_end - start)) s (install and cluster start included);" \
  "$runs runs; index and traces $([ $status = 0 ] && echo identical || echo DIFFERENT) to a local -j 2 sweep" \
  "($(($(date +%s) - start)) s in all); files in $work"
exit $status
