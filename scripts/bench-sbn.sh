#!/bin/sh
# One training epoch of an SBN 784-200 (DSGHMC, minibatch 100, 10 dynamics
# steps per minibatch, 5 latent samples per example) on the first N
# training images of MNIST, stochastically binarised with a fixed seed (the
# same bits for both sides), side by side in one run:
#   pytorch_adaptive_is_1t, _2t  scripts/bench-sbn.py, the same model and
#                        update as logz's adaptive importance sampler in
#                        PyTorch float32 on the CPU, on one and on two
#                        threads (torch.set_num_threads);
#   logz_adaptive_is     logz's trainer with the sbn family's defaults;
#   logz_gibbs           `logz run` of one Gibbs-sampler epoch (the family's
#                        defaults, no evaluation), and the same with logz
#                        as of commit bf56128 (logz_gibbs_bf56128, before
#                        the speed work; built from this repository's
#                        history, skipped when that is not at hand);
# with the ratios logz/PyTorch against the faster of the peer's two runs
# (at most 0.5 is the goal) and
# bf56128/logz for Gibbs (at least 3 is the goal), and each side's epoch
# signal (adaptive IS: the mean IS bound at the last step of each
# minibatch, close between the two sides; Gibbs: the mean log-joint of the
# kept states). Add --precision P to time logz's adaptive importance
# sampler in another train.precision as well; --gibbs-examples M times
# Gibbs on the first M images instead of N. A host's speed can change by a
# third between runs a minute apart: --repeat R times every side R times,
# alternated, prints every run, and takes each side's fastest run for the
# ratios (as timeit does: the run least disturbed by the rest of the machine).
# Usage: scripts/bench-sbn.sh [--data DIR] [--examples N] [--gibbs-examples M] [--precision P] [--repeat R]
set -eu
DATA=./data/mnist
N=10000
M=
EXTRA=
R=1
while [ $# -gt 0 ]; do
	case "$1" in
	--data) DATA=$2; shift 2 ;;
	--examples) N=$2; shift 2 ;;
	--gibbs-examples) M=$2; shift 2 ;;
	--precision) EXTRA=$2; shift 2 ;;
	--repeat) R=$2; shift 2 ;;
	*) echo "usage: $0 [--data DIR] [--examples N] [--gibbs-examples M] [--precision P] [--repeat R]" >&2; exit 2 ;;
	esac
done
. "$(dirname "$0")/torch-peer.sh" bench-sbn
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/benchsbn" ./scripts/benchsbn
go build -o "$TMP/logz" ./cmd/logz
OLD=bf56128
if git rev-parse -q --verify "$OLD^{commit}" >/dev/null 2>&1; then
	mkdir "$TMP/old"
	git archive "$OLD" | tar -x -C "$TMP/old"
	(cd "$TMP/old" && go build -o "$TMP/logz-$OLD" ./cmd/logz)
else
	echo "bench-sbn: commit $OLD is not in this checkout (a shallow clone?): no Gibbs ratio" >&2
fi
# One Gibbs epoch by `logz run` (the family's defaults, no evaluation);
# prints "NAME SECONDS log-joint SIGNAL" from the run's epochs.csv.
[ -n "$M" ] || M=$N
cat >"$TMP/gibbs.yaml" <<EOF
name: bench-gibbs
seed: 1
experiments:
  - name: gibbs
    data: {train: mnist:train, test: mnist:test, binarize: stochastic, limit_train: $M, limit_test: 10}
    model: {type: sbn, layers: [200]}
    train: {sampler: gibbs, epochs: 1}
    evaluate: {splits: [test], every_epoch: [], final: []}
EOF
gibbs_epoch() { # NAME BINARY
	LOGZ_DATA_DIR="$DATA" "$2" run "$TMP/gibbs.yaml" --out "$TMP/run-$1-$rep" >/dev/null 2>"$TMP/run-$1.err" || { cat "$TMP/run-$1.err" >&2; exit 1; }
	awk -F, -v name="$1" '$2=="train"{printf "%s %.3f log-joint %.3f\n", name, $13, $10}' "$TMP/run-$1-$rep/gibbs/epochs.csv"
}
"$TMP/benchsbn" --data "$DATA" --examples "$N" --dump "$TMP/x.u8"
echo "load before: $(uptime)" >"$TMP/out"
rep=1
while [ "$rep" -le "$R" ]; do
	$PY scripts/bench-sbn.py "$TMP/x.u8" 1 >>"$TMP/out"
	$PY scripts/bench-sbn.py "$TMP/x.u8" 2 >>"$TMP/out"
	"$TMP/benchsbn" --data "$DATA" --examples "$N" --samplers adaptive-is >>"$TMP/out"
	if [ -n "$EXTRA" ]; then
		"$TMP/benchsbn" --data "$DATA" --examples "$N" --samplers adaptive-is --precision "$EXTRA" | sed "s/^logz_adaptive_is/logz_adaptive_is_$EXTRA/" >>"$TMP/out"
	fi
	gibbs_epoch logz_gibbs "$TMP/logz" >>"$TMP/out"
	[ ! -x "$TMP/logz-$OLD" ] || gibbs_epoch "logz_gibbs_$OLD" "$TMP/logz-$OLD" >>"$TMP/out"
	rep=$((rep + 1))
done
echo "load after: $(uptime)" >>"$TMP/out"
cat "$TMP/out"
# Each name's fastest run (one run each without --repeat).
awk -v R="$R" '$1~/^pytorch_adaptive_is_/{if (p == "" || $2 < p) {p=$2; pn=$1}}
	$1~/^logz_adaptive_is/{if (!($1 in t)) {n++; k[n] = $1}; if (!($1 in t) || $2 < t[$1]) t[$1] = $2}
	$1=="logz_gibbs"{if (g == "" || $2 < g) g=$2} $1~/^logz_gibbs_/{if (o == "" || $2 < o) o=$2; on=$1}
	END{if (R > 1) printf "each side: the fastest of %d alternated runs\n", R
	    for (i = 1; i <= n; i++) printf "ratio %s/%s %.2f (the faster peer; goal: at most 0.5)\n", k[i], pn, t[k[i]]/p
	    if (o != "") printf "ratio %s/logz_gibbs %.2f (goal: at least 3)\n", on, o/g}' "$TMP/out"
