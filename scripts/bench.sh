#!/bin/sh
# bench.sh — runs the estimator benchmarks of logz and prints their results.
#
#   scripts/bench.sh          all benchmarks (the full AIS estimate takes ~1 min)
#   scripts/bench.sh quick    everything but the full AIS estimate
#
# The 784×500 AIS benchmarks use a synthetic RBM (weights N(0,0.05²), ≈12% of
# pixels on) unless LOGZ_MNIST_DIR names a directory holding
# train-images-idx3-ubyte.gz: then they use an RBM trained on MNIST by PCD-1
# (LOGZ_MNIST_UPDATES updates, default 2000; trained once and cached in the
# temporary directory). Figures are wall-clock on GOMAXPROCS cores. The AIS
# benchmarks run in float32 (the default of an rbm's ais) and float64. The
# comparison with the PyTorch peer (one and two threads) is
# scripts/bench-ais.sh.
set -eu
cd "$(dirname "$0")/.."

echo "== fast exp and one chain's fused AIS step (inference)"
go test ./inference/ -run '^$' -bench 'BenchmarkExp(Fast|Math|NegAbsSlice)$|BenchmarkRBMChainStep784x500' -benchmem -count 1

echo "== one AIS step of 100 chains, 784×500 (eval)"
go test ./eval/ -run '^$' -bench 'BenchmarkAISStep784x500' -benchtime 300x -benchmem -count 1

echo "== AIS estimate: 100 runs × 1,000 β, 784×500 (eval)"
go test ./eval/ -run '^$' -bench 'BenchmarkAIS1000x784x500' -benchtime 1x -benchmem -count 1

echo "== exact log Z, 784×25 (eval)"
go test ./eval/ -run '^$' -bench 'BenchmarkExactLogZ784x25' -benchtime 1x -benchmem -count 1

if [ "${1:-}" != quick ]; then
	echo "== full AIS estimate: 100 runs × 14,500 β, 784×500 (eval)"
	go test ./eval/ -run '^$' -bench 'BenchmarkAISFull784x500' -benchtime 1x -benchmem -count 1 -timeout 30m
fi
