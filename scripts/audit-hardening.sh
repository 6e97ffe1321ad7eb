#!/usr/bin/env bash
# audit-hardening.sh — replays the bad-input cases of issue #11 against a
# freshly built logz and prints one Markdown row per case: the command, its
# exit status and the last line it printed on stderr. Nothing here is a
# test (the Go tests pin every message); it is the table a reviewer reads.
#
#   scripts/audit-hardening.sh            # needs go; python3 with numpy for two cases
set -uo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/logz" ./cmd/logz || exit 1
logz="$work/logz"
cd "$work"

row() { # row CASE CMD... : run CMD, print | case | exit | last stderr line |
	local name=$1; shift
	local err status
	err=$(timeout 60 "$@" 2>&1 >/dev/null); status=$?
	err=$(printf '%s\n' "$err" | grep -v '^\s*$' | tail -n 1 | cut -c1-220)
	printf '| %s | %s | %s |\n' "$name" "$status" "${err//|/\\|}"
}

cat > tiny.yaml <<'EOF'
name: tiny
seed: 1
base:
  data: {train: planted:train, test: planted:test, planted: {train: 200, test: 100}}
  model: {type: rbm, hidden: 4}
  train: {epochs: 3, batch_size: 20, checkpoint_every: 1}
  evaluate: {every_epoch: [exact], final: [exact, {name: ais, runs: 8, betas: 200}]}
experiments:
  - name: a
EOF
sed 's/hidden: 4/hidden: 5/' tiny.yaml > hidden5.yaml
sed 's/type: rbm, hidden: 4/type: dbn, layers: [4, 4]/' tiny.yaml > dbn.yaml
sed 's/- name: a/- name: results.json/' tiny.yaml > reserved.yaml
sed 's/checkpoint_every: 1}/checkpoint_every: 2, learning_rate: 1e308}/' tiny.yaml > nan.yaml
sed 's/hidden: 4/hidden: 2000000000/' tiny.yaml > huge.yaml
"$logz" run tiny.yaml --out run >/dev/null 2>&1
printf 'experiments:\n  - name: a\n    data:\n      train: planted:train\n      test: planted:test\n    evaluate: {final: [exact, ais}\n' > unclosed.yaml
printf 'experiments:\n  - name: a\n    data:\n      train: planted:train\n      test: planted:test\n   model: {hidden: 3}\n' > indent.yaml
mkfifo pipe.npy
model=run/a/model.npz

echo "| case | exit | last line on stderr |"
echo "|---|---|---|"
row "1. run into a finished run" "$logz" run tiny.yaml --out run
row "1. --force" "$logz" run tiny.yaml --out run --force
row "2. --resume, other hidden size" "$logz" run hidden5.yaml --out run --resume
row "2. --resume, rbm → dbn" "$logz" run dbn.yaml --out run --resume
row "2. --resume --seed 7 on a seed-1 run" "$logz" run tiny.yaml --out run --resume --seed 7
row "3. --resume of a finished run" "$logz" run tiny.yaml --out run --resume
row "4. divergence in epoch 1" "$logz" run nan.yaml --out nan
row "5. experiment named results.json" "$logz" run reserved.yaml --out reserved
row "6. --betas 1000000000000" "$logz" eval --model $model --data planted:test --estimator ais --betas 1000000000000
row "6. --betas 20000000" "$logz" eval --model $model --data planted:test --estimator ais --betas 20000000
row "6. model: {hidden: 2000000000}" "$logz" run huge.yaml --out huge
row "6. --data npy:/dev/zero" "$logz" eval --model $model --data npy:/dev/zero --estimator exact
row "8. --data npy:<named pipe>" "$logz" eval --model $model --data npy:pipe.npy --estimator exact
row "9. unclosed [ on line 6" "$logz" run unclosed.yaml --out x
row "9. bad indent on line 6" "$logz" run indent.yaml --out x
row "10. --estimator ''" "$logz" eval --model $model --data planted:test --estimator ''
row "10. --limit -5" "$logz" eval --model $model --data planted:test --limit -5
row "10. --estimator dbn-bound on an RBM" "$logz" eval --model $model --data planted:test --estimator dbn-bound
row "10. exact,exact" "$logz" eval --model $model --data planted:test --estimator exact,exact
row "10. --threshold with --binarize none" "$logz" eval --model $model --data planted:test --estimator exact --binarize none --threshold 0.3
row "10. --base-data with --init uniform" "$logz" eval --model $model --data planted:test --estimator ais --init uniform --base-data planted:train
row "10. --chains 1 with exact" "$logz" eval --model $model --data planted:test --estimator exact --chains 1
row "10. --binarize maybe" "$logz" eval --model $model --data planted:test --estimator exact --binarize maybe
row "10. --threshold 7" "$logz" eval --model $model --data planted:test --estimator exact --binarize threshold --threshold 7
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	/usr/bin/python3 - <<'EOF'
import numpy as np
r = np.random.default_rng(0)
np.savez("w1w3.npz", W1=r.standard_normal((20, 4)), W3=r.standard_normal((4, 4)))
np.savez("both.npz", W=np.zeros((20, 4)), vbias=np.zeros(20), hbias=np.zeros(4), W1=np.zeros((20, 4)), W2=np.zeros((4, 4)), b0=np.zeros(20), b1=np.zeros(4), b2=np.zeros(4))
np.savez("w1e300.npz", W=np.full((20, 4), 1e300), vbias=np.zeros(20), hbias=np.zeros(4))
W = np.zeros((20, 4)); W[3, 2] = np.nan
np.savez("wnan.npz", W=W, vbias=np.zeros(20), hbias=np.zeros(4))
np.savez("m784x33.npz", W=0.01 * r.standard_normal((784, 33)), vbias=np.zeros(784), hbias=np.zeros(33))
np.save("x.npy", (r.random((10, 784)) < 0.2).astype(np.uint8))
EOF
	row "11. W1 and W3, no W2" "$logz" eval --model w1w3.npz --data planted:test --estimator exact
	row "11. RBM and DBM arrays" "$logz" eval --model both.npz --data planted:test --estimator exact
	row "11. W = 1e300" "$logz" eval --model w1e300.npz --data planted:test --estimator exact
	row "11. NaN at W[3,2]" "$logz" eval --model wnan.npz --data planted:test --estimator exact
	# 7: the notice comes first; the enumeration itself is cut short.
	err=$(timeout 5 "$logz" eval --model m784x33.npz --data npy:x.npy --estimator exact --max-units 40 --limit 10 2>&1 >/dev/null | head -n 1 | cut -c1-220)
	printf '| 7. exact on 784×33 (first line, within 5 s) | — | %s |\n' "$err"
fi
row "12. --data planted" "$logz" eval --model $model --data planted --estimator exact
LOGZ_DATA_DIR=/etc/passwd row "12. LOGZ_DATA_DIR=/etc/passwd" "$logz" eval --model $model --data mnist:test --estimator exact
row "14. no command" "$logz"
row "14. unknown flag" "$logz" eval --frobnicate
row "14. missing model file" "$logz" eval --model nope.npz --data planted:test
# issue 25, items 6–10
exp25() { # exp25 FILE LINES...: one rbm experiment on planted data, plus LINES
	local f=$1; shift
	{ printf 'experiments:\n  - name: a\n    data: {train: planted:train, test: planted:test}\n'; printf '%s\n' "$@"; } > "$f"
}
exp25 k1e9.yaml '    train: {k: 1000000000}'
exp25 kbatch.yaml '    train: {k: 1000, batch_size: 5000}'
exp25 cslburn.yaml '    evaluate: {final: [{name: csl, burn_in: 1000000000}]}'
exp25 cslsteps.yaml '    evaluate: {final: [{name: csl, steps: 1e9}]}'
exp25 cslstates.yaml '    evaluate: {final: [{name: csl, chains: 100000, steps: 100000}]}'
exp25 cslmatched.yaml '    evaluate: {final: [{name: ais, runs: 100000, betas: 100000}, csl]}'
exp25 epochs.yaml '    train: {epochs: 1000000000}'
printf 'experiments:\n  - name: a\n    data: {train: planted:train, test: planted:test, planted: {train: 300}}\n    train: {batch_size: 500, epochs: 1}\n    evaluate: {every_epoch: [], final: [exact]}\n' > bigbatch.yaml
printf 'experiments:\n  - name: a\n    data: {train: planted:train, test: planted:test, planted: {visible: 100000}}\n' > pvisible.yaml
printf 'experiments:\n  - name: a\n    data: {train: planted:train, test: planted:test, planted: {weight_scale: 1e308}}\n' > pscale.yaml
exp25 quoted.yaml '    train: {shuffle: "true"}'
{ printf 'base:\n  train:\n    learning_rate: -1\n'; printf 'experiments:\n  - name: a\n    data: {train: planted:train, test: planted:test}\n'; } > baselr.yaml
row "25/6. train: {k: 1000000000}" "$logz" run k1e9.yaml --out x
row "25/6. train: {k: 1000, batch_size: 5000}" "$logz" run kbatch.yaml --out x
row "25/6. train: {epochs: 1000000000}" "$logz" run epochs.yaml --out x
row "25/6. csl burn_in: 1000000000" "$logz" run cslburn.yaml --out x
row "25/6. csl steps: 1e9" "$logz" run cslsteps.yaml --out x
row "25/6. csl chains 100000 × steps 100000" "$logz" run cslstates.yaml --out x
row "25/6. csl steps 0 matched to ais 100000 × 100000" "$logz" run cslmatched.yaml --out x
row "25/6. eval csl matched to --chains 1000 --betas 10^7" "$logz" eval --model $model --data planted:test --estimator ais,csl --chains 1000 --betas 10000000
row "25/7. batch_size 500 on 300 examples (the warning)" sh -c "'$logz' run bigbatch.yaml --out bigbatch 2>&1 >/dev/null | grep warning >&2"
row "25/7. run --out ''" "$logz" run tiny.yaml --out ''
row "25/7. slurm --out ''" "$logz" slurm tiny.yaml --shards 2 --out ''
row "25/7. sample --out ''" "$logz" sample --model $model --out ''
row "25/7. eval --parts ''" "$logz" eval --model $model --data planted:test --parts ''
row "25/7. plot ''" "$logz" plot ''
row "25/8. planted: {visible: 100000}" "$logz" run pvisible.yaml --out x
row "25/8. planted: {weight_scale: 1e308}" "$logz" run pscale.yaml --out x
row "25/9. shuffle: \"true\"" "$logz" run quoted.yaml --out x
row "25/10. base.train.learning_rate: -1" "$logz" run baselr.yaml --out x
