#!/usr/bin/env bash
# Starts a single-node Slurm cluster on this host for the tests: munged, slurmctld and slurmd,
# each with its own key, socket, ports, state and logs under DIR, so that it touches nothing of
# a Slurm the host may run. Needs root (slurmd starts jobs as their user) and Debian's slurm-wlm
# and munge. The clients find the cluster through SLURM_CONF=DIR/slurm.conf.
#
#   local-slurm.sh start DIR CTLD-PORT SLURMD-PORT   # returns once the node takes jobs
#   local-slurm.sh stop DIR                          # ends the daemons it started
set -euo pipefail

usage() { echo "usage: $0 start DIR CTLD-PORT SLURMD-PORT | stop DIR" >&2; exit 2; }

stop() {
  local dir=$1 name pid
  # Jobs first: their processes (slurmstepd, the scripts) outlive slurmd.
  if [ -f "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
    export SLURM_CONF=$dir/slurm.conf
    scancel --user="$(id -un)" 2>/dev/null || true
    for _ in $(seq 100); do
      [ -z "$(squeue -h -t RUNNING,COMPLETING 2>/dev/null)" ] && break
      sleep 0.1
    done
  fi
  for name in slurmd slurmctld munged; do
    [ -f "$dir/$name.pid" ] || continue
    pid=$(cat "$dir/$name.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/$name.pid"
  done
}

# fail prints why the cluster did not start, with the end of the daemons' logs, and stops it.
fail() {
  echo "local Slurm did not start: $*" >&2
  local log
  for log in "$DIR"/log/*.log; do
    [ -f "$log" ] && { echo "--- $log" >&2; tail -n 15 "$log" >&2; }
  done
  stop "$DIR"
  exit 1
}

[ $# -ge 2 ] || usage
case $1 in
stop) stop "$2"; exit 0 ;;
start) [ $# -eq 4 ] || usage ;;
*) usage ;;
esac
DIR=$(cd "$2" && pwd) CTLD_PORT=$3 SLURMD_PORT=$4
[ "$(id -u)" -eq 0 ] || { echo "local Slurm needs root (slurmd runs jobs as their user)" >&2; exit 1; }
for cmd in munged mungekey slurmctld slurmd sbatch scontrol sinfo; do
  command -v "$cmd" >/dev/null || { echo "local Slurm needs $cmd: apt-get install slurm-wlm munge" >&2; exit 1; }
done

host=$(hostname -s)
mkdir -p "$DIR"/{munge,state,spool,log}
chmod 700 "$DIR/munge"
mungekey --create --keyfile "$DIR/munge/munge.key" --force
chmod 600 "$DIR/munge/munge.key"
munged --socket "$DIR/munge/munge.sock" --key-file "$DIR/munge/munge.key" \
  --pid-file "$DIR/munge/munged.pid" --log-file "$DIR/log/munged.log" \
  --seed-file "$DIR/munge/munged.seed" --force ||
  fail "munged exited with $?"
cp "$DIR/munge/munged.pid" "$DIR/munged.pid"

cat >"$DIR/slurm.conf" <<CONF
ClusterName=smarttest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.sock
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool/%n
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
PlugStackConfig=$DIR/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SwitchType=switch/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=3600
KillWait=5
SchedulerParameters=sched_interval=1
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
: >"$DIR/plugstack.conf"
export SLURM_CONF=$DIR/slurm.conf

slurmctld -D -i -f "$SLURM_CONF" >>"$DIR/log/slurmctld.out" 2>&1 &
echo $! >"$DIR/slurmctld.pid"
slurmd -D -f "$SLURM_CONF" -N "$host" >>"$DIR/log/slurmd.out" 2>&1 &
echo $! >"$DIR/slurmd.pid"

# The node takes jobs once slurmctld has heard from slurmd: idle, or mixed/allocated.
for _ in $(seq 300); do
  kill -0 "$(cat "$DIR/slurmctld.pid")" 2>/dev/null || fail "slurmctld exited"
  kill -0 "$(cat "$DIR/slurmd.pid")" 2>/dev/null || fail "slurmd exited"
  state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
  case $state in idle | mix | alloc) exit 0 ;; esac
  sleep 0.1
done
fail "node $host is ${state:-unknown to slurmctld} after 30 s, not idle"
