#!/usr/bin/env bash
# eval-sbn.sh: the evaluations Du, Zhu & Zhang (2015) report for a trained
# sigmoid belief net, beyond those a run's config does at its end, each
# written as a results.json object into OUTDIR:
#
#   is-<L>.json      IS with the recognition network on the first N test
#                    images at L = 1,000, 10,000 and 100,000 proposals, so
#                    a reader sees the estimate converge in L
#   ais.json         per-example AIS (16 chains x 1,000 beta) on the same
#                    N images: its difference from IS is the paper's
#                    "the two agree within 0.7 nats"
#   bdmc.json        BDMC on N images simulated from the model: forward and
#                    reverse AIS bracket their mean log p(x)
#   is-full-<F>.json IS on all 10,000 test images at F proposals, in two
#                    shards side by side (--full F; 0 skips it)
#
# Models without a recognition network (Gibbs-trained) get ais.json and
# bdmc.json only. The test images are the bits the run that trained the
# model evaluated (logz eval reads the run's record in the model file; for
# a model without one, stochastic binarisation with logz eval's seed 1),
# the same bits for every file here.
#
#   scripts/eval-sbn.sh MODEL.npz OUTDIR [--examples N] [--full F] [--max-is L]
#
# e.g. scripts/eval-sbn.sh docs/runs/repro-dsghmc-sbn200-is/sbn200-is/model.npz \
#        docs/runs/repro-dsghmc-sbn200-is/eval --full 2000
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 MODEL.npz OUTDIR [--examples N] [--full F] [--max-is L]" >&2; exit 2; }
model=$(realpath "$1")
out=$2
shift 2
N=100
FULL=0
MAXIS=100000
while [ $# -gt 0 ]; do
	case "$1" in
	--examples) N=$2; shift 2 ;;
	--full) FULL=$2; shift 2 ;;
	--max-is) MAXIS=$2; shift 2 ;;
	*) echo "usage: eval-sbn.sh MODEL.npz OUTDIR [--examples N] [--full F] [--max-is L]" >&2; exit 2 ;;
	esac
done
mkdir -p "$out"
out=$(realpath "$out")
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/logz" ./cmd/logz
L="$work/logz"
ev() { # NAME FLAGS...: one evaluation into OUTDIR/NAME.json, atomically
	local name=$1
	shift
	local t0=$SECONDS
	"$L" eval --model "$model" --data mnist:test --json "$@" >"$out/$name.json.tmp"
	mv "$out/$name.json.tmp" "$out/$name.json"
	echo "eval-sbn: $name.json ($((SECONDS - t0)) s)" >&2
}
has_rec=0
if "$L" eval --model "$model" --data mnist:test --limit 1 --estimator is --samples 1 --json >/dev/null 2>&1; then
	has_rec=1
fi
if [ $has_rec = 1 ]; then
	for s in 1000 10000 100000; do
		[ "$s" -le "$MAXIS" ] || continue
		ev "is-$s" --limit "$N" --estimator is --samples "$s"
	done
fi
ev ais --limit "$N" --estimator ais --chains 16 --betas 1000 --examples 0
ev bdmc --limit "$N" --estimator bdmc --chains 16 --betas 1000 --examples "$N"
if [ $has_rec = 1 ] && [ "$FULL" -gt 0 ]; then
	t0=$SECONDS
	pids=()
	for i in 0 1; do
		"$L" eval --model "$model" --data mnist:test --estimator is --samples "$FULL" --shard "$i/2" --parts "$work/parts" 2>"$work/shard$i.err" &
		pids+=($!)
	done
	for i in 0 1; do
		wait "${pids[$i]}" || { echo "eval-sbn: shard $i/2 failed:" >&2; cat "$work/shard$i.err" >&2; exit 1; }
	done
	"$L" eval --model "$model" --data mnist:test --estimator is --samples "$FULL" --parts "$work/parts" --json >"$out/is-full-$FULL.json.tmp"
	mv "$out/is-full-$FULL.json.tmp" "$out/is-full-$FULL.json"
	echo "eval-sbn: is-full-$FULL.json ($((SECONDS - t0)) s)" >&2
fi
