#!/usr/bin/env bash
# check-shards.sh: sharded runs give the numbers of unsharded ones, bit for bit.
#
#   scripts/check-shards.sh [CONFIG.yaml ...]
#
# For each config (default: every quickstart-size config in configs/) it
# runs `logz run` once without sharding, then trains once with
# `--shard 0/1 --phase train`, and for n = 1, 2, 3 and 7 computes the final
# evaluation in n shards (`--shard i/n --phase eval`) and merges them
# (`logz merge`). The merged results.json must equal the unsharded one in
# every number — the times ("seconds") aside, which the check sets to 0 —
# and so must each experiment's epochs.csv (its seconds column aside) and
# samples.npy. Shards of one n run side by side. A few minutes; .ci/run
# calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(configs/quickstart.yaml configs/quickstart-chi2.yaml configs/quickstart-dbn.yaml
	configs/quickstart-dbm.yaml configs/quickstart-sbn.yaml configs/quickstart-vae.yaml configs/ising-quickstart.yaml)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/logz" ./cmd/logz
L="$work/logz"

norm_results() { sed -E 's/"seconds": [^,]*,/"seconds": 0,/' "$1"; }
# epochs.csv with its 13th column (seconds) emptied; no field of these
# files holds a comma inside quotes before that column.
norm_csv() { awk -F, 'BEGIN { OFS = "," } NR > 1 { $13 = "" } { print }' "$1"; }

# same A B: the files that must not depend on sharding are equal.
same() {
	local a=$1 b=$2 ok=1
	cmp -s <(norm_results "$a/results.json") <(norm_results "$b/results.json") || {
		echo "  results.json differs:"
		diff <(norm_results "$a/results.json") <(norm_results "$b/results.json") | head -8
		ok=""
	}
	for f in "$a"/*/epochs.csv "$a"/*/samples.npy; do
		[ -e "$f" ] || continue
		local g="$b/${f#"$a"/}"
		case "$f" in
		*.csv) cmp -s <(norm_csv "$f") <(norm_csv "$g") || { echo "  ${f#"$a"/} differs"; ok=""; } ;;
		*) cmp -s "$f" "$g" || { echo "  ${f#"$a"/} differs"; ok=""; } ;;
		esac
	done
	[ -n "$ok" ]
}

fail=0
for c in "${configs[@]}"; do
	name=$(basename "$c" .yaml)
	d="$work/$name"
	mkdir -p "$d"
	s=$(date +%s)
	"$L" run "$c" --out "$d/whole" > /dev/null 2> "$d/whole.log" || { echo "$name: logz run failed"; tail -5 "$d/whole.log"; fail=1; continue; }
	"$L" run "$c" --out "$d/trained" --shard 0/1 --phase train > /dev/null 2> "$d/train.log" || { echo "$name: training failed"; tail -5 "$d/train.log"; fail=1; continue; }
	for n in 1 2 3 7; do
		cp -r "$d/trained" "$d/$n"
		pids=()
		for i in $(seq 0 $((n - 1))); do
			"$L" run "$c" --out "$d/$n" --shard "$i/$n" --phase eval > /dev/null 2> "$d/eval-$n-$i.log" &
			pids+=($!)
		done
		for i in "${!pids[@]}"; do
			wait "${pids[$i]}" || { echo "$name: shard $i/$n failed"; tail -5 "$d/eval-$n-$i.log"; fail=1; }
		done
		if ! "$L" merge "$d/$n" > /dev/null 2> "$d/merge-$n.log"; then
			echo "$name: merge of $n shards failed"
			tail -5 "$d/merge-$n.log"
			fail=1
			continue
		fi
		if same "$d/whole" "$d/$n"; then
			echo "$name: $n shard(s): same numbers as unsharded"
		else
			echo "$name: $n shard(s): DIFFERENT from unsharded"
			fail=1
		fi
		rm -rf "$d/$n"
	done
	echo "$name: $(($(date +%s) - s)) s"
done
exit $fail
