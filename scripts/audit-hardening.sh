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

# issue 25, items 1–3: one writer per run folder, no writing through links,
# shards started together.
sed 's/epochs: 3,/epochs: 100000,/' tiny.yaml > slow.yaml
"$logz" run slow.yaml --out live >/dev/null 2>&1 &
live=$!
for _ in $(seq 100); do [ -e live/config.resolved.yaml ] && break; sleep 0.1; done
row "25.1 run into a live run's folder" "$logz" run tiny.yaml --out live
row "25.1 --force into a live run's folder" "$logz" run hidden5.yaml --out live --force
row "25.1 --resume of a live run" "$logz" run slow.yaml --out live --resume
row "25.1 merge of a live run's folder" "$logz" merge live
row "25.1 plot of a live run's folder" "$logz" plot live
row "25.1 shard into a live run's folder" "$logz" run slow.yaml --out live --shard 0/2
kill -9 $live; wait $live 2>/dev/null
sed -i 's/epochs: 100000,/epochs: 4,/' slow.yaml
row "25.1 --resume after kill -9 (edited to 4 epochs: refused as another config, not as locked)" "$logz" run slow.yaml --out live --resume
mkdir mine && echo "the user's model" > mine/model.npz && echo "the user's curve" > mine/epochs.csv
cp -r run linked && rm -r linked/a && ln -s "$PWD/mine" linked/a
row "25.2 --force with a symlinked experiment folder" "$logz" run tiny.yaml --out linked --force
row "25.2 --resume with a symlinked experiment folder" "$logz" run tiny.yaml --out linked --resume
printf '| 25.2 the user'"'"'s files after both | — | %s |\n' "$(cat mine/model.npz mine/epochs.csv | tr '\n' ' ')"
fails=0
for trial in $(seq 20); do
	pids=()
	for i in $(seq 0 7); do "$logz" run tiny.yaml --out "shards$trial" --shard $i/8 --phase train >/dev/null 2>"shard$trial.$i.log" & pids+=($!); done
	for p in "${pids[@]}"; do wait "$p" || fails=$((fails + 1)); done
done
printf '| 25.3 8 shards started at once into a new folder, 20 times | — | %d of 160 shards failed |\n' "$fails"

# issue 25, items 11–14
out() { # out CASE CMD... : like row, but the last line the command printed on stdout
	local name=$1; shift
	local o status
	o=$(timeout 60 "$@" 2>/dev/null); status=$?
	o=$(printf '%s\n' "$o" | grep -v '^\s*$' | tail -n 1 | cut -c1-220)
	printf '| %s | %s | %s |\n' "$name" "$status" "${o//|/\\|}"
}
"$logz" run tiny.yaml --out sh --shard 0/2 --phase train >/dev/null 2>&1
"$logz" run tiny.yaml --out sh --shard 1/2 --phase eval >/dev/null 2>&1
row "11. merge of a run made without --shard" "$logz" merge run
row "11. status of a run made without --shard" "$logz" status run
out "11. merge, shard 0 of 2 missing" bash -c "set -o pipefail; '$logz' merge sh 2>&1 | grep 'of 2 is missing'"
out "11. status, shard 0 of 2 missing (the command to run)" bash -c "'$logz' status sh | grep 'evaluate a'"
row "11. status --shards 0" "$logz" status sh --shards 0
"$logz" run tiny.yaml --out sh --shard 0/2 --phase eval >/dev/null 2>&1
rm sh/a/model.npz
out "11. status, model.npz deleted after training" bash -c "'$logz' status sh | grep 'train a again'"
out "11. merge, model.npz deleted after training" bash -c "set -o pipefail; '$logz' merge sh 2>&1 | grep 'model.npz is missing'"
# The commands status prints run as printed (logz on the PATH).
PATH="$(dirname "$logz"):$PATH" row "11. the printed command trains a again, then merge" bash -c 'eval "$(logz status sh | sed -n "s/^  train a again: //p")" 2>/dev/null && logz merge sh >/dev/null 2>&1 && echo "merged" >&2'
cp -r run plotrun && rm plotrun/a/samples.npy
out "12. plot after samples.npy was deleted" "$logz" plot plotrun
# A NumPy-style .npz (no meta) written with the standard library alone.
/usr/bin/python3 - <<'EOF'
import io, struct, zipfile
def npy(shape, values):
    h = "{'descr': '<f8', 'fortran_order': False, 'shape': (%s), }" % "".join("%d, " % d for d in shape)
    h += " " * (63 - (10 + len(h)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + struct.pack("<%dd" % len(values), *values)
def npz(path, **arrays):
    with zipfile.ZipFile(path, "w") as z:
        for k, (shape, vals) in arrays.items():
            z.writestr(k + ".npy", npy(shape, vals))
npz("ising1x20.npz", fields=((1, 20), [0.1] * 20), coupling_h=((1, 19), [0.2] * 19))
npz("ising4x5-no-v.npz", fields=((4, 5), [0.1] * 20), coupling_h=((4, 4), [0.2] * 16))
npz("ising4x5-fields.npz", fields=((4, 5), [0.1] * 20))
EOF
out "13. Ising 1×20 without coupling_v" bash -c "'$logz' eval --model ising1x20.npz --data planted:test --estimator exact | grep ising1x20"
row "13. Ising 4×5 without coupling_v" "$logz" eval --model ising4x5-no-v.npz --data planted:test --estimator exact
row "13. Ising 4×5, fields only" "$logz" eval --model ising4x5-fields.npz --data planted:test --estimator exact
for fam in "sbn, layers: [4]" "ising, rows: 4, cols: 5" "vae, latent: 4, hidden: [8]"; do
	sed "s/type: rbm, hidden: 4/type: $fam/; s/evaluate: .*/evaluate: {every_epoch: [], final: [exact]}/; s/, checkpoint_every: 1//" tiny.yaml > fam.yaml
	line=$("$logz" run fam.yaml --out "fam-${fam%%,*}" 2>&1 >/dev/null | grep -m1 ': epoch' | cut -c1-220)
	printf '| 14. epoch line of %s | — | %s |\n' "${fam%%,*}" "$line"
done

# issue 25, items 4–5
# 4: a subsample mean of a stochastic lower bound must never sit silently
# beside whole-split values: extended by a control variate ("+ cv"), or
# tagged with its n and exact on the same examples. The lines shown are the
# table's (stdout) or results.json's.
cat > sbn25.yaml <<'EOF2'
name: sbn25
seed: 1
base:
  data: {train: planted:train, test: planted:test, planted: {model: sbn, visible: 20, hidden: 6, train: 500, test: 1000, weight_scale: 0.5}}
  model: {type: sbn, layers: [6], init_weight_std: 0.1}
  train: {epochs: 2, batch_size: 100, steps: 5, samples: 5}
  evaluate: {final: [exact, {name: is, samples: 200, examples: 100}, {name: ais, chains: 4, betas: 50, examples: 100}]}
experiments:
  - name: a
  - name: exact-last
    evaluate: {final: [{name: is, samples: 200, examples: 100}, {name: ais, chains: 4, betas: 50, examples: 100}, exact]}
  - name: gibbs
    train: {sampler: gibbs}
    evaluate: {final: [{name: ais, chains: 4, betas: 50, examples: 100}, exact]}
EOF2
sed -e 's/name: sbn25/name: vae25/' -e 's/{model: sbn, visible: 20, hidden: 6, train: 500, test: 1000, weight_scale: 0.5}/{visible: 14, hidden: 4, train: 500, test: 1000}/' \
	-e 's/{type: sbn, layers: \[6\], init_weight_std: 0.1}/{type: vae, latent: 6, hidden: [16], prior: rbm, prior_hidden: 4}/' \
	-e 's/{epochs: 2, batch_size: 100, steps: 5, samples: 5}/{method: nvil, epochs: 2, batch_size: 20}/' \
	-e 's/{name: ais, chains: 4, betas: 50, examples: 100}/{name: elbo, samples: 20, examples: 100}/g' -e '/- name: gibbs/,$d' sbn25.yaml > vae25.yaml
"$logz" run sbn25.yaml --out sbn25 >sbn25.txt 2>&1
"$logz" run vae25.yaml --out vae25 >vae25.txt 2>&1
row "25.4 sbn is on 100 of 1000 after exact: X = exact" sh -c 'grep -m1 "│ a  .*│ is " sbn25.txt >&2'
row "25.4 sbn ais, exact listed last: X = IS with Q" sh -c 'grep -o "\"control_variate\": \"[^\"]*\"" sbn25/results.json | sed -n 2p >&2'
row "25.4 sbn ais without Q: X = a one-chain AIS" sh -c 'grep -o "\"control_variate\": \"AIS[^\"]*\"" sbn25/results.json >&2'
row "25.4 sbn --examples 1: n = 1 of 1000 and exact on it" sh -c '"$0" eval --model sbn25/a/model.npz --data planted:test --estimator exact,ais --examples 1 --chains 4 --betas 50 2>/dev/null | grep "│ ais " >&2' "$logz"
row "25.4 vae elbo on 100 of 1000, exact listed last" sh -c 'grep -m1 "exact-last .* elbo " vae25.txt >&2'
row "25.4 legend under the table" sh -c 'grep -m1 -o "(k of N + cv): [^:]*" sbn25.txt >&2'
# 5: one example, and all-ones data: σ = 0 (or 2e-10) is no spread, not ∞σ.
sed -e 's/name: tiny/name: one/' -e 's/planted: {train: 200, test: 100}/planted: {train: 1, valid: 1, test: 1}/' \
	-e 's/evaluate: .*/evaluate: {final: [exact, {name: ais, runs: 16, betas: 200}, {name: raise, chains: 4, betas: 200}, {name: csl, chains: 20, steps: 50}]}/' tiny.yaml > one.yaml
python3 -c 'import struct, sys; h = "{\x27descr\x27: \x27|u1\x27, \x27fortran_order\x27: False, \x27shape\x27: (50, 20), }"; h += " " * (63 - (10 + len(h)) % 64) + "\n"; sys.stdout.buffer.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + bytes([1] * 1000))' > ones.npy
sed -e 's/name: one/name: ones/' -e 's/data: {train: planted:train, test: planted:test, planted: {train: 1, valid: 1, test: 1}}/data: {train: npy:ones.npy, test: npy:ones.npy}/' \
	-e 's/model: {type: rbm, hidden: 4}/model: {type: rbm, hidden: 8, init_visible_bias: base-rate}/' -e 's/train: {.*}/train: {epochs: 5, batch_size: 1}/' one.yaml > ones.yaml
"$logz" run one.yaml --out one >/dev/null 2>&1
"$logz" run ones.yaml --out ones >/dev/null 2>&1
row "25.5 trained on 1 example (σ = 0; was \"∞σ\")" sh -c 'grep -m1 -o "CSL is [^\"]*" one/results.json >&2'
row "25.5 all-ones data (σ ≈ 0; was \"196120.4σ\")" sh -c 'grep -m1 -o "CSL is [^\"]*above exact[^\"]*" ones/results.json >&2'

# issue 25, items 15–16
row "15. a χ² warning cites the repository's docs (stdout line)" sh -c "\"$logz\" eval --model $model --data planted:test --estimator exact,chi2 --fit-steps 1 --samples 200 | grep -m1 -o 'biased low, see docs/methods.md#[a-z0-9-]*' >&2"
row "15. no output line cites the developers' guide" sh -c "n=\$(\"$logz\" eval --model $model --data planted:test --estimator exact,ais,chi2 --fit-steps 1 --samples 200 --betas 100 | grep -c 'GUI[D]E'); echo \"\$n lines cite it\" >&2"
row "16. logz help lists run's --force" sh -c "\"$logz\" help | grep -m1 -- '--resume | --force' >&2"
row "16. logz run --help states the quickstart's cost" sh -c "\"$logz\" run --help | grep -A2 'runs the embedded' | tail -n 2 | tr '\n' ' ' >&2"

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

# trust at the surface: overrides, octal, part checksums, slurm quoting
cat > trust.yaml <<'YAML'
name: trust
seed: 1
base:
  data: {train: planted:train, test: planted:test, planted: {train: 200, test: 100}}
  model: {type: rbm, hidden: 4}
  train: {epochs: 2, batch_size: 20}
  evaluate: {every_epoch: [], final: [exact]}
experiments:
  - name: a
    train: {epochs: 3}
YAML
sed 's/epochs: 3}/epochs: 010}/' trust.yaml > trust-octal.yaml
row "trust 1. --set 'train.epochs={a: 1}' (base and a set epochs)" "$logz" run trust.yaml --out x --set 'train.epochs={a: 1}'
row "trust 1. --set train.epochs.x=3" "$logz" run trust.yaml --out x --set train.epochs.x=3
row "trust 1. --set model.hidden.foo.bar=7" "$logz" run trust.yaml --out x --set model.hidden.foo.bar=7
row "trust 2. epochs: 010 on line 10 (YAML 1.1: 8)" "$logz" run trust-octal.yaml --out x
row "trust 2. --set train.epochs=-07" "$logz" run trust.yaml --out x --set train.epochs=-07
row "trust 2. --set train.epochs=0o10 is read as 8 (resolved epochs)" sh -c '"$0" run trust.yaml --out trust-o --set train.epochs=0o10 >/dev/null 2>&1; grep -m1 -o "epochs: [0-9]*" trust-o/config.resolved.yaml >&2' "$logz"
"$logz" run trust.yaml --out trust-run >/dev/null 2>&1
tmodel=trust-run/a/model.npz
for i in 0 1; do
	"$logz" eval --model $tmodel --data planted:test --estimator ais --chains 8 --betas 50 --shard $i/2 --parts trust-parts >/dev/null 2>&1
done
row "trust 3. merge of untouched parts" "$logz" eval --model $tmodel --data planted:test --estimator ais --chains 8 --betas 50 --parts trust-parts
python3 -c '
import json, sys
p = "trust-parts/parts/eval-1-of-2.json"
d = json.load(open(p))
d["entries"][0]["work"][0]["values"][0] += 1
json.dump(d, open(p, "w"))
'
row "trust 3. a value edited by hand in eval-1-of-2.json" sh -c 'e=$("$0" eval --model "$1" --data planted:test --estimator ais --chains 8 --betas 50 --parts trust-parts 2>&1 >/dev/null); s=$?; printf "%s\n" "$e" | grep -m1 checksum >&2; exit $s' "$logz" $tmodel
row "trust 4. --out 'my dir #1': the #SBATCH --output line" sh -c '"$0" slurm trust.yaml --shards 2 --out "my dir #1" --dry-run | grep -m1 "^#SBATCH --output" >&2' "$logz"
row "trust 4. --sbatch-args '--comment=\"two words\"'" sh -c '"$0" slurm trust.yaml --shards 2 --dry-run --sbatch-args "--comment=\"two words\"" | grep -m1 "^#SBATCH --comment" >&2' "$logz"
row "trust 4. a newline in --sbatch-args" "$logz" slurm trust.yaml --shards 2 --dry-run --sbatch-args "$(printf -- '-p short\nexport X=1')"
row "trust 4. a newline in --out" "$logz" slurm trust.yaml --shards 2 --dry-run --out "$(printf 'a\nb')"

# trust at the surface: re-evaluation reproduces the run, --resume refuses other data
grey() { # grey FILE: 100 random grey images of 4×5 pixels as an IDX file
	{ printf '\0\0\10\3\0\0\0\144\0\0\0\4\0\0\0\5'; head -c 2000 /dev/urandom; } > "$1"
}
grey g-train.idx; grey g-test.idx
cat > greyrun.yaml <<'YAML'
name: greyrun
experiments:
  - name: a
    data: {train: idx:g-train.idx, test: idx:g-test.idx, binarize: stochastic}
    model: {type: rbm, hidden: 4}
    train: {epochs: 2, batch_size: 20, checkpoint_every: 1}
    evaluate: {every_epoch: [], final: [exact, {name: ais, runs: 8, betas: 200}]}
YAML
"$logz" run greyrun.yaml --out greyrun >/dev/null 2>&1
finaltest='import json,sys; print(" ".join("%s %r" % (r["estimator"], r["mean_loglik"]) for r in json.load(open(sys.argv[1]))["estimates"] if r["stage"] == "final" and r["split"] == "test"))'
out "trust 1. the run's final test rows (exact, ais)" python3 -c "$finaltest" greyrun/results.json
"$logz" eval --model greyrun/a/model.npz --data idx:g-test.idx --estimator exact,ais --json > reeval.json 2>/dev/null
out "trust 1. logz eval --model greyrun/a/model.npz --data idx:g-test.idx --estimator exact,ais: the same numbers" python3 -c "$finaltest" reeval.json
out "trust 1. logz eval --model greyrun/a/model.npz (no --data): the Data line" sh -c '"$0" eval --model greyrun/a/model.npz 2>/dev/null | grep -A1 "^Data:" | tail -n 1' "$logz"
grey g-train.idx # other images of the same shape under the same name
row "trust 2. --resume after the training images were replaced" sh -c 'e=$("$0" run greyrun.yaml --out greyrun --resume 2>&1 >/dev/null); s=$?; printf "%s\n" "$e" | grep -m1 "differs" >&2; exit $s' "$logz"

# trust at the surface: files logz did not write, errors where they belong
"$logz" run tiny.yaml --out kept >/dev/null 2>&1
mkdir own && echo "my numbers, not JSON" > own/results.json && echo "# my report" > own/report.md
row "own 1a. a folder of the user's results.json and report.md" "$logz" run tiny.yaml --out own
row "own 1a. --force on it" "$logz" run tiny.yaml --out own --force
printf '| own 1a. the user'"'"'s files after both | — | %s |\n' "$(cat own/results.json own/report.md | tr '\n' ' ')"
ln -s kept/a/model.npz kept-link.npz
row "own 1b. sample --out the model it reads" "$logz" sample --model kept/a/model.npz --out kept/a/model.npz
row "own 1b. sample --out a symbolic link to the model" "$logz" sample --model kept/a/model.npz --out kept-link.npz
row "own 1b. sample --png the --out file" "$logz" sample --model kept/a/model.npz --out s.npy --png s.npy
flock kept/.logz.lock sleep 5 & held=$!
sleep 0.5
row "own 1b. sample --out into a run folder another process holds" "$logz" sample --model kept/a/model.npz --out kept/a/more.npy
kill $held; wait $held 2>/dev/null
row "own 1c. eval --shard 0/2 --parts a finished run folder" "$logz" eval --model kept/a/model.npz --data planted:test --estimator exact --shard 0/2 --parts kept
sed 's/- name: a/- name: parts/' tiny.yaml > parts.yaml
row "own 1d. an experiment named parts" "$logz" run parts.yaml --out partsrun
sed 's/train: planted:train/train: npy:nope.npy/' tiny.yaml > nopedata.yaml
row "own 2. data.train: npy:nope.npy" "$logz" run nopedata.yaml --out nopedata
mkdir empty-mnist
sed 's/train: planted:train, test: planted:test/train: mnist:train, test: mnist:test, data_dir: empty-mnist/' tiny.yaml > nomnist.yaml
row "own 2. mnist: with no MNIST files in data_dir" "$logz" run nomnist.yaml --out nomnist
left=$(ls -d nopedata nomnist 2>/dev/null | tr '\n' ' ')
printf '| own 2. run folders left by both | — | %s |\n' "${left:-none}"
row "own 2. --resume into a mistyped --out" "$logz" run tiny.yaml --out trsut --resume
row "own 2. --resume=auto into a new folder" sh -c "'$logz' run tiny.yaml --out auto --resume=auto 2>&1 >/dev/null | grep 'starting one' >&2"
row "own 2. --resume=auto of the finished run" sh -c "'$logz' run tiny.yaml --out auto --resume=auto 2>&1 >/dev/null | grep 'finished before' >&2"
cp -r kept damaged && cp kept/a/model.npz neg.npz
/usr/bin/python3 - <<'EOF'
import json, struct, zipfile
def rewrite(path, fn):
    with zipfile.ZipFile(path) as z:
        items = [(i.filename, z.read(i.filename)) for i in z.infolist()]
    with zipfile.ZipFile(path, "w") as z:
        for name, b in items:
            z.writestr(name, fn(name, b))
def nan_state(name, b):  # the last value of state_vel_W (float64) becomes NaN
    return b[:-8] + struct.pack("<d", float("nan")) if name.startswith("state_vel_W") else b
def neg_epoch(name, b):  # meta's JSON says epoch -5
    if not name.startswith("meta"):
        return b
    n = struct.unpack("<H", b[8:10])[0] + 10 if b[6] == 1 else struct.unpack("<I", b[8:12])[0] + 12
    meta = json.loads(b[n:])
    meta["epoch"] = -5
    data = json.dumps(meta).encode()
    h = "{'descr': '|u1', 'fortran_order': False, 'shape': (%d,), }" % len(data)
    h += " " * (63 - (10 + len(h)) % 64) + "\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + data
rewrite("damaged/a/model.npz", nan_state)
rewrite("neg.npz", neg_epoch)
EOF
row "own 2. --resume with NaN in state_vel_W of the checkpoint" "$logz" run tiny.yaml --out damaged --resume
row "own 2. a checkpoint whose meta says epoch -5" "$logz" eval --model neg.npz --data planted:test --estimator exact
sed 's/planted: {train: 200, test: 100}}/planted: {train: 200, test: 100}, binarize: threshold, binarize_seed: 7}/' tiny.yaml > binarize.yaml
row "own 2. binarize: threshold on planted data (the warning)" sh -c "'$logz' run binarize.yaml --out binarize 2>&1 >/dev/null | grep 'warning: .*data.binarize:' >&2"
row "own 2. binarize_seed with binarize: threshold (the warning)" sh -c "'$logz' run binarize.yaml --out binarize2 2>&1 >/dev/null | grep 'warning: .*data.binarize_seed:' >&2"

# trust at the surface: honest curves and time
ht_tiny() { # ht_tiny FILE EVERY_EPOCH FINAL EPOCHS: a tiny rbm run on planted data
	printf 'name: ht\nseed: 1\nbase:\n  data: {train: planted:train, test: planted:test, planted: {train: 300, test: 200}}\n  model: {type: rbm, hidden: 6}\n  train: {epochs: %s, batch_size: 20}\n  evaluate: {every_epoch: %s, final: %s}\nexperiments:\n  - name: a\n' "$4" "$2" "$3" > "$1"
}
ht_tiny ht-eta.yaml '[exact, {name: ais, runs: 4, betas: 100}]' '[exact, {name: ais, runs: 16, betas: 2000}, pll, recon]' 4
ht_tiny ht-noeval.yaml '[]' '[exact, {name: ais, runs: 16, betas: 2000}, pll, recon]' 2
ht_tiny ht-unknown.yaml '[exact]' '[exact, {name: ais, runs: 16, betas: 2000}, {name: sandwich, start_betas: 10, max_betas: 40}]' 2
"$logz" run ht-eta.yaml --out ht >ht.txt 2>ht.err
row "41/4. ETA at the end of training includes the final evaluations" sh -c 'grep "epoch 4/4" ht.err | grep -o "ETA.*" >&2'
row "41/4. no per-epoch evaluation to compare: the final estimators are named" sh -c "'$logz' run ht-noeval.yaml --out ht-noeval 2>&1 >/dev/null | grep 'epoch 2/2' | grep -o 'ETA.*' >&2"
row "41/4. an estimator that cannot foresee its work (sandwich) is named" sh -c "'$logz' run ht-unknown.yaml --out ht-unknown 2>&1 >/dev/null | grep 'epoch 2/2' | grep -o 'ETA.*' >&2"
row "41/2. pll on every core: the value (eval)" sh -c "'$logz' eval --model ht/a/model.npz --data planted:test --estimator pll | grep -m1 '│ pll' | tr -s ' ' >&2"
row "41/2-3. pll and recon draw a progress line on a terminal" sh -c "script -qec \"'$logz' eval --model ht/a/model.npz --data planted:test --estimator pll,recon\" /dev/null | tr '\r' '\n' | grep -o '[A-Za-z]* test [0-9]* ex[^/]*/[0-9]* (100%)' | sort -u | tr '\n' ';' >&2"
row "41/5. Minutes: the note says which row carries shared work" sh -c 'grep -m1 -o "Minutes count each piece of work once: [^;]*" ht.txt >&2'
row "41/5. ais's log Z counted once: seconds of its train and test rows" sh -c "python3 -c 'import json; r=[x for x in json.load(open(\"ht/results.json\"))[\"estimates\"] if x[\"stage\"]==\"final\" and x[\"estimator\"]==\"ais\"]; print(\" \".join(\"%s %.4f s\" % (x[\"split\"], x[\"seconds\"]) for x in r))' >&2"
# A per-epoch AIS curve made jumpy (±4 nats between epochs, ±0.5-nat bars) in a copy of the run, redrawn by logz plot.
cp -r ht ht-jumpy
python3 - <<'EOF'
import json
p = "ht-jumpy/results.json"
doc = json.load(open(p))
for r in doc["estimates"]:
    if r["stage"] == "epoch" and r["estimator"] == "ais" and r.get("mean_loglik") is not None:
        r["mean_loglik"] += 4 if r["epoch"] % 2 else -4
        r["log_z_lo"], r["log_z_hi"] = r["log_z"] - 0.5, r["log_z"] + 0.5
        r["loglik_lo"] = r["loglik_hi"] = None
json.dump(doc, open(p, "w"))
EOF
"$logz" plot ht-jumpy >/dev/null 2>&1
row "41/1b. jumpy per-epoch AIS: a warning in the report's Warnings (report.html)" sh -c 'grep -m1 -o "ais (base-rate): consecutive per-epoch estimates differ by far more than their bars — [^:]*" ht-jumpy/report.html >&2'
row "41/1b. …and in its plot's caption" sh -c 'grep -m1 -o "Warning: the ais (base-rate) estimates change [^(]*" ht-jumpy/report.html >&2'
row "41/1b. the original run's curve: no such warning (report.md)" sh -c 'n=$(grep -c "differ by far more than their bars" ht/report.md); echo "$n warnings" >&2'
row "41/1a. per-epoch plot: the final exact value as a labelled dashed line" sh -c "python3 -c 'import base64,re,sys; h=open(\"ht/report.html\").read(); f=re.search(r\"id=\\\"a-loglik-test\\\">\\n<img alt=\\\"[^\\\"]*\\\" src=\\\"data:image/svg\\+xml;base64,([^\\\"]*)\", h); s=base64.b64decode(f.group(1)).decode(); print(re.search(r\"final exact -?[0-9.]+\", s).group(0), \"| dashed:\", \"stroke-dasharray\" in s)' >&2"

# trust at the surface: bounds against exact, reversed brackets, one example, NaN
row "trust 3. raise on 1 example: a warning" sh -c '"$0" eval --model "$1" --data planted:test --estimator exact,raise --examples 1 --chains 5 --betas 50 2>/dev/null | grep -m1 -o "raise ran on 1 example (n = 1) of the split.s [0-9]*" >&2' "$logz" "$model"
row "trust 3. raise on 1 example: its cell (no ±)" sh -c '"$0" eval --model "$1" --data planted:test --estimator exact,raise --examples 1 --chains 5 --betas 50 2>/dev/null | grep -m1 -o -- "-[0-9.]* (n = 1 of [0-9]*)" >&2' "$logz" "$model"
row "trust 3. raise on 1 example: results.json has no loglik_se" sh -c 'n=$("$0" eval --model "$1" --data planted:test --estimator raise --examples 1 --chains 5 --betas 50 --json 2>/dev/null | grep -c loglik_se); echo "$n loglik_se fields" >&2' "$logz" "$model"
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
	# The 4-block RBM (16 equally probable modes) and 40 copies of one
	# mode: RAISE from that base rate overshoots exact at small K.
	/usr/bin/python3 - <<'EOF'
import numpy as np
w = 4.0
W = np.zeros((16, 4))
for i in range(16):
    W[i, i // 4] = w
np.savez("trust-block.npz", W=W, vbias=np.full(16, -w / 2), hbias=np.full(4, -2 * w))
x = np.zeros((40, 16), dtype=np.uint8)
x[:, :4] = 1
np.save("trust-block.npy", x)
EOF
	tb="--model trust-block.npz --data npy:trust-block.npy --chains 20 --examples 0"
	row "trust 1. RAISE above exact (block RBM, base-rate, K = 100)" sh -c '"$0" eval $1 --estimator exact,ais,raise --betas 100 2>/dev/null | grep -m1 -o "RAISE is [0-9.]* nats above exact ([^)]*)" >&2' "$logz" "$tb"
	row "trust 1. sandwich at K = 40: gap closed, RAISE above exact, not closed" sh -c '"$0" eval $1 --estimator exact,sandwich --start-betas 10 --max-betas 2560 --json 2>/dev/null | grep -m1 -o "sandwich round 2 of at most 5 (K = 40): [^\"]*" >&2' "$logz" "$tb"
	row "trust 2. that pair in the table: no bracket" sh -c '"$0" eval $1 --estimator exact,ais,raise --betas 100 2>/dev/null | grep -m1 -o -- "\[-[0-9.]*, -[0-9.]*\] no bracket" >&2' "$logz" "$tb"
	row "trust 2. the table does not call that pair's reversal noise" sh -c 'n=$("$0" eval $1 --estimator exact,ais,raise --betas 100 2>/dev/null | grep -c "not a sign that either estimate is wrong"); echo "$n lines call it noise" >&2' "$logz" "$tb"
	# A VAE with auxiliary variables whose nets' parameters are 1e4 (within
	# the loader's bounds): IS and the ELBO overflow.
	sed -e 's/type: rbm, hidden: 4/type: vae, latent: 4, hidden: [5], auxiliary: 2, auxiliary_hidden: 3/' \
		-e 's/final: \[exact, {name: ais, runs: 8, betas: 200}\]/final: [exact]/' -e 's/every_epoch: \[exact\]/every_epoch: []/' tiny.yaml > trust-vae.yaml
	"$logz" run trust-vae.yaml --out trust-vae >/dev/null 2>&1
	/usr/bin/python3 -c '
import numpy as np
d = dict(np.load("trust-vae/a/model.npz"))
for k in d:
    if k.startswith("aux_"):
        d[k] = np.full(d[k].shape, 1e4)
np.savez("trust-vae-huge.npz", **d)'
	row "trust 4. VAE, auxiliary nets at 1e4: is" sh -c '"$0" eval --model trust-vae-huge.npz --data planted:test --estimator exact,is,elbo --samples 20 2>/dev/null | grep -m1 -o "is: the mean log-likelihood is not a finite number[^:]*" >&2' "$logz"
	row "trust 4. the same table: no 'Warnings: none'" sh -c 'n=$("$0" eval --model trust-vae-huge.npz --data planted:test --estimator exact,is,elbo --samples 20 2>/dev/null | grep -c "Warnings: none"); echo "$n lines say Warnings: none" >&2' "$logz"
else
	printf '| trust 1, 2, 4 (numpy models) | — | skipped: needs python3 with numpy |\n'
fi
