package config

import (
	"strings"
	"testing"

	"github.com/logz-ml/logz/family"
)

// TestEarlyStopRefusals: train.early_stop settings that cannot work are
// refused when the config is read, each naming the key and what is
// missing. Mutation checked: dropping each case of validator.earlyStop
// (its config is then accepted).
func TestEarlyStopRefusals(t *testing.T) {
	const mnist = "experiments:\n  - name: a\n    data: {train: mnist:train, test: mnist:test"
	for _, c := range []struct{ name, yaml, want string }{
		{"patience without validation", mnist + "}\n    train: {early_stop: {patience: 2}}\n",
			`bad.yaml:4: experiments[0].train.early_stop.patience: early stopping compares estimates on a validation split, and there is none: set data.validation`},
		{"valid not evaluated", mnist + ", validation: 100}\n    train: {early_stop: {patience: 2}}\n",
			`bad.yaml:4: experiments[0].train.early_stop.patience: early stopping compares estimates on the valid split: add valid to evaluate.splits (now [test train])`},
		{"no after-epoch evaluation", mnist + ", validation: 100}\n    train: {early_stop: {patience: 2}}\n    evaluate: {splits: [valid], every: 0}\n",
			`experiments[0].train.early_stop.patience: early stopping needs after-epoch evaluations: evaluate.every > 0 (now 0)`},
		{"no after-epoch estimator", mnist + ", validation: 100}\n    train: {early_stop: {patience: 2}}\n    evaluate: {splits: [valid], every_epoch: []}\n",
			`and at least one evaluate.every_epoch estimator (now 0)`},
		{"monitor not listed", mnist + ", validation: 100}\n    train: {early_stop: {patience: 2, monitor: raise}}\n    evaluate: {splits: [valid]}\n",
			`bad.yaml:4: experiments[0].train.early_stop.monitor: monitor "raise" is not an entry of evaluate.every_epoch (its entries: exact, ais)`},
		{"monitor without patience", okExp + "    train: {early_stop: {monitor: exact}}\n",
			`bad.yaml:4: experiments[0].train.early_stop.monitor: monitor "exact" does nothing while patience is 0`},
		{"negative patience", okExp + "    train: {early_stop: {patience: -1}}\n",
			`bad.yaml:4: experiments[0].train.early_stop.patience: expected a non-negative integer (0 = off), got -1`},
		{"unknown key", okExp + "    train: {early_stop: {patiense: 3}}\n",
			`bad.yaml:4: experiments[0].train.early_stop.patiense: unknown key (did you mean "patience"?; known keys: patience, monitor)`},
		{"validation eats the training set", "experiments:\n  - name: a\n    data: {train: mnist:train, test: mnist:test, limit_train: 50, validation: 50}\n    train: {early_stop: {patience: 2}}\n    evaluate: {splits: [valid]}\n",
			`bad.yaml:3: experiments[0].data: validation 50 leaves no training examples (the training set has 50)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml), "bad.yaml", Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nlacks %q", err, c.want)
			}
		})
	}
}

// TestEarlyStopAccepted: early stopping with planted data (whose valid
// split is planted:valid) or a held-out validation split, set in the file
// or by --set, for every family's train: section.
// Mutation checked: an EarlyStopping method that returns a fresh
// EarlyStop (the settings read back as off).
func TestEarlyStopAccepted(t *testing.T) {
	for _, f := range family.All() {
		if _, ok := f.Train().(family.Stopper); !ok {
			t.Errorf("family %s: its train: settings have no early_stop (embed family.Stopping)", f.Name)
		}
	}
	y := okExp + "    evaluate: {splits: [valid, test]}\n"
	var set []Override
	for _, arg := range []string{"train.early_stop.patience=4", "train.early_stop.monitor=ais"} {
		o, err := ParseOverride(arg)
		if err != nil {
			t.Fatal(err)
		}
		set = append(set, o)
	}
	f, err := Parse([]byte(y), "ok.yaml", Options{Set: set})
	if err != nil {
		t.Fatal(err)
	}
	es := family.EarlyStopOf(f.Experiments[0].Train)
	if es == nil || es.Patience != 4 || es.Monitor != "ais" {
		t.Fatalf("--set early_stop: got %+v", es)
	}
	// The resolved config says it, and reads back the same.
	b, err := f.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "early_stop:\n        patience: 4\n        monitor: ais\n") {
		t.Errorf("resolved config lacks early_stop:\n%s", b)
	}
	g, err := Parse(b, "resolved.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := family.EarlyStopOf(g.Experiments[0].Train); got == nil || *got != *es {
		t.Errorf("resolved config reads back early_stop %+v, want %+v", got, es)
	}
	// Off, it is not written: resolved configs of runs without it are as before.
	f, err = Parse([]byte(okExp), "ok.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := f.Resolved(); strings.Contains(string(b), "early_stop") {
		t.Errorf("resolved config of a run without early stopping mentions it:\n%s", b)
	}
}
