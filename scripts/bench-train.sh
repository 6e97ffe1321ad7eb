#!/bin/sh
# One MNIST training epoch (784×500, minibatch 100) in one run: scikit-learn
# BernoulliRBM (PCD-1, float32 and float64, each with its BLAS on one
# thread and on two: on a 2-core machine one is often the faster, so the
# ratios are printed against both and against the faster, the strongest
# peer) and logz PCD-1 and CD-1 in the
# precision a config without train.precision gets (logz_*_default, which
# names it), in float32 and in float64, on the same binarised data
# (threshold 0.5), with the ratios logz/sklearn-f32 (≤ 0.5 by default is
# the target; float32 against float32 is the like-for-like one).
# logz PCD reports its reconstruction error on every 10th example
# (recon-1in10), a monitor.
# Usage: scripts/bench-train.sh [--data DIR] [--lr LR]
set -eu
DATA=./data/mnist
LR=0.05
while [ $# -gt 0 ]; do
	case "$1" in
	--data) DATA=$2; shift 2 ;;
	--lr) LR=$2; shift 2 ;;
	*) echo "usage: $0 [--data DIR] [--lr LR]" >&2; exit 2 ;;
	esac
done
PY=/usr/bin/python3
if ! $PY -c 'import sklearn, numpy, threadpoolctl' 2>/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		apt-get install -y -q python3-sklearn python3-numpy python3-threadpoolctl >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q python3-sklearn python3-numpy python3-threadpoolctl >/dev/null; }
	else
		echo "bench-train: needs python3-sklearn and python3-numpy" >&2; exit 1
	fi
fi
cd "$(dirname "$0")/.."
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
$PY - "$DATA" "$LR" >"$OUT" <<'PYEOF'
import gzip, sys, time, numpy as np
from sklearn.neural_network import BernoulliRBM
d, lr = sys.argv[1], float(sys.argv[2])
with gzip.open(d + "/train-images-idx3-ubyte.gz") as f:
    x = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 784)
x = (x / 255.0 > 0.5)
from threadpoolctl import threadpool_limits
for name, dt in (("f32", np.float32), ("f64", np.float64)):
    X = x.astype(dt)
    for threads in (1, 2):
        r = BernoulliRBM(n_components=500, batch_size=100, n_iter=1, learning_rate=lr, random_state=0)
        with threadpool_limits(limits=threads):
            t0 = time.perf_counter(); r.fit(X); t = time.perf_counter() - t0
        print("sklearn_%s_%dthread %.3f" % (name, threads, t))
PYEOF
go run ./scripts/benchtrain --data "$DATA" --lr "$LR" >>"$OUT"
cat "$OUT"
awk '$1=="sklearn_f32_1thread"{s1=$2} $1=="sklearn_f32_2thread"{s2=$2} $1~/^logz_/{n++; k[n]=$1; l[n]=$2}
END{best=(s1<s2)?s1:s2; for (i = 1; i <= n; i++) printf "ratio %s: /sklearn_f32-1thread %.2f, /sklearn_f32-2threads %.2f, /faster %.2f\n", k[i], l[i]/s1, l[i]/s2, l[i]/best}' "$OUT"
