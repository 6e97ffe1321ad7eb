#!/usr/bin/env bash
# slurm-local.sh: a throw-away single-node Slurm on this machine, for
# testing `logz slurm` (scripts/slurm-e2e.sh) and trying it out.
#
#   scripts/slurm-local.sh start    install (as root, with apt-get) and start
#   scripts/slurm-local.sh stop     stop the daemons and remove everything
#   scripts/slurm-local.sh env      print the variables the clients need
#
# After start:  eval "$(scripts/slurm-local.sh env)"; sbatch, squeue, sinfo
# then talk to this Slurm. Nothing outside one folder is touched
# ($LOGZ_SLURM_DIR, default ${TMPDIR:-/tmp}/logz-slurm-$UID): configuration,
# munge key and socket, state, spool, PID and log files all live there, and
# stop kills exactly the daemons named by its PID files.
#
# The settings follow what was measured on Debian bookworm (Slurm 22.05.8) in
# a container without systemd: cgroup plugins fail there and drain the node,
# so processes are tracked by proctrack/linuxproc with task/none;
# select/cons_tres with CR_CPU; SlurmdParameters=config_overrides (the node
# is what the config says); no accounting or job completion storage (so no
# sacct); munged on a private socket (AuthInfo=socket=…), with credentials
# of 10 s (cred_expire=10; a requeued job waits that long, rather than two
# minutes, before it may start again); the scheduler
# without its batch delay; and ports $LOGZ_SLURM_PORT and the next
# (default 26817, 26818) rather than Slurm's 6817/6818, so a real Slurm on
# the machine is not disturbed. The node comes up in about a second.
#
# Exit status 77 means Slurm is not installed and cannot be (not root, or no
# apt-get): callers skip, saying so.
set -euo pipefail

readonly DIR="${LOGZ_SLURM_DIR:-${TMPDIR:-/tmp}/logz-slurm-$(id -u)}"
readonly PORT="${LOGZ_SLURM_PORT:-26817}"
readonly PKGS=(slurmctld slurmd slurm-client munge)

say() { echo "slurm-local: $*" >&2; }

install() {
	local missing=()
	for c in slurmctld slurmd sbatch squeue munged; do
		command -v "$c" > /dev/null || missing+=("$c")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" != 0 ] || ! command -v apt-get > /dev/null; then
		say "Slurm is not installed (no ${missing[*]}) and this script can install it only as root with apt-get: apt-get install ${PKGS[*]}"
		exit 77
	fi
	say "installing ${PKGS[*]} with apt-get"
	# Keep the packages' maintainer scripts from starting system daemons.
	local policy=/usr/sbin/policy-rc.d added=""
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod +x "$policy" && added=1
	fi
	local ok=1
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${PKGS[@]}" > /dev/null; } || ok=""
	[ -n "$added" ] && rm -f "$policy"
	if [ -z "$ok" ]; then
		say "apt-get install ${PKGS[*]} failed"
		exit 77
	fi
}

# alive PIDFILE: the process named by a PID file is running.
alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2> /dev/null; }

write_conf() {
	local host cpus
	host=$(hostname -s)
	cpus=$(nproc)
	cat > "$DIR/slurm.conf" << EOF
# Throw-away single-node Slurm written by logz scripts/slurm-local.sh.
ClusterName=logzlocal
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=$(id -un)
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$DIR/munge/munge.socket,cred_expire=10
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
SchedulerParameters=batch_sched_delay=0,sched_min_interval=100000
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
}

start() {
	install
	if alive "$DIR/run/slurmctld.pid"; then
		say "already running (state in $DIR)"
		print_env
		return 0
	fi
	mkdir -p "$DIR"/{munge,state,spool,run,log}
	chmod 700 "$DIR/munge"
	if [ ! -s "$DIR/munge/munge.key" ]; then
		dd if=/dev/urandom of="$DIR/munge/munge.key" bs=1024 count=1 status=none
		chmod 400 "$DIR/munge/munge.key"
	fi
	munged --socket="$DIR/munge/munge.socket" --key-file="$DIR/munge/munge.key" \
		--pid-file="$DIR/run/munged.pid" --log-file="$DIR/log/munged.log" \
		--seed-file="$DIR/munge/munged.seed" --force
	write_conf
	export SLURM_CONF="$DIR/slurm.conf"
	slurmctld -f "$SLURM_CONF"
	slurmd -f "$SLURM_CONF"
	# Wait for the node to be idle.
	local state=""
	for _ in $(seq 1 300); do
		state=$(sinfo -h -N -o %T 2> /dev/null | head -1 || true)
		case "$state" in idle | mixed | allocated) break ;; esac
		sleep 0.1
	done
	case "$state" in
	idle | mixed | allocated) ;;
	*)
		say "the node did not come up (state '${state:-none}'); logs in $DIR/log:"
		tail -n 5 "$DIR"/log/*.log >&2 || true
		stop
		exit 1
		;;
	esac
	say "Slurm is up: node $(hostname -s), $(nproc) CPUs, partition local; state in $DIR"
	print_env
}

stop() {
	for d in slurmd slurmctld munged; do
		local pf="$DIR/run/$d.pid"
		if alive "$pf"; then
			local pid
			pid=$(cat "$pf")
			kill "$pid" 2> /dev/null || true
			for _ in $(seq 1 50); do
				kill -0 "$pid" 2> /dev/null || break
				sleep 0.1
			done
			kill -0 "$pid" 2> /dev/null && kill -9 "$pid" 2> /dev/null || true
		fi
	done
	if [ -d "$DIR" ]; then
		rm -rf "$DIR"
		say "stopped; removed $DIR"
	fi
}

print_env() { echo "export SLURM_CONF=$DIR/slurm.conf"; }

case "${1:-}" in
start) start ;;
stop) stop ;;
env) print_env ;;
*)
	echo "usage: $(basename "$0") start|stop|env" >&2
	exit 2
	;;
esac
