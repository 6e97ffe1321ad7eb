#!/bin/sh
# One training epoch of an SBN 784-200 (DSGHMC, minibatch 100, 10 dynamics
# steps per minibatch, 5 latent samples per example) on the first N
# training images of MNIST, stochastically binarised with a fixed seed (the
# same bits for both sides), side by side in one run:
#   pytorch_adaptive_is  scripts/bench-sbn.py, the same model and update as
#                        logz's adaptive importance sampler in PyTorch
#                        float32 on the CPU, two threads;
#   logz_adaptive_is     logz's trainer with the sbn family's defaults;
#   logz_gibbs           logz's trainer with the Gibbs sampler (no peer);
# with the ratio logz/PyTorch (issue 27 asks for ≤ 0.5) and each side's
# epoch signal (the mean IS bound at the last step of each minibatch; the
# two should be close). Add --precision P to time logz in another
# train.precision as well.
# Usage: scripts/bench-sbn.sh [--data DIR] [--examples N] [--precision P]
set -eu
DATA=./data/mnist
N=10000
EXTRA=
while [ $# -gt 0 ]; do
	case "$1" in
	--data) DATA=$2; shift 2 ;;
	--examples) N=$2; shift 2 ;;
	--precision) EXTRA=$2; shift 2 ;;
	*) echo "usage: $0 [--data DIR] [--examples N] [--precision P]" >&2; exit 2 ;;
	esac
done
PY=/usr/bin/python3
# PyTorch's Debian build takes its matrix products from the system BLAS:
# on the reference BLAS the peer runs several times slower than the obvious
# script does anywhere else, so OpenBLAS comes with it.
BLAS=/usr/lib/$(uname -m)-linux-gnu/libopenblas.so.0
need=
$PY -c 'import torch, numpy' 2>/dev/null || need="python3-torch python3-numpy"
[ -e "$BLAS" ] || need="$need libopenblas0-pthread"
if [ -n "$need" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		apt-get install -y -q $need >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q $need >/dev/null; }
	elif ! $PY -c 'import torch, numpy' 2>/dev/null; then
		echo "bench-sbn: needs python3-torch and python3-numpy (apt-get install python3-torch python3-numpy libopenblas0-pthread)" >&2; exit 1
	else
		echo "bench-sbn: no OpenBLAS ($BLAS): PyTorch's products run on the system's reference BLAS, and its time says little" >&2
	fi
fi
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/benchsbn" ./scripts/benchsbn
"$TMP/benchsbn" --data "$DATA" --examples "$N" --dump "$TMP/x.u8"
echo "load before: $(uptime)" >"$TMP/out"
$PY scripts/bench-sbn.py "$TMP/x.u8" >>"$TMP/out"
"$TMP/benchsbn" --data "$DATA" --examples "$N" --samplers adaptive-is >>"$TMP/out"
if [ -n "$EXTRA" ]; then
	"$TMP/benchsbn" --data "$DATA" --examples "$N" --samplers adaptive-is --precision "$EXTRA" | sed "s/^logz_adaptive_is/logz_adaptive_is_$EXTRA/" >>"$TMP/out"
fi
"$TMP/benchsbn" --data "$DATA" --examples "$N" --samplers gibbs >>"$TMP/out"
echo "load after: $(uptime)" >>"$TMP/out"
cat "$TMP/out"
awk '$1=="pytorch_adaptive_is"{p=$2} $1~/^logz_adaptive_is/{n++; k[n]=$1; l[n]=$2} END{for (i = 1; i <= n; i++) printf "ratio %s/pytorch_adaptive_is %.2f\n", k[i], l[i]/p}' "$TMP/out"
