package config

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// ok is a minimal valid experiment list; bad cases edit around it.
const okExp = `experiments:
  - name: a
    data: {train: planted:train, test: planted:test}
`

// TestBadConfigs checks that each bad config is rejected with a message
// naming the file, the line, the key path and what was expected.
func TestBadConfigs(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want []string // each must appear in the error text
	}{
		{"empty file", ``, []string{`bad.yaml: empty config`}},
		{"only comments", "# nothing\n# here\n", []string{`bad.yaml: empty config`}},
		{"top-level list", "- name: a\n", []string{`bad.yaml:1: expected a mapping at the top level`, `got a list`}},
		{"top-level scalar", "hello\n", []string{`bad.yaml:1: expected a mapping at the top level`, `got "hello"`}},
		{"tab indentation", "experiments:\n\t- name: a\n", []string{`bad.yaml:2: tab character in indentation`}},
		{"syntax error", "experiments: [a\n", []string{`bad.yaml:1: invalid YAML:`}},

		// YAML syntax errors at the line of the problem. yaml.v3 reports
		// parser errors at the line before the enclosing construct starts
		// (and at no line when that is line 1); TestBadConfigs pins the
		// line for each kind of mistake.
		{"unclosed [ (yaml.v3: line 5)", "name: x\nseed: 1\n" + okExp + "    evaluate: {final: [exact, ais}\n    model: {hidden: 3}\n", []string{
			`bad.yaml:6: invalid YAML: did not find expected ',' or ']' (the [ list that opens on this line lacks its ] or a ',' between items)`}},
		{"unclosed [ at the end", "name: x\nseed: 1\n" + okExp + "    splits: [test\n", []string{`bad.yaml:6: invalid YAML: did not find expected ',' or ']'`}},
		{"unclosed [ on line 1 (yaml.v3: line 3)", "experiments: [1,\n  2,\n  3\nseed: 4\nname: a\n", []string{`bad.yaml:1: invalid YAML: did not find expected ',' or ']'`}},
		{"unclosed [ inside { on line 1 (yaml.v3: no line)", "base: {train: [1, 2}\nseed: 3\n", []string{`bad.yaml:1: invalid YAML: did not find expected ',' or ']'`}},
		{"unclosed { (yaml.v3: line 2)", "name: x\nseed: 1\nbase: {model: {hidden: 3}\n" + okExp, []string{
			`bad.yaml:3: invalid YAML: did not find expected ',' or '}' (the { mapping that opens on this line lacks its } or a ',' between entries)`}},
		{"missing comma in a flow list (yaml.v3: line 2)", "name: x\nseed: 1\nexperiments: [{name: a} {name: b}]\n", []string{`bad.yaml:3: invalid YAML: did not find expected ',' or ']'`}},
		{"[ without items at the end of a second document", "seed: 1\n---\nseed: 2\nbase: [\n", []string{`bad.yaml:4: invalid YAML: did not find expected node content`}},
		{"key indented less (yaml.v3: line 3)", "name: x\nseed: 1\n" + okExp + "   model: {hidden: 3}\n", []string{
			`bad.yaml:6: invalid YAML: did not find expected '-' indicator (check the indentation of this line against the - items above it)`}},
		{"key indented more (yaml.v3: line 3)", "name: x\nseed: 1\n" + okExp + "      model: {hidden: 3}\n", []string{
			`bad.yaml:6: invalid YAML: did not find expected key (check the indentation of this line against the keys above it)`}},
		{"nested key indented less (yaml.v3: line 2)", "name: x\nexperiments:\n  - name: a\n    train:\n      k: 1\n     epochs: 3\n", []string{
			`bad.yaml:6: invalid YAML: did not find expected key`}},
		{"key dedented to no level", "base:\n    train: {k: 1}\n    model: {hidden: 3}\n  seed: 3\n" + okExp, []string{`bad.yaml:4: invalid YAML: did not find expected key`}},
		{"key at the level of the - items (yaml.v3: line 2)", "name: x\nexperiments:\n  - name: a\n  model: {}\n", []string{`bad.yaml:4: invalid YAML: did not find expected '-' indicator`}},
		{"- item indented wrongly (yaml.v3: line 1)", "experiments:\n  - name: a\n   - name: b\n", []string{`bad.yaml:3: invalid YAML: did not find expected '-' indicator`}},
		{"- item indented less (yaml.v3: line 3)", okExp + " - name: b\n", []string{`bad.yaml:4: invalid YAML: did not find expected key`}},
		{"list item in a mapping (yaml.v3: line 2)", "name: x\nseed: 1\n- a\n", []string{`bad.yaml:3: invalid YAML: did not find expected key`}},
		{"stray ] (yaml.v3: line 2)", "name: x\nseed: 1\nbase: ]\n", []string{`bad.yaml:3: invalid YAML: did not find expected node content`}},
		{"key without a colon", "name: x\nseed: 1\nexperiments\n  - name: a\n", []string{`bad.yaml:3: invalid YAML: could not find expected ':'`}},
		{"value with a colon", "name: x\nseed: 1\ndescription: a: b\n" + okExp, []string{
			`bad.yaml:3: invalid YAML: mapping values are not allowed in this context (a value that contains ": " or ends with ":" must be quoted)`}},
		{"key indented more after a scalar", okExp + "    train:\n      k: 1\n        epochs: 3\n", []string{`bad.yaml:6: invalid YAML: mapping values are not allowed in this context`}},
		{"unclosed quote", "name: x\nseed: 1\nexperiments:\n  - name: \"a\n    data: x\n", []string{`bad.yaml:4: invalid YAML: found unexpected end of stream`}},
		{"bad escape on line 1 (yaml.v3: no line)", "name: \"a\\qb\"\n" + okExp, []string{`bad.yaml:1: invalid YAML: found unknown escape character`}},
		{"bad escape", "seed: 1\nname: \"a\\qb\"\n" + okExp, []string{`bad.yaml:2: invalid YAML: found unknown escape character`}},
		{"character that cannot start a token", "seed: 1\nname: @x\n" + okExp, []string{`bad.yaml:2: invalid YAML: found character that cannot start any token`}},
		{"control character (yaml.v3: no line)", "seed: 1\nname: a\x01b\n" + okExp, []string{`bad.yaml:2: invalid YAML: control characters are not allowed`}},
		{"unknown alias (yaml.v3: no line)", "name: x\nseed: 1\nbase: *foo\n" + okExp, []string{`bad.yaml:3: invalid YAML: unknown anchor 'foo' referenced`}},
		{"unknown directive (yaml.v3: no line)", "%FOO\n---\n" + okExp, []string{`bad.yaml:1: invalid YAML: found unknown directive name`}},
		{"two documents", okExp + "---\nseed: 2\n", []string{`bad.yaml:4: a second YAML document`}},
		{"duplicate top key", "seed: 1\nseed: 2\n" + okExp, []string{`bad.yaml:2: seed: duplicate key (first defined at line 1)`}},
		{"duplicate nested key", `experiments:
  - name: a
    data: {train: planted:train, test: planted:test}
    train:
      k: 1
      k: 2
`, []string{`bad.yaml:6: experiments[0].train.k: duplicate key (first defined at line 5)`}},
		{"unknown top key", "sed: 3\n" + okExp, []string{`bad.yaml:1: sed: unknown key (did you mean "seed"?; known keys: name, description, seed, sweep, base, experiments)`}},
		{"unknown nested key", okExp + "    train:\n      lerning_rate: 0.1\n", []string{
			`bad.yaml:5: experiments[0].train.lerning_rate: unknown key (did you mean "learning_rate"?; known keys: method, k, k_end, chains,`}},
		{"unknown key, other spelling", okExp + "    train:\n      learning-rate: 0.1\n", []string{
			`bad.yaml:5: experiments[0].train.learning-rate: unknown key (did you mean "learning_rate"?`}},
		{"unknown key in second experiment", okExp + "  - name: b\n    data: {train: planted:train, test: planted:test}\n    modle: {hidden: 3}\n", []string{
			`bad.yaml:6: experiments[1].modle: unknown key (did you mean "model"?`}},
		{"unknown key in base", "base:\n  train: {epoch: 3}\n" + okExp, []string{
			`bad.yaml:2: base.train.epoch: unknown key (did you mean "epochs"?`}},
		{"name in base", "base:\n  name: x\n" + okExp, []string{`bad.yaml:2: base.name: base cannot set name`}},
		{"unknown key in estimator", okExp + "    evaluate:\n      final:\n        - {name: ais, rnus: 10}\n", []string{
			`bad.yaml:6: experiments[0].evaluate.final[0].rnus: unknown key (did you mean "runs"?`}},
		{"setting of another estimator", okExp + "    evaluate:\n      final:\n        - {name: exact, runs: 10}\n", []string{
			`bad.yaml:6: experiments[0].evaluate.final[0].runs: not a setting of estimator "exact" (its settings: max_units)`}},
		{"setting of estimator without settings", okExp + "    evaluate:\n      final:\n        - {name: pll, seed: 3}\n", []string{
			`bad.yaml:6: experiments[0].evaluate.final[0].seed: not a setting of estimator "pll" (it has no settings)`}},
		{"unknown estimator", okExp + "    evaluate:\n      final: [exact, dbm-bound]\n", []string{
			`bad.yaml:5: experiments[0].evaluate.final[1].name: unknown estimator "dbm-bound" (did you mean "dbn-bound", an estimator of model type dbn?; known for model type rbm: exact, ais, ais-ratio, raise, sandwich, csl, chi2, pll, recon)`}},
		{"misspelt estimator", okExp + "    evaluate:\n      every_epoch:\n        - name: aiss\n", []string{
			`bad.yaml:6: experiments[0].evaluate.every_epoch[0].name: unknown estimator "aiss" (did you mean "ais"?; known for model type rbm: exact, ais, ais-ratio, raise, sandwich, csl, chi2, pll, recon)`}},
		{"estimator without name", okExp + "    evaluate:\n      final:\n        - {runs: 10}\n", []string{
			`bad.yaml:6: experiments[0].evaluate.final[0]: missing required key "name"`}},
		{"wrong type: word for int", okExp + "    train:\n      k: one\n", []string{
			`bad.yaml:5: experiments[0].train.k: expected a positive integer, got "one"`}},
		{"wrong type: fraction for int", okExp + "    train:\n      epochs: 2.5\n", []string{
			`bad.yaml:5: experiments[0].train.epochs: expected a positive integer, got 2.5`}},
		{"wrong type: list for number", okExp + "    train:\n      learning_rate: [0.1]\n", []string{
			`bad.yaml:5: experiments[0].train.learning_rate: expected a positive number, got a list`}},
		{"wrong type: string for bool", okExp + "    train:\n      shuffle: yes\n", []string{
			`bad.yaml:5: experiments[0].train.shuffle: expected true or false, got "yes"`}},
		{"wrong type: number for string", okExp + "    train:\n      method: 1\n", []string{
			`bad.yaml:5: experiments[0].train.method: expected cd, pcd or chi2 (chi2: an rbm only), got 1 (write "1" in quotes`}},
		{"wrong type: scalar for mapping", okExp + "    train: fast\n", []string{
			`bad.yaml:4: experiments[0].train: expected a mapping (method, k,`, `got "fast"`}},
		{"wrong type: empty value", okExp + "    train:\n      k:\n", []string{
			`bad.yaml:5: experiments[0].train.k: expected a positive integer, got an empty value`}},
		{"non-finite number", okExp + "    train:\n      learning_rate: .inf\n", []string{
			`bad.yaml:5: experiments[0].train.learning_rate: expected a positive number, got .inf (must be finite)`}},
		{"negative seed", "seed: -1\n" + okExp, []string{`bad.yaml:1: seed: expected a non-negative integer, got -1`}},
		{"negative epochs", okExp + "    train:\n      epochs: -3\n", []string{
			`bad.yaml:5: experiments[0].train.epochs: expected a positive integer, got -3`}},
		{"zero learning rate", okExp + "    train:\n      learning_rate: 0\n", []string{
			`bad.yaml:5: experiments[0].train.learning_rate: expected a positive number, got 0`}},
		{"momentum 1", okExp + "    train:\n      final_momentum: 1\n", []string{
			`bad.yaml:5: experiments[0].train.final_momentum: expected a number in [0,1), got 1`}},
		{"bad enum with suggestion", okExp + "    train:\n      lr_schedule: exponentail\n", []string{
			`bad.yaml:5: experiments[0].train.lr_schedule: expected constant, linear or exponential, got "exponentail" (did you mean "exponential"?)`}},
		{"no experiments key", "seed: 3\n", []string{`bad.yaml: experiments: missing required key`}},
		{"empty experiments", "experiments: []\n", []string{`bad.yaml:1: experiments: expected at least one experiment`}},
		{"experiments not a list", "experiments: {name: a}\n", []string{`bad.yaml:1: experiments: expected a list of experiments`}},
		{"experiment not a mapping", "experiments:\n  - a\n", []string{`bad.yaml:2: experiments[0]: expected a mapping`}},
		{"missing name", "experiments:\n  - data: {train: planted:train, test: planted:test}\n", []string{
			`bad.yaml:2: experiments[0]: missing required key "name"`}},
		{"bad name", "experiments:\n  - name: a/b\n    data: {train: planted:train, test: planted:test}\n", []string{
			`bad.yaml:2: experiments[0].name: expected a name of letters, digits`, `got "a/b"`}},
		{"dot name", "experiments:\n  - name: ..\n    data: {train: planted:train, test: planted:test}\n", []string{
			`bad.yaml:2: experiments[0].name: expected a name`}},
		{"data spec without its split", "experiments:\n  - name: a\n    data: {train: planted, test: npy}\n", []string{
			`bad.yaml:3: experiments[0].data.train: data spec "planted" lacks the split: which split? planted:train|valid|test`,
			`bad.yaml:3: experiments[0].data.test: data spec "npy" lacks the file; expected npy:PATH`}},
		{"reference without source", okExp + "    reference: {test: -90.1}\n", []string{
			`bad.yaml:4: experiments[0].reference.source: missing: say where the published numbers come from`}},
		{"positive reference", okExp + "    reference: {source: x, test: 3}\n", []string{
			`bad.yaml:4: experiments[0].reference.test: expected a log-likelihood in nats (< 0), got 3`}},
		{"unknown reference key", okExp + "    reference: {source: x, tset: -3}\n", []string{
			`bad.yaml:4: experiments[0].reference.tset: unknown key (did you mean "test"?`}},
		{"experiment named like a run file", "experiments:\n  - name: results.json\n    data: {train: planted:train, test: planted:test}\n", []string{
			`bad.yaml:2: experiments[0].name: "results.json" is the name of a file or folder logz writes in the run folder (results.json, report.md, report.html, config.resolved.yaml, sweep.csv, parts, .logz.lock); choose another name`}},
		{"experiment named like the parts folder", "experiments:\n  - name: a\n    data: {train: planted:train, test: planted:test}\n  - name: parts\n    data: {train: planted:train, test: planted:test}\n", []string{
			`bad.yaml:4: experiments[1].name: "parts" is the name of a file or folder logz writes in the run folder`}},
		{"experiment named like the lock file", "experiments:\n  - name: .logz.lock\n    data: {train: planted:train, test: planted:test}\n", []string{
			`bad.yaml:2: experiments[0].name: ".logz.lock" is the name of a file or folder logz writes in the run folder`}},
		{"experiment named like a run file, other case", "experiments:\n  - name: Config.Resolved.YAML\n    data: {train: planted:train, test: planted:test}\n", []string{
			`bad.yaml:2: experiments[0].name: "Config.Resolved.YAML" is the name of a file or folder logz writes in the run folder`}},
		{"hidden experiment directory", "experiments:\n  - name: .cache\n    data: {train: planted:train, test: planted:test}\n", []string{
			`bad.yaml:2: experiments[0].name: ".cache" would be a hidden directory`}},
		{"duplicate experiment names", okExp + "  - name: a\n    data: {train: planted:train, test: planted:test}\n", []string{
			`bad.yaml:4: experiments[1].name: duplicate experiment name "a" (also experiments[0])`}},
		{"duplicate after a bad entry", "experiments:\n  - oops\n  - name: a\n    data: {train: planted:train, test: planted:test}\n  - name: a\n    data: {train: planted:train, test: planted:test}\n", []string{
			`bad.yaml:2: experiments[0]: expected a mapping`,
			`bad.yaml:5: experiments[2].name: duplicate experiment name "a" (also experiments[1])`}},
		{"names equal up to case", okExp + "  - name: A\n    data: {train: planted:train, test: planted:test}\n", []string{
			`bad.yaml:4: experiments[1].name: experiment name "A" differs from experiments[0] "a" only in case`}},
		{"missing data", "experiments:\n  - name: a\n", []string{
			`bad.yaml:2: experiments[0].data.train: missing required key`, `bad.yaml:2: experiments[0].data.test: missing required key`}},
		{"unknown data scheme", "experiments:\n  - name: a\n    data: {train: mnst:train, test: planted:test}\n", []string{
			`bad.yaml:3: experiments[0].data.train: data spec "mnst:train": unknown scheme "mnst" (did you mean "mnist"?; known: mnist:train|test, fashion-mnist:train|test, digits:train|train-shifted|test, omniglot:train|test, caltech-silhouettes:train|valid|test, ocr-letters:train|valid|test, binarized-mnist:train|valid|test, idx:PATH, npy:PATH, planted:train|valid|test)`}},
		{"bad data part", "experiments:\n  - name: a\n    data:\n      train: mnist:valid\n      test: mnist:test\n", []string{
			`bad.yaml:4: experiments[0].data.train: data spec "mnist:valid": unknown part "valid" (known: mnist:train|test)`}},
		{"spec without scheme", "experiments:\n  - name: a\n    data: {train: train, test: planted:test}\n", []string{
			`bad.yaml:3: experiments[0].data.train: data spec "train" has no scheme`}},
		{"npy without path", "experiments:\n  - name: a\n    data: {train: 'npy:', test: planted:test}\n", []string{
			`bad.yaml:3: experiments[0].data.train: data spec "npy:" needs a file path`}},
		{"planted split with no examples", "experiments:\n  - name: a\n    data:\n      train: planted:train\n      test: planted:valid\n      planted: {valid: 0}\n", []string{
			`bad.yaml:6: experiments[0].data.planted.valid: expected a positive integer, got 0`}},
		{"planted model too big to sample", "experiments:\n  - name: a\n    data:\n      train: planted:train\n      test: planted:test\n      planted:\n        visible: 30\n        hidden: 21\n", []string{
			`bad.yaml:8: experiments[0].data.planted: min(visible, hidden) must be ≤ 20 (exact sampling enumerates 2^min(visible, hidden) states), got 30 visible and 21 hidden`}},
		{"duplicate mapping key", okExp + "    data:\n      threshold: 0.4\n", []string{
			`bad.yaml:4: experiments[0].data: duplicate key (first defined at line 3)`}},
		{"threshold 1", "experiments:\n  - name: a\n    data: {train: planted:train, test: planted:test, binarize: threshold, threshold: 1}\n", []string{
			`bad.yaml:3: experiments[0].data.threshold: expected a number in (0,1), got 1`}},
		{"validation eats the training set", "experiments:\n  - name: a\n    data: {train: planted:train, test: planted:test, validation: 2000}\n", []string{
			`bad.yaml:3: experiments[0].data: validation 2000 leaves no training examples (the training set has 2000)`}},
		{"validation above limit", "experiments:\n  - name: a\n    data: {train: mnist:train, test: mnist:test, limit_train: 100,\n           validation: 100}\n", []string{
			`bad.yaml:4: experiments[0].data: validation 100 leaves no training examples (the training set has 100)`}},
		{"unknown model type", okExp + "    model: {type: sbm}\n", []string{
			`bad.yaml:4: experiments[0].model.type: unknown model type "sbm" (did you mean "dbm"?; known: arsbn, dbm, dbn, ising, mob, rbm, sbn, vae)`}},
		{"dbm trained with cd", okExp + "    model: {type: dbm, layers: [4, 3]}\n    train: {method: cd}\n", []string{
			`bad.yaml:5: experiments[0].train.method: a dbm is trained jointly with persistent chains (PCD with a mean-field positive phase): set train.method: pcd (got "cd"; pretraining has its own train.pretrain.method)`}},
		{"dbm with one layer", okExp + "    model: {type: dbm, layers: [4]}\n    train: {method: pcd}\n", []string{
			`bad.yaml:4: experiments[0].model.layers: a dbm needs at least two hidden layer sizes (e.g. [500, 1000]), got [4]`}},
		{"mf-bound on an rbm", okExp + "    evaluate: {final: [mf-bound]}\n", []string{
			`bad.yaml:4: experiments[0].evaluate.final[0].name: mf-bound is an estimator of model type dbm or sbn, not of rbm (the model type is rbm; its estimators: exact, ais, ais-ratio, raise, sandwich, csl, chi2, pll, recon)`}},
		{"bad pretrain settings", okExp + "    model: {type: dbm, layers: [4, 3]}\n    train: {method: pcd, mean_field_iters: 0, pretrain: {epochs: -1, method: cdd, k: 0, learning_rate: 0}}\n", []string{
			`experiments[0].train.mean_field_iters: expected a positive integer, got 0`,
			`experiments[0].train.pretrain.epochs: expected a non-negative integer (0 = no pretraining), got -1`,
			`experiments[0].train.pretrain.method: expected cd or pcd, got "cdd"`,
			`experiments[0].train.pretrain.k: expected a positive integer, got 0`,
			`experiments[0].train.pretrain.learning_rate: expected a positive number, got 0`}},
		{"zero hidden", okExp + "    model: {hidden: 0}\n", []string{`bad.yaml:4: experiments[0].model.hidden: expected a positive integer, got 0`}},
		{"pcd with chains 0 after defaulting", okExp + "    train: {method: pcd, batch_size: 0}\n", []string{
			`bad.yaml:4: experiments[0].train: method "pcd" needs chains ≥ 1, got 0`,
			`bad.yaml:4: experiments[0].train.batch_size: expected a positive integer, got 0`}},
		{"pcd with negative chains", okExp + "    train:\n      method: pcd\n      chains: -1\n", []string{
			`bad.yaml:6: experiments[0].train: method "pcd" needs chains ≥ 1, got -1`}},
		{"cd with chains", okExp + "    train:\n      chains: 10\n", []string{
			`bad.yaml:5: experiments[0].train: method "cd" needs chains = 0`}},
		{"unknown precision", okExp + "    train:\n      precision: float16\n", []string{
			`bad.yaml:5: experiments[0].train.precision: expected float64 or float32, got "float16"`}},
		{"raise with a pilot schedule", okExp + "    evaluate:\n      final:\n        - {name: raise, schedule: pilot}\n", []string{
			`bad.yaml:6: experiments[0].evaluate.final[0].schedule: expected linear or 2008 (a pilot chooses the spacing from AIS runs' weights: give RAISE the spacing an ais entry's note names), got "pilot"`}},
		{"k_end below k", okExp + "    train:\n      k: 3\n      k_end: 2\n", []string{
			`bad.yaml:6: experiments[0].train: k_end must be 0 (constant k) or ≥ k (3), got 2`}},
		{"linear lr_end too big", okExp + "    train:\n      lr_schedule: linear\n      lr_end: 0.1\n", []string{
			`bad.yaml:6: experiments[0].train: lr_schedule "linear" needs 0 ≤ lr_end < learning_rate (0.05), got lr_end 0.1`}},
		{"lr_end without linear", okExp + "    train:\n      lr_end: 0.01\n", []string{
			`bad.yaml:5: experiments[0].train.lr_end: only used by lr_schedule "linear"`}},
		{"exponential decay 0", okExp + "    train:\n      lr_schedule: exponential\n      lr_decay: 0\n", []string{
			`bad.yaml:6: experiments[0].train: lr_schedule "exponential" needs 0 < lr_decay ≤ 1, got 0`}},
		{"momentum switch 0", okExp + "    train:\n      momentum_switch_epoch: 0\n", []string{
			`bad.yaml:5: experiments[0].train.momentum_switch_epoch: expected a positive integer (1-based epoch), got 0`}},
		{"unknown split", okExp + "    evaluate:\n      splits: [test, tset]\n", []string{
			`bad.yaml:5: experiments[0].evaluate.splits[1]: expected train, valid or test, got "tset" (did you mean "test"?)`}},
		{"duplicate split", okExp + "    evaluate:\n      splits: [test, test]\n", []string{
			`bad.yaml:5: experiments[0].evaluate.splits[1]: duplicate split "test" (also evaluate.splits[0])`}},
		{"valid split without validation data", "experiments:\n  - name: a\n    data: {train: mnist:train, test: mnist:test}\n    evaluate:\n      splits: [valid]\n", []string{
			`bad.yaml:5: experiments[0].evaluate.splits[0]: split "valid" needs data.validation > 0`}},
		{"ais runs 1", okExp + "    evaluate:\n      final:\n        - name: ais\n          runs: 1\n", []string{
			`bad.yaml:7: experiments[0].evaluate.final[0].runs: expected an integer ≥ 2, got 1`}},
		{"2008 schedule with 2 betas", okExp + "    evaluate:\n      final:\n        - {name: ais, betas: 2, schedule: 2008}\n", []string{
			`bad.yaml:6: experiments[0].evaluate.final[0]: schedule "2008" (three segments) needs betas ≥ 3, got 2`}},
		{"bad ais schedule", okExp + "    evaluate:\n      final:\n        - {name: ais, schedule: 2009}\n", []string{
			`bad.yaml:6: experiments[0].evaluate.final[0].schedule: expected linear, 2008 or pilot, got "2009" (did you mean "2008"?)`}},
		{"bad ais init", okExp + "    evaluate:\n      final:\n        - {name: ais, init: data}\n", []string{
			`bad.yaml:6: experiments[0].evaluate.final[0].init: expected base-rate or uniform, got "data"`}},
		{"max_units above 40", okExp + "    evaluate:\n      final:\n        - {name: exact, max_units: 41}\n", []string{
			`bad.yaml:6: experiments[0].evaluate.final[0].max_units: expected an integer in [1,40], got 41`}},
		{"exact on a model too big", "experiments:\n  - name: a\n    data: {train: mnist:train, test: mnist:test}\n    model: {hidden: 500}\n    evaluate:\n      every_epoch: []\n      final: [exact]\n", []string{
			`bad.yaml:7: experiments[0].evaluate.final[0]: exact enumeration needs min(visible, hidden) ≤ max_units (25), but the model has 784 visible and 500 hidden units`}},
		{"duplicate estimator", okExp + "    evaluate:\n      final: [pll, pll]\n", []string{
			`bad.yaml:5: experiments[0].evaluate.final[1]: duplicate of evaluate.final[0]`}},
		{"estimator list not a list", okExp + "    evaluate:\n      final: exact\n", []string{
			`bad.yaml:5: experiments[0].evaluate.final: expected a list of estimators, got "exact"`}},
		{"non-string key", okExp + "    1: x\n", []string{`bad.yaml:4: experiments[0]: keys must be plain words`}},
		{"error in base reported at base line", "base:\n  train: {method: pcd, batch_size: 0}\n" + okExp, []string{
			`bad.yaml:2: base.train: method "pcd" needs chains ≥ 1, got 0`}},
		{"format-1 layers not a list", okExp + "    model:\n      layers: 3\n", []string{
			`bad.yaml:5: experiments[0].model.layers: expected a list ([] in older configs), got 3`}},
		{"bad file name", "name: my run\n" + okExp, []string{`bad.yaml:1: name: expected a name of letters`}},
		{"dbm trained with cd set in base", "base:\n  train: {method: cd}\n" + okExp + "    model: {type: dbm, layers: [4, 3]}\n", []string{
			`bad.yaml:2: base.train.method: a dbm is trained jointly with persistent chains (PCD with a mean-field positive phase): set train.method: pcd (got "cd"; pretraining has its own train.pretrain.method)`}},

		// Keys of logz format 1 that the model type does not use are
		// accepted at their old default only (TestFormat1Keys); any other
		// value is an error naming the key.
		{"format-1 mean_field_iters on an rbm", okExp + "    train:\n      mean_field_iters: 5\n", []string{
			`bad.yaml:5: experiments[0].train.mean_field_iters: not used by model type rbm (configs of logz format 1 carried it for every model type, as 10; remove it)`}},
		{"format-1 layer_data on an rbm", okExp + "    train:\n      layer_data: mean-field\n", []string{
			`bad.yaml:5: experiments[0].train.layer_data: not used by model type rbm (configs of logz format 1 carried it for every model type, as sampled; remove it)`}},
		{"format-1 transpose_init on an rbm", okExp + "    train:\n      transpose_init: true\n", []string{
			`bad.yaml:5: experiments[0].train.transpose_init: not used by model type rbm (configs of logz format 1 carried it for every model type, as false; remove it)`}},
		{"format-1 pretrain on an rbm", okExp + "    train:\n      k: 2\n      pretrain: {epochs: 3}\n", []string{
			`bad.yaml:6: experiments[0].train.pretrain: not used by model type rbm (configs of logz format 1 carried it for every model type, as {epochs: 0, method: cd, k: 1, learning_rate: 0.05}; remove it)`}},
		{"format-1 pretrain with an unknown key", okExp + "    train:\n      pretrain: {epoch: 0}\n", []string{
			`bad.yaml:5: experiments[0].train.pretrain.epoch: unknown key (did you mean "epochs"?; known keys: epochs, method, k, learning_rate)`}},
		{"format-1 layers on an rbm", okExp + "    model:\n      hidden: 4\n      layers: [4, 3]\n", []string{
			`bad.yaml:6: experiments[0].model.layers: not used by model type rbm (configs of logz format 1 carried it for every model type, as []; remove it)`}},
		{"format-1 samples on an rbm's ais", okExp + "    evaluate:\n      final:\n        - exact\n        - {name: ais, samples: 100}\n", []string{
			`bad.yaml:7: experiments[0].evaluate.final[1].samples: not used by model type rbm (configs of logz format 1 carried it for every model type, as 500; remove it)`}},
		{"format-1 key in base", "base:\n  train: {mean_field_iters: 5}\n" + okExp, []string{
			`bad.yaml:2: base.train.mean_field_iters: not used by model type rbm (configs of logz format 1 carried it for every model type, as 10; remove it)`}},
		{"dbn bottom_from that does not exist", okExp + "    model: {type: dbn, layers: [4, 3]}\n    train: {bottom_from: no/such/cd25.npz}\n", []string{
			`bad.yaml:5: experiments[0].train.bottom_from: expected the path of a trained rbm or dbn .npz; no/such/cd25.npz does not exist (train the model it names first)`}},
		{"format-1 hidden on a dbn", okExp + "    model: {type: dbn, layers: [4, 3], hidden: 30}\n", []string{
			`bad.yaml:4: experiments[0].model.hidden: not used by model type dbn (configs of logz format 1 carried it for every model type, as 25; remove it)`}},
		{"format-1 mean_field_iters on a dbn", okExp + "    model: {type: dbn, layers: [4, 3]}\n    train:\n      mean_field_iters: 11\n", []string{
			`bad.yaml:6: experiments[0].train.mean_field_iters: not used by model type dbn (configs of logz format 1 carried it for every model type, as 10; remove it)`}},
		{"format-1 layer_data on a dbm", okExp + "    model: {type: dbm, layers: [4, 3]}\n    train:\n      layer_data: resampled\n", []string{
			`bad.yaml:6: experiments[0].train.layer_data: not used by model type dbm (configs of logz format 1 carried it for every model type, as sampled; remove it)`}},
		{"format-1 hidden on a dbm", okExp + "    model: {type: dbm, layers: [4, 3], hidden: 500}\n", []string{
			`bad.yaml:4: experiments[0].model.hidden: not used by model type dbm (configs of logz format 1 carried it for every model type, as 25; remove it)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml), "bad.yaml", Options{})
			if err == nil {
				t.Fatalf("accepted:\n%s", c.yaml)
			}
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("error is %T, want ErrorList: %v", err, err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error text lacks %q; got:\n%v", w, err)
				}
			}
			for _, e := range list {
				if e.File != "bad.yaml" {
					t.Errorf("error without the file name: %v", e)
				}
			}
		})
	}
}

// TestFormat1Keys checks that the keys logz format 1 wrote for every model
// type are accepted, at their old defaults, by the model types that do not
// use them, and change nothing: the experiment equals the one parsed
// without them.
func TestFormat1Keys(t *testing.T) {
	const data = "experiments:\n  - name: a\n    data: {train: planted:train, test: planted:test}\n"
	cases := []struct {
		name          string
		with, without string
	}{
		{"rbm",
			data + `    model: {hidden: 12, layers: []}
    train: {k: 2, mean_field_iters: 10, layer_data: sampled, transpose_init: false, pretrain: {epochs: 0, method: cd, k: 1, learning_rate: 0.05}}
    evaluate: {final: [exact, {name: ais, samples: 500}, {name: ais, runs: 10, samples: 500}]}
`,
			data + `    model: {hidden: 12}
    train: {k: 2}
    evaluate: {final: [exact, ais, {name: ais, runs: 10}]}
`},
		{"rbm, part of pretrain", data + "    train: {pretrain: {k: 1}}\n", data},
		{"dbn",
			data + `    model: {type: dbn, layers: [4, 3], hidden: 25}
    train: {mean_field_iters: 10, pretrain: {epochs: 0, method: cd, k: 1, learning_rate: 0.05}}
`,
			data + "    model: {type: dbn, layers: [4, 3]}\n"},
		{"dbm",
			data + `    model: {type: dbm, layers: [4, 3], hidden: 25}
    train: {method: pcd, layer_data: sampled, transpose_init: false}
`,
			data + "    model: {type: dbm, layers: [4, 3]}\n    train: {method: pcd}\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			with, err := Parse([]byte(c.with), "old.yaml", Options{})
			if err != nil {
				t.Fatalf("format-1 keys at their old defaults rejected:\n%v", err)
			}
			without := mustParse(t, c.without, "old.yaml", Options{})
			if !reflect.DeepEqual(with.Experiments, without.Experiments) {
				t.Errorf("format-1 keys changed the experiment:\n got %+v\nwant %+v", with.Experiments, without.Experiments)
			}
		})
	}
}

// TestFormat1Resolved checks that config.resolved.yaml files written by
// logz format 1 (testdata/format1/*.resolved.yaml, the resolved quickstarts
// of commit b61ae4f, next to their sources) still parse, to the experiments
// their sources give now: the same seeds and the same settings.
func TestFormat1Resolved(t *testing.T) {
	resolved, err := filepath.Glob("testdata/format1/*.resolved.yaml")
	if err != nil || len(resolved) != 3 {
		t.Fatalf("testdata/format1: %v %v", resolved, err)
	}
	for _, r := range resolved {
		t.Run(filepath.Base(r), func(t *testing.T) {
			old, err := Load(r, Options{})
			if err != nil {
				t.Fatalf("format-1 resolved config rejected:\n%v", err)
			}
			src, err := Load(strings.TrimSuffix(r, ".resolved.yaml")+".yaml", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if old.Name != src.Name || old.Seed != src.Seed || old.Description != src.Description {
				t.Errorf("file: %q %d %q, source %q %d %q", old.Name, old.Seed, old.Description, src.Name, src.Seed, src.Description)
			}
			if !reflect.DeepEqual(old.Experiments, src.Experiments) {
				t.Errorf("experiments differ from the source's:\n got %+v\nwant %+v", old.Experiments, src.Experiments)
			}
		})
	}
}

// TestAllErrorsCollected checks that several independent problems are all
// reported, in line order.
func TestAllErrorsCollected(t *testing.T) {
	src := `seed: x
experiments:
  - name: a
    data: {train: planted:train, test: planted:test}
    train:
      k: one
      epochs: 0
    evaluate:
      final: [exact, nope]
  - name: b
    data: {train: foo:bar, test: planted:test}
`
	_, err := Parse([]byte(src), "multi.yaml", Options{})
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("want ErrorList, got %v", err)
	}
	want := []string{
		`multi.yaml:1: seed: expected a non-negative integer, got "x"`,
		`multi.yaml:6: experiments[0].train.k: expected a positive integer, got "one"`,
		`multi.yaml:7: experiments[0].train.epochs: expected a positive integer, got 0`,
		`multi.yaml:9: experiments[0].evaluate.final[1].name: unknown estimator "nope"`,
		`multi.yaml:11: experiments[1].data.train: data spec "foo:bar": unknown scheme "foo"`,
	}
	if len(list) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%v", len(list), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(list[i].Error(), w) {
			t.Errorf("error %d = %q, want prefix %q", i, list[i].Error(), w)
		}
	}
	if errs := list.Unwrap(); len(errs) != len(list) {
		t.Errorf("Unwrap gave %d errors, want %d", len(errs), len(list))
	}
}

func TestNoFileName(t *testing.T) {
	f, err := Parse([]byte(okExp), "", Options{})
	if err != nil || f.Name != "config" {
		t.Fatalf("Parse without a file name: %v, %+v", err, f)
	}
	_, err = Parse([]byte("seed: x\n"+okExp), "", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "<config>:1: seed: ") {
		t.Errorf("error without a file name: %v", err)
	}
}

func TestSuggest(t *testing.T) {
	keys := []string{"method", "k", "k_end", "learning_rate", "lr_schedule", "epochs"}
	for in, want := range map[string]string{
		"lerning_rate": "learning_rate", "learningRate": "learning_rate", "LEARNING-RATE": "learning_rate",
		"epoch": "epochs", "mehtod": "method", "kend": "k_end",
	} {
		if got, ok := suggest(in, keys); !ok || got != want {
			t.Errorf("suggest(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"batch", "x", "zzzzzz"} {
		if got, ok := suggest(in, keys); ok {
			t.Errorf("suggest(%q) = %q, want no suggestion", in, got)
		}
	}
	if d := editDistance("abcd", "acbd"); d != 1 {
		t.Errorf("transposition distance = %d, want 1", d)
	}
	if d := editDistance("kitten", "sitting"); d != 3 {
		t.Errorf("editDistance(kitten, sitting) = %d, want 3", d)
	}
}

// TestRecordedSkipsInputFiles: a config that a run recorded (Options.Recorded)
// is read even when a file the run read at its start (a dbn's
// train.bottom_from) is no longer there, and keeps the setting; the same
// document as a user's config is refused for it.
func TestRecordedSkipsInputFiles(t *testing.T) {
	src := "experiments:\n  - name: e\n    data: {train: planted:train, test: planted:test}\n" +
		"    model: {type: dbn, layers: [4, 3]}\n    train: {bottom_from: no/such/cd25.npz}\n"
	if _, err := Parse([]byte(src), "run.yaml", Options{}); err == nil || !strings.Contains(err.Error(), "no/such/cd25.npz does not exist") {
		t.Fatalf("a user's config: %v, want the missing bottom_from refused", err)
	}
	f := mustParse(t, src, "run.yaml", Options{Recorded: true})
	if got := reflect.ValueOf(f.Experiments[0].Train).Elem().FieldByName("BottomFrom").String(); got != "no/such/cd25.npz" {
		t.Fatalf("recorded bottom_from %q, want no/such/cd25.npz", got)
	}
}
