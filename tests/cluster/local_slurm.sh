#!/usr/bin/env bash
# A throw-away one-node Slurm cluster for the tests (Debian 12, Slurm 22.05, as root, no
# systemd): munged + slurmctld + slurmd, no accounting database, one fake GPU so that
# rules with `gpu=1` are really scheduled. Stops only the daemons it started.
#
#   bash tests/cluster/local_slurm.sh start   # install if needed, configure, start, wait idle
#   bash tests/cluster/local_slurm.sh stop
#
# Without accounting, status must come from squeue (the profile sets
# slurm-status-command: squeue) and finished jobs stay visible for MinJobAge seconds.
set -euo pipefail

STATE=${PDEREPRO_SLURM_STATE:-/tmp/pderepro-slurm}
NODE=$(hostname -s)
export DEBIAN_FRONTEND=noninteractive
mkdir -p "$STATE/pids"

wait_for() {  # wait_for <seconds> <command...>
  local tries=$(($1 * 4)); shift
  for _ in $(seq 1 "$tries"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.25; done
  return 1
}

install_packages() {
  command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null \
    && command -v sbatch >/dev/null && return 0
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge \
    >"$STATE/apt.log" 2>&1 || { tail -20 "$STATE/apt.log"; exit 1; }
}

configure() {
  [ -s /etc/munge/munge.key ] || mungekey --create --keyfile=/etc/munge/munge.key
  chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key
  local cpus mem
  cpus=$(nproc)
  mem=$(( $(awk '/^MemTotal:/{print $2}' /proc/meminfo) / 1024 * 90 / 100 ))
  mkdir -p /etc/slurm /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm
  # a gpu gres needs a File; Count= alone leaves the node INVAL
  echo "NodeName=$NODE Name=gpu Type=fake File=/dev/null" > /etc/slurm/gres.conf
  cat > /etc/slurm/slurm.conf <<CONF
ClusterName=pderepro-test
SlurmctldHost=localhost
SlurmUser=root
AuthType=auth/munge
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
SchedulerType=sched/backfill
GresTypes=gpu
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
# squeue-based status needs finished jobs visible for >= 3x the first status delay
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
Waittime=0
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem Gres=gpu:fake:1 State=UNKNOWN
PartitionName=debug Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
CONF
  rm -rf /var/lib/slurm/slurmctld/* /var/lib/slurm/slurmd/*
}

remember() {  # remember <name> <pidfile>: only daemons started here are stopped later
  wait_for 10 test -s "$2" || { echo "$1 wrote no pid file $2" >&2; exit 1; }
  cat "$2" > "$STATE/pids/$1"
}

start() {
  install_packages
  configure
  if ! (munge -n | unmunge) >/dev/null 2>&1; then
    install -d -o munge -g munge -m 0755 /run/munge
    runuser -u munge -- /usr/sbin/munged
    wait_for 10 sh -c 'munge -n | unmunge' || { echo "munged did not start" >&2; exit 1; }
    remember munged /run/munge/munged.pid
  fi
  /usr/sbin/slurmctld
  remember slurmctld /run/slurmctld.pid
  wait_for 30 scontrol ping || { tail -20 /var/log/slurm/slurmctld.log >&2; exit 1; }
  /usr/sbin/slurmd -N "$NODE"
  remember slurmd /run/slurmd.pid
  if ! wait_for 60 sh -c "sinfo -h -n $NODE -o %T | grep -qx idle"; then
    scontrol update nodename="$NODE" state=resume || true
    wait_for 30 sh -c "sinfo -h -n $NODE -o %T | grep -qx idle" \
      || { sinfo -R >&2; tail -20 /var/log/slurm/slurmd.log >&2; exit 1; }
  fi
  echo "slurm up: node $NODE idle"
}

stop() {
  for name in slurmd slurmctld munged; do
    local file="$STATE/pids/$name" pid
    [ -s "$file" ] || continue
    pid=$(cat "$file")
    if kill -0 "$pid" 2>/dev/null && grep -q "$name" "/proc/$pid/comm" 2>/dev/null; then
      kill "$pid"
      for _ in $(seq 1 80); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
      kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
    fi
    rm -f "$file"
  done
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
