#!/usr/bin/env bash
# slurm-e2e.sh: `logz slurm` end to end on a real (local, throw-away) Slurm.
#
#   scripts/slurm-e2e.sh [CONFIG.yaml] [SHARDS]
#
# Starts a single-node Slurm (scripts/slurm-local.sh; installed with apt-get
# when root), runs CONFIG (default: the embedded quickstart) once without
# sharding and once with `logz slurm --shards SHARDS` (default 4) — a
# training array, an evaluation array per experiment, a merge job, chained
# by afterok dependencies — waits for the jobs by polling squeue, and checks
# that the merged results.json equals the unsharded one in every number
# (the times, "seconds", aside). Prints the wall time of both. Then once
# more with --time-limit at a third of the longest experiment's training, and
# checks that a training task stopped at it, requeued itself, continued, and
# that the merged results are again the unsharded run's. Before that,
# it checks that sbatch reads a script of `logz slurm` as written: with a run
# directory holding a blank and --sbatch-args '--comment="two words"', the
# training script passes `sbatch --test-only`, and submitted on hold, the
# job has the comment "two words" and its log under the directory with the
# blank (then it is cancelled). Skips, saying why, where Slurm cannot be
# installed. About two minutes for the quickstart. .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
config="${1:-}"
shards="${2:-4}"
timeout="${LOGZ_SLURM_TIMEOUT:-1800}"

work=$(mktemp -d)
started=""
cleanup() {
	[ -n "$started" ] && scripts/slurm-local.sh stop || true
	rm -rf "$work"
}
trap cleanup EXIT

if [ -n "${SLURM_CONF:-}" ] && squeue > /dev/null 2>&1; then
	echo "slurm-e2e: using the running Slurm of SLURM_CONF=$SLURM_CONF"
else
	rc=0
	envline=$(scripts/slurm-local.sh start) || rc=$?
	if [ "$rc" = 77 ]; then
		echo "slurm-e2e: SKIPPED: Slurm is not installed and cannot be installed here (needs root and apt-get; see scripts/slurm-local.sh)"
		exit 0
	fi
	[ "$rc" = 0 ] || { echo "slurm-e2e: could not start a local Slurm (scripts/slurm-local.sh start: status $rc)"; exit 1; }
	started=1
	eval "$envline"
fi

go build -o "$work/logz" ./cmd/logz
args=()
[ -n "$config" ] && args+=("$config")

# Quoting: the #SBATCH lines of a script for a run directory with a blank
# and a comment of two words, as sbatch reads them. The script is taken
# from --dry-run's output (nothing is written or submitted by logz).
qdir="$work/my dir"
"$work/logz" slurm "${args[@]}" --shards 2 --out "$qdir" --logz "$work/logz" --dry-run \
	--sbatch-args '--comment="two words"' > "$work/quoting.out"
awk -v head="==> $qdir/slurm/train.sbatch <==" '$0 == head { on = 1; next } /^==> / { on = 0 } on' \
	"$work/quoting.out" > "$work/quoting.sbatch"
grep -q '^#SBATCH --comment=' "$work/quoting.sbatch" || { echo "slurm-e2e: FAILED: no train.sbatch in the --dry-run output:"; cat "$work/quoting.out"; exit 1; }
if ! tested=$(sbatch --test-only "$work/quoting.sbatch" 2>&1); then
	echo "slurm-e2e: FAILED: sbatch --test-only refused the script: $tested"
	cat "$work/quoting.sbatch"
	exit 1
fi
echo "slurm-e2e: sbatch --test-only: $tested"
held=$(sbatch --parsable --hold "$work/quoting.sbatch")
held=${held%%;*}
shown=$(scontrol show job "$held")
scancel "$held" || true
if ! grep -qF "Comment=two words" <<< "$shown" || ! grep -qF "StdOut=$qdir/slurm/logs/train-" <<< "$shown"; then
	echo "slurm-e2e: FAILED: sbatch read the #SBATCH lines otherwise than written:"
	grep '^#SBATCH' "$work/quoting.sbatch"
	grep -E 'Comment=|StdOut=' <<< "$shown" || echo "$shown"
	exit 1
fi
echo "slurm-e2e: OK: sbatch reads --out with a blank and --comment=\"two words\" as written"

# wait_for DIR: wait until the jobs of the run in DIR have left the queue.
wait_for() {
	local jobs deadline
	# The job ids are the quoted numbers of plan.json.
	jobs=$(grep -o '"[0-9][0-9]*"' "$1/slurm/plan.json" | tr -d '"' | paste -sd,)
	deadline=$(($(date +%s) + timeout))
	while [ -n "$(squeue -h -j "$jobs" -o %i 2> /dev/null)" ]; do
		if [ "$(date +%s)" -gt "$deadline" ]; then
			echo "slurm-e2e: jobs $jobs still queued after ${timeout}s:"
			squeue -j "$jobs" || true
			scancel $(echo "$jobs" | tr , ' ') || true
			exit 1
		fi
		sleep 0.5
	done
}

# same_results DIR: the merged results.json in DIR equals the unsharded
# run's in every number (the times, "seconds", aside).
same_results() {
	if [ ! -s "$1/results.json" ]; then
		echo "slurm-e2e: the merge wrote no results.json in $1; job logs:"
		tail -n 5 "$1"/slurm/logs/*.out
		"$work/logz" status "$1" || true
		exit 1
	fi
	norm() { sed -E 's/"seconds": [^,]*,/"seconds": 0,/' "$1"; }
	if ! cmp -s <(norm "$work/whole/results.json") <(norm "$1/results.json"); then
		echo "slurm-e2e: FAILED: the merged results.json in $1 differs from the unsharded run's:"
		diff <(norm "$work/whole/results.json") <(norm "$1/results.json") | head -20
		exit 1
	fi
}

t0=$(date +%s%N)
"$work/logz" run "${args[@]}" --out "$work/whole" > /dev/null 2> "$work/whole.log" || { tail -20 "$work/whole.log"; exit 1; }
t1=$(date +%s%N)
"$work/logz" slurm "${args[@]}" --shards "$shards" --out "$work/sharded" --logz "$work/logz" | tee "$work/submit.log"
wait_for "$work/sharded"
t2=$(date +%s%N)
same_results "$work/sharded"
printf 'slurm-e2e: OK: %s in %d shards on Slurm gives the same results.json as without (times aside)\n' "${config:-the quickstart}" "$shards"
secs() { printf '%d.%d' $(($1 / 1000000000)) $(($1 / 100000000 % 10)); }
printf 'slurm-e2e: wall time: unsharded %s s; on Slurm, submission to merged results %s s (%s CPUs)\n' \
	"$(secs $((t1 - t0)))" "$(secs $((t2 - t1)))" "$(nproc)"

# --time-limit: a limit of a third of the longest experiment's training
# (its epochs' seconds in the sharded run just made, so measured under the
# same sharing of the CPUs) stops that training task at least once; it
# requeues itself, continues from its checkpoint, and the merged results
# are still the unsharded run's. On a machine whose load changes, a run can
# be three times faster than the one measured; then the check is made
# again with a third of that run's training, up to three times.

# training_seconds DIR: the longest experiment's epoch seconds in DIR.
training_seconds() {
	local longest=0 s csv
	for csv in "$1"/*/epochs.csv; do
		s=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "seconds") c = i; next } c { t += $c } END { printf "%d", t + 0.5 }' "$csv")
		if [ "$s" -gt "$longest" ]; then longest=$s; fi
	done
	echo "$longest"
}

measured="$work/sharded"
for attempt in 1 2 3; do
	longest=$(training_seconds "$measured")
	limit=$(((longest + 2) / 3))
	[ "$limit" -ge 1 ] || limit=1
	dir="$work/limited-$attempt"
	"$work/logz" slurm "${args[@]}" --shards "$shards" --out "$dir" --logz "$work/logz" --time-limit "${limit}s" > "$dir.log" ||
		{ echo "slurm-e2e: FAILED: logz slurm --time-limit ${limit}s:"; cat "$dir.log"; exit 1; }
	wait_for "$dir"
	same_results "$dir"
	requeued=$(cat "$dir"/slurm/logs/train-*.out | grep -c "DUE TO JOB REQUEUE" || true)
	if [ "$requeued" -ge 1 ]; then
		printf 'slurm-e2e: OK: with --time-limit %ss (training %d s), training tasks were requeued %d time(s) and continued; the same results.json\n' \
			"$limit" "$longest" "$requeued"
		exit 0
	fi
	echo "slurm-e2e: no training task stopped at --time-limit ${limit}s (training took ${longest} s in the run measured, $(training_seconds "$dir") s in this one); again with a third of this one's"
	measured=$dir
done
echo "slurm-e2e: FAILED: in three attempts no training task stopped at its --time-limit and was requeued; the last one's logs:"
tail -n 5 "$dir"/slurm/logs/train-*.out
exit 1
