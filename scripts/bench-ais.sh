#!/bin/sh
# AIS against the PyTorch peer, in one run: log Z of a 784×500 RBM trained
# on binarised MNIST (PCD-1, scripts/benchais), 100 runs × 1,000 β on a
# linear schedule from the data base rate — logz in the precision an ais
# without precision gets (logz_ais_default, which names it), in float32
# and in float64; PyTorch float32 (scripts/bench-ais.py, the obvious
# batched script) on one thread and on two (torch's and OpenBLAS's), and
# once in float64 on one thread for a reference log Z. On this kind of 2-core machine the one-thread peer is
# often the faster, so the ratio is printed against each and against the
# faster of the two (the strongest peer). Every line also gives log Ẑ and
# its standard error, so the estimates can be compared.
# Usage: scripts/bench-ais.sh [--data DIR] [--epochs N]
set -eu
DATA=./data/mnist
EPOCHS=2
while [ $# -gt 0 ]; do
	case "$1" in
	--data) DATA=$2; shift 2 ;;
	--epochs) EPOCHS=$2; shift 2 ;;
	*) echo "usage: $0 [--data DIR] [--epochs N]" >&2; exit 2 ;;
	esac
done
cd "$(dirname "$0")/.."
. scripts/torch-peer.sh bench-ais
OUT=$(mktemp)
MODEL=$(mktemp -d)
trap 'rm -rf "$OUT" "$MODEL"' EXIT
go run ./scripts/benchais --data "$DATA" --epochs "$EPOCHS" --out "$MODEL" >"$OUT"
OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 $PY scripts/bench-ais.py "$MODEL" 1 f64 >>"$OUT"
OPENBLAS_NUM_THREADS=2 OMP_NUM_THREADS=2 $PY scripts/bench-ais.py "$MODEL" 2 >>"$OUT"
cat "$OUT"
awk '$1=="torch_f32_1thread"{p1=$2} $1=="torch_f32_2threads"{p2=$2} $1~/^logz_/{n++; k[n]=$1; l[n]=$2}
END{best=(p1<p2)?p1:p2; for (i = 1; i <= n; i++) printf "ratio %s: /torch-1thread %.2f, /torch-2threads %.2f, /faster-peer %.2f\n", k[i], l[i]/p1, l[i]/p2, l[i]/best}' "$OUT"
