package config

import (
	"strings"
	"testing"
)

// selGrid is an experiment with a grid over the learning rate, evaluated
// on valid and test (planted data has a valid split), then its select:
// line.
const selGrid = `experiments:
  - name: rbm
    data: {train: planted:train, test: planted:test}
    evaluate: {splits: [valid, test], final: [exact, ais]}
    grid: {train.learning_rate: [0.05, 0.01], seed: [1, 2]}
`

// TestSelectRefusals: select: settings that cannot work are refused when
// the config is read, each at the line of its key. Mutation checked:
// dropping each case of validator.selectPoint (and the grid's and base's
// refusals of select) — its config is then accepted.
func TestSelectRefusals(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"no grid", okExp + "    select: {split: valid, estimator: ais}\n",
			`bad.yaml:4: experiments[0].select: select chooses among the points of a grid, and this experiment has none`},
		{"test split", selGrid + "    select: {split: test, estimator: ais}\n",
			`bad.yaml:6: experiments[0].select.split: test is refused: the choice reports the chosen point's test numbers, and choosing on them would report the best of several tries at the test set (biased upwards)`},
		{"split not evaluated", selGrid + "    select: {split: train, estimator: ais}\n",
			`bad.yaml:6: experiments[0].select.split: train is not among evaluate.splits (now [valid test]): add it`},
		{"unknown split", selGrid + "    select: {split: valdi, estimator: ais}\n",
			`bad.yaml:6: experiments[0].select.split: expected train, valid or test, got "valdi" (did you mean "valid"?)`},
		{"no split", selGrid + "    select: {estimator: ais}\n",
			`bad.yaml:6: experiments[0].select.split: missing: the split whose estimates choose the point, e.g. split: valid`},
		{"estimator not final", selGrid + "    select: {split: valid, estimator: raise}\n",
			`bad.yaml:6: experiments[0].select.estimator: "raise" is not an entry of evaluate.final (its entries: exact, ais)`},
		{"no estimator", selGrid + "    select: {split: valid}\n",
			`bad.yaml:6: experiments[0].select.estimator: missing: the evaluate.final estimator whose mean log-likelihood chooses the point (its entries: exact, ais)`},
		{"unknown key", selGrid + "    select: {split: valid, estimator: ais, on: max}\n",
			`bad.yaml:6: experiments[0].select.on: unknown key (known keys: split, estimator)`},
		{"grid sets select", strings.Replace(selGrid, "seed: [1, 2]}", "select.split: [valid, train]}", 1),
			`bad.yaml:5: experiments[0].grid.select.split: a grid cannot set select`},
		{"base sets select", "base:\n  select: {split: valid, estimator: ais}\n" + selGrid,
			`bad.yaml:2: base.select: select chooses among the points of one grid; write it beside that experiment's grid:, not in base`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml), "bad.yaml", Options{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nlacks %q", err, c.want)
			}
		})
	}
}

// TestSelectResolved: every point of the grid carries select:, the
// resolved config keeps it, and GridEntries reads it back with each
// point's place in the list.
func TestSelectResolved(t *testing.T) {
	f, err := Parse([]byte(selGrid+"    select: {split: valid, estimator: ais}\n"), "ok.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range f.Experiments {
		if e.Select != (Select{Split: "valid", Estimator: "ais"}) {
			t.Fatalf("%s: select %+v", e.Name, e.Select)
		}
	}
	b, err := f.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	entries, err := GridEntries(b)
	if err != nil || len(entries) != 4 {
		t.Fatalf("%d entries, %v", len(entries), err)
	}
	for i, e := range entries {
		if e.Index != i || e.Select.Split != "valid" || e.Select.Estimator != "ais" || e.Name != f.Experiments[i].Name {
			t.Errorf("entry %d: %+v", i, e)
		}
	}
	if g := entries[2].Point; g.Setting() != "train.learning_rate=0.01" || g.Group() != "rbm (train.learning_rate=0.01)" {
		t.Errorf("setting %q, group %q", g.Setting(), g.Group())
	}
}

// TestSelectOnePerGrid: --set may not give one point of a grid another
// select: than the others (Selections reads one per grid); for the whole
// grid it may. Mutation checked: dropping the check in parse (the
// mixed grid is accepted).
func TestSelectOnePerGrid(t *testing.T) {
	y := []byte(selGrid + "    select: {split: valid, estimator: ais}\n")
	set := func(arg string) Options {
		o, err := ParseOverride(arg)
		if err != nil {
			t.Fatal(err)
		}
		return Options{Set: []Override{o}}
	}
	_, err := Parse(y, "x.yaml", set("rbm.learning_rate-0.01.seed-2:select.estimator=exact"))
	want := "experiments[0].select: select {split: valid, estimator: exact} differs from the select of rbm.learning_rate-0.05.seed-1, another point of the grid rbm"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v\nlacks %q", err, want)
	}
	f, err := Parse(y, "x.yaml", set("rbm:select.estimator=exact"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range f.Experiments {
		if e.Select.Estimator != "exact" {
			t.Errorf("%s: select %+v after --set rbm:select.estimator=exact", e.Name, e.Select)
		}
	}
}
