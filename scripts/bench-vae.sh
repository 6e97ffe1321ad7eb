#!/bin/sh
# One training epoch of the Ber(200) VAE (tanh MLPs 784-500-200 and
# 200-500-784, NVIL with a 100-unit baseline net and the signal's running
# normalisation, one draw per example, Adam 3e-4, minibatch 100, no
# evaluation) on the first N training images of MNIST, stochastically
# binarised with a fixed seed (the same bits for both sides), and the same
# with a 64-latent VAE and an RBM(64,64) prior trained by the χ² bound
# (prior_training chi2 with the defaults: 10 q steps of 30 draws per
# minibatch, a mixture of 10 Bernoulli products), side by side in one run:
#   pytorch_ber200    scripts/bench-vae.py, the same model and NVIL update in
#                     PyTorch float32 on the CPU, two threads (and
#                     pytorch_ber200_1thread on one);
#   logz_ber200       `logz run` of one epoch with the vae family's defaults
#                     (Ber(200), train.method nvil), from the run's epochs.csv;
#   pytorch_rbm64x64  bench-vae.py --prior rbm64x64: the RBM-prior update
#                     with q's fitting, as logz's defaults (its docstring
#                     says exactly which update), float32, two threads (and
#                     pytorch_rbm64x64_1thread on one);
#   logz_rbm64x64     `logz run` of the RBM(64,64)-prior VAE;
# with both peer times and the ratios logz_ber200/pytorch_ber200 (≤ 0.5
# wanted), logz_rbm64x64/pytorch_rbm64x64 — each against the faster of the
# peer's one- and two-thread runs — and logz_rbm64x64/logz_ber200 (≤ 1.5
# wanted), and each side's epoch signal (the mean training ELBO; with the
# RBM prior log Z is the tracked χ² bound, elbo-chi2). Add --precision P
# to time logz in another train.precision as well. Before timing,
# `bench-vae.py --check` tests the peer's χ² pieces against enumeration on
# an 8×4 RBM (the script stops if one fails).
# On this 2-core machine, loaded, PyTorch's two threads were often slower
# than its one (torch.set_num_threads), so logz is compared with the faster.
# A host's speed can change by a third between runs a minute apart: --repeat R
# times every side R times, alternated (peer, logz, peer, logz, ...), prints
# every run, and takes each side's fastest run for the ratios (as timeit
# does: the run least disturbed by the rest of the machine).
# Usage: scripts/bench-vae.sh [--data DIR] [--examples N] [--precision P] [--repeat R]
set -eu
DATA=./data/mnist
N=10000
EXTRA=
R=1
while [ $# -gt 0 ]; do
	case "$1" in
	--data) DATA=$2; shift 2 ;;
	--examples) N=$2; shift 2 ;;
	--precision) EXTRA=$2; shift 2 ;;
	--repeat) R=$2; shift 2 ;;
	*) echo "usage: $0 [--data DIR] [--examples N] [--precision P] [--repeat R]" >&2; exit 2 ;;
	esac
done
. "$(dirname "$0")/torch-peer.sh" bench-vae
case "$DATA" in /*) ;; *) DATA=$(pwd)/$DATA ;; esac
cd "$(dirname "$0")/.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
go build -o "$TMP/benchsbn" ./scripts/benchsbn
go build -o "$TMP/logz" ./cmd/logz
# The slice: the first N training images, binarised once (seed 1); logz
# reads it as an N×784 .npy of 0/1 bytes, the peer as raw bytes.
"$TMP/benchsbn" --data "$DATA" --examples "$N" --dump "$TMP/x.u8"
$PY -c 'import sys, numpy as np; np.save(sys.argv[2], np.fromfile(sys.argv[1], dtype=np.uint8).reshape(-1, 784))' "$TMP/x.u8" "$TMP/x.npy"
# One epoch by `logz run` (the family's defaults, no evaluation); prints
# "NAME SECONDS elbo SIGNAL" from the run's epochs.csv.
logz_epoch() { # NAME MODEL PRECISION
	prec=
	[ -z "$3" ] || prec=", precision: $3"
	cat >"$TMP/$1.yaml" <<YAML
name: bench-vae
seed: 1
experiments:
  - name: vae
    data: {train: "npy:$TMP/x.npy", test: "npy:$TMP/x.npy", limit_test: 10}
    model: {type: vae, $2}
    train: {method: nvil, epochs: 1$prec}
    evaluate: {splits: [test], every_epoch: [], final: []}
YAML
	"$TMP/logz" run "$TMP/$1.yaml" --out "$TMP/run-$1-$rep" >/dev/null 2>"$TMP/run-$1.err" || { cat "$TMP/run-$1.err" >&2; exit 1; }
	awk -F, -v name="$1" 'NR==1{for (i = 1; i <= NF; i++) c[$i] = i; next}
		$c["split"]=="train"{printf "%s %.3f elbo %.3f\n", name, $c["seconds"], $c["value"]}' "$TMP/run-$1-$rep/vae/epochs.csv"
}
$PY scripts/bench-vae.py --check >"$TMP/check" || { cat "$TMP/check" >&2; echo "$0: the PyTorch peer failed its check" >&2; exit 1; }
echo "load before: $(uptime)" >"$TMP/out"
rep=1
while [ "$rep" -le "$R" ]; do
	$PY scripts/bench-vae.py "$TMP/x.u8" >>"$TMP/out"
	$PY scripts/bench-vae.py "$TMP/x.u8" 1 >>"$TMP/out"
	logz_epoch logz_ber200 "latent: 200, prior: bernoulli" "" >>"$TMP/out"
	$PY scripts/bench-vae.py "$TMP/x.u8" --prior rbm64x64 >>"$TMP/out"
	$PY scripts/bench-vae.py "$TMP/x.u8" 1 --prior rbm64x64 >>"$TMP/out"
	logz_epoch logz_rbm64x64 "latent: 64, prior: rbm, prior_hidden: 64" "" >>"$TMP/out"
	if [ -n "$EXTRA" ]; then
		logz_epoch "logz_ber200_$EXTRA" "latent: 200, prior: bernoulli" "$EXTRA" >>"$TMP/out"
		logz_epoch "logz_rbm64x64_$EXTRA" "latent: 64, prior: rbm, prior_hidden: 64" "$EXTRA" >>"$TMP/out"
	fi
	rep=$((rep + 1))
done
echo "load after: $(uptime)" >>"$TMP/out"
sed 's/^/check: /' "$TMP/check"
cat "$TMP/out"
# Each name's fastest run (one run each without --repeat).
awk -v R="$R" '$1~/^pytorch_/{if (!($1 in p) || $2 < p[$1]) p[$1] = $2}
	$1~/^logz_ber200/{if (!($1 in b)) {n++; k[n] = $1}; if (!($1 in b) || $2 < b[$1]) b[$1] = $2}
	$1~/^logz_rbm64x64/{if (!($1 in rb)) {m++; rk[m] = $1}; if (!($1 in rb) || $2 < rb[$1]) rb[$1] = $2}
	function best(w) { # the faster of the peer on 2 threads (w) and on 1 (w_1thread)
		bn[w] = (p[w "_1thread"] < p[w]) ? "1 thread" : "2 threads"
		return (p[w "_1thread"] < p[w]) ? p[w "_1thread"] : p[w] }
	END{for (i = 1; i <= n; i++) l[i] = b[k[i]]
	    for (i = 1; i <= m; i++) rl[i] = rb[rk[i]]
	    if (R > 1) printf "each side: the fastest of %d alternated runs\n", R
	    fb = best("pytorch_ber200"); fr = best("pytorch_rbm64x64")
	    printf "peer pytorch_ber200: 1 thread %.3f s, 2 threads %.3f s; the faster: %s\n", p["pytorch_ber200_1thread"], p["pytorch_ber200"], bn["pytorch_ber200"]
	    printf "peer pytorch_rbm64x64: 1 thread %.3f s, 2 threads %.3f s; the faster: %s\n", p["pytorch_rbm64x64_1thread"], p["pytorch_rbm64x64"], bn["pytorch_rbm64x64"]
	    for (i = 1; i <= n; i++) printf "ratio %s/pytorch_ber200 %.2f (the faster peer, %s; at most 0.5 wanted)\n", k[i], l[i]/fb, bn["pytorch_ber200"]
	    for (i = 1; i <= m; i++) printf "ratio %s/pytorch_rbm64x64 %.2f (the faster peer, %s)\n", rk[i], rl[i]/fr, bn["pytorch_rbm64x64"]
	    for (i = 1; i <= m; i++) { s = rk[i]; sub(/rbm64x64/, "ber200", s); if (s in b) printf "ratio %s/%s %.2f (at most 1.5 wanted)\n", rk[i], s, rl[i]/b[s] }}' "$TMP/out"
