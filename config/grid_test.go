package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const gridHead = `name: g
seed: 7
base:
  data: {train: planted:train, test: planted:test}
  train: {epochs: 2}
experiments:
`

func parseGrid(t *testing.T, exps string, set ...string) (*File, error) {
	t.Helper()
	var opt Options
	for _, s := range set {
		o, err := ParseOverride(s)
		if err != nil {
			t.Fatal(err)
		}
		opt.Set = append(opt.Set, o)
	}
	return Parse([]byte(gridHead+exps), "g.yaml", opt)
}

func lr(e Experiment) float64 {
	v, err := SweepValue(e, "train.learning_rate")
	if err != nil {
		panic(err)
	}
	return v
}

// TestGridExpansion checks the names, order, values and seeds of a grid's
// points, and the experiments around it.
func TestGridExpansion(t *testing.T) {
	f, err := parseGrid(t, `  - name: first
  - name: rbm
    model: {hidden: 5}
    grid: {train.learning_rate: [0.05, 0.01], seed: [1, 2, 3]}
  - name: last
`)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name string
		lr   float64
		seed uint64
		at   []string
	}{
		{"first", 0.05, DeriveSeed(7, 0), nil},
		{"rbm.learning_rate-0.05.seed-1", 0.05, 1, []string{"0.05", "1"}},
		{"rbm.learning_rate-0.05.seed-2", 0.05, 2, []string{"0.05", "2"}},
		{"rbm.learning_rate-0.05.seed-3", 0.05, 3, []string{"0.05", "3"}},
		{"rbm.learning_rate-0.01.seed-1", 0.01, 1, []string{"0.01", "1"}},
		{"rbm.learning_rate-0.01.seed-2", 0.01, 2, []string{"0.01", "2"}},
		{"rbm.learning_rate-0.01.seed-3", 0.01, 3, []string{"0.01", "3"}},
		// Without a seed of its own, an experiment's seed derives from its
		// place in the expanded list, as if the grid had been written out.
		{"last", 0.05, DeriveSeed(7, 7), nil},
	}
	if len(f.Experiments) != len(want) {
		t.Fatalf("%d experiments, want %d", len(f.Experiments), len(want))
	}
	for i, w := range want {
		e := f.Experiments[i]
		if e.Name != w.name || lr(e) != w.lr || e.Seed != w.seed {
			t.Errorf("experiment %d: %s lr %g seed %d, want %s lr %g seed %d", i, e.Name, lr(e), e.Seed, w.name, w.lr, w.seed)
		}
		if w.at == nil {
			if !e.Grid.IsZero() {
				t.Errorf("%s: grid point %v, want none", e.Name, e.Grid)
			}
			continue
		}
		if e.Grid.Of != "rbm" || strings.Join(e.Grid.Axes, ",") != "train.learning_rate,seed" || strings.Join(e.Grid.At, ",") != strings.Join(w.at, ",") {
			t.Errorf("%s: grid point %+v, want of rbm at %v", e.Name, e.Grid, w.at)
		}
		if h := e.Model.Settings; h == nil || !strings.Contains(strings.ReplaceAll(describeSettings(e), " ", ""), "hidden:5") {
			t.Errorf("%s: lost the experiment's own model.hidden 5", e.Name)
		}
	}
	if g := f.Experiments[2].Grid.Group(); g != "rbm (train.learning_rate=0.05)" {
		t.Errorf("group %q", g)
	}

	// The resolved config lists the points and parses back to them, with
	// their coordinates (GridOf), so that --resume and shards see the
	// same list.
	res, err := f.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	back, err := Parse(res, "resolved.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range f.Experiments {
		if a, b := f.Experiments[i], back.Experiments[i]; a.Name != b.Name || a.Seed != b.Seed || lr(a) != lr(b) || strings.Join(a.Grid.At, ",") != strings.Join(b.Grid.At, ",") {
			t.Errorf("resolved experiment %d: %s/%d/%v, want %s/%d/%v", i, b.Name, b.Seed, b.Grid, a.Name, a.Seed, a.Grid)
		}
	}
	pts, err := GridOf(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 6 || pts["rbm.learning_rate-0.01.seed-3"].Group() != "rbm (train.learning_rate=0.01)" {
		t.Errorf("GridOf: %v", pts)
	}
	if s, ok := pts["rbm.learning_rate-0.01.seed-3"].Seed(); !ok || s != "3" {
		t.Errorf("seed of a point: %q %v", s, ok)
	}
}

func describeSettings(e Experiment) string {
	var b strings.Builder
	res, _ := (&File{Experiments: []Experiment{e}}).Resolved()
	b.Write(res)
	return b.String()
}

// TestGridNames checks templates, labels and nested values.
func TestGridNames(t *testing.T) {
	f, err := parseGrid(t, `  - name: "J{data.planted.weight_scale}"
    grid: {data.planted.weight_scale: [0.1, 0.45]}
  - name: "cd1-s{seed}-{train.precision}"
    grid:
      seed: [1, 2]
      train.precision: {"32": float32, "64": float64}
  - name: m
    grid:
      train: {cd: {method: cd}, pcd: {method: pcd, learning_rate: 0.01}}
      train.precision: {"64": float64}
      data.planted.seed: [0, 1]
      model.hidden: [3]
`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range f.Experiments {
		names = append(names, e.Name)
	}
	want := "J0.1 J0.45 cd1-s1-32 cd1-s1-64 cd1-s2-32 cd1-s2-64 " +
		"m.train-cd.precision-64.data.planted.seed-0.hidden-3 m.train-cd.precision-64.data.planted.seed-1.hidden-3 " +
		"m.train-pcd.precision-64.data.planted.seed-0.hidden-3 m.train-pcd.precision-64.data.planted.seed-1.hidden-3"
	if strings.Join(names, " ") != want {
		t.Errorf("names\n %s\nwant\n %s", strings.Join(names, " "), want)
	}
	if e := f.Experiments[3]; e.Seed != 1 || !strings.Contains(describeSettings(e), "precision: float64") {
		t.Errorf("%s: seed %d, want 1 and precision float64", e.Name, e.Seed)
	}
	if e := f.Experiments[8]; lr(e) != 0.01 || !strings.Contains(describeSettings(e), "method: pcd") {
		t.Errorf("%s: lr %g, want pcd at 0.01", e.Name, lr(e))
	}
	if e := f.Experiments[0]; e.Data.Planted.WeightScale != 0.1 {
		t.Errorf("J0.1: weight scale %g", e.Data.Planted.WeightScale)
	}
}

// TestGridOverrides: --set applies after expansion, to one point by its
// name or to every point by the grid's name.
func TestGridOverrides(t *testing.T) {
	exps := `  - name: rbm
    grid: {seed: [1, 2]}
  - name: other
`
	f, err := parseGrid(t, exps, "rbm:train.epochs=5", "rbm.seed-2:train.learning_rate=0.2")
	if err != nil {
		t.Fatal(err)
	}
	got := []int{}
	for _, e := range f.Experiments {
		got = append(got, epochsOf(t, e))
	}
	if got[0] != 5 || got[1] != 5 || got[2] != 2 || lr(f.Experiments[0]) != 0.05 || lr(f.Experiments[1]) != 0.2 {
		t.Errorf("epochs %v, lr %g %g", got, lr(f.Experiments[0]), lr(f.Experiments[1]))
	}
	// Without NAME, a --set replaces the grid's values too: the points
	// set the key themselves, as experiments written out would.
	f, err = parseGrid(t, `  - name: rbm
    grid: {train.learning_rate: [0.01, 0.02]}
`, "train.learning_rate=0.3")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range f.Experiments {
		if lr(e) != 0.3 {
			t.Errorf("%s: lr %g, want the --set's 0.3", e.Name, lr(e))
		}
	}
	if _, err := parseGrid(t, exps, "nothere:train.epochs=5"); err == nil || !strings.Contains(err.Error(), `no experiment named "nothere" in the file`) {
		t.Errorf("--set of an unknown name: %v", err)
	}
}

func epochsOf(t *testing.T, e Experiment) int {
	v, err := SweepValue(e, "train.epochs")
	if err != nil {
		t.Fatal(err)
	}
	return int(v)
}

// TestGridErrors checks that each bad grid is refused with the line and
// what was expected.
func TestGridErrors(t *testing.T) {
	// Lines: the experiments start at line 7.
	cases := []struct {
		name, exps string
		want       []string
	}{
		{"unknown key", "  - name: a\n    grid: {train.lerning_rate: [0.1]}\n",
			[]string{`g.yaml:8: experiments[0].grid.train.lerning_rate: unknown key (did you mean "learning_rate"?`}},
		{"a key of another family", "  - name: a\n    grid: {model.layers: [[5]]}\n",
			[]string{`g.yaml:8: experiments[0].grid.model.layers: a list needs a label`}},
		{"a key the experiment does not have", "  - name: a\n    grid:\n      model.visible_layers: {one: [5]}\n",
			[]string{`g.yaml:9: experiments[0].grid.model.visible_layers: unknown key`}},
		{"wrong type", "  - name: a\n    grid:\n      train.epochs: [1, two]\n",
			[]string{`g.yaml:9: experiments[0].grid.train.epochs: expected a positive integer, got "two"`}},
		{"wrong type, block list", "  - name: a\n    grid:\n      train.learning_rate:\n        - 0.1\n        - fast\n",
			[]string{`g.yaml:11: experiments[0].grid.train.learning_rate: expected`, `got "fast"`}},
		{"invalid value", "  - name: a\n    grid: {train.epochs: [0, 1]}\n",
			[]string{`g.yaml:8: experiments[0].grid.train.epochs:`}},
		{"empty list", "  - name: a\n    grid: {seed: []}\n",
			[]string{`g.yaml:8: experiments[0].grid.seed: expected at least one value, got an empty list`}},
		{"empty grid", "  - name: a\n    grid: {}\n",
			[]string{`g.yaml:8: experiments[0].grid: expected a mapping of setting paths to lists of values`}},
		{"scalar instead of a list", "  - name: a\n    grid: {seed: 3}\n",
			[]string{`g.yaml:8: experiments[0].grid.seed: expected a list of values (write [3] for one value)`}},
		{"null value", "  - name: a\n    grid: {seed: [1, ~]}\n",
			[]string{`g.yaml:8: experiments[0].grid.seed: an empty value sets nothing`}},
		{"value not fit for a name", "  - name: a\n    grid: {data.train: [planted:train, planted:valid]}\n",
			[]string{`experiments[0].grid.data.train: the value "planted:train" cannot be part of an experiment name`, `give it a label`}},
		{"repeated value", "  - name: a\n    grid: {seed: [1, 1]}\n",
			[]string{`g.yaml:8: experiments[0].grid.seed: the value "1" appears twice`}},
		{"name", "  - name: a\n    grid: {name: [x, y]}\n",
			[]string{`g.yaml:8: experiments[0].grid.name: a grid cannot set name`}},
		{"overlapping axes", "  - name: a\n    grid: {train: {x: {epochs: 1}}, train.epochs: [2]}\n",
			[]string{`g.yaml:8: experiments[0].grid.train.epochs: overlaps axis train (line 8): both set train.epochs`}},
		{"collision with another experiment", "  - name: a.seed-2\n  - name: a\n    grid: {seed: [1, 2]}\n",
			[]string{`g.yaml:8: experiments[1].name: duplicate experiment name "a.seed-2" (a point of the grid of a) (also experiments[0])`}},
		{"collision by a template", "  - name: \"a{seed}\"\n    grid: {seed: [1, 2]}\n  - name: a2\n",
			[]string{`g.yaml:9: experiments[1].name: duplicate experiment name "a2" (also experiments[0])`}},
		{"template without an axis", "  - name: \"a{seed}\"\n    grid: {seed: [1], train.epochs: [1, 2]}\n",
			[]string{`g.yaml:7: experiments[0].name: the name template "a{seed}" has no {train.epochs}`}},
		{"template with an unknown axis", "  - name: \"a{sed}\"\n    grid: {seed: [1]}\n",
			[]string{`g.yaml:7: experiments[0].name: {sed} in the name is not an axis of the grid (its axes: seed)`}},
		{"misspelt grid", "  - name: a\n    gird: {seed: [1]}\n",
			[]string{`g.yaml:8: experiments[0].gird: unknown key (did you mean "grid"?`}},
		{"no name", "  - grid: {seed: [1]}\n",
			[]string{`g.yaml:7: experiments[0]: an experiment with a grid needs a name`}},
		{"grid in base", "  - name: a\n", nil}, // see below
		{"too many points", "  - name: a\n    grid:\n      seed: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n      train.epochs: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n      train.k: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n      train.batch_size: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]\n",
			[]string{`g.yaml:8: experiments[0].grid: the grid has 10 × 10 × 10 × 11 = 11,000 points, more than the 10,000 a grid may have`}},
		{"grid_point beside a grid", "  - name: a\n    grid: {seed: [1]}\n    grid_point: {of: b, axes: [seed], at: ['1']}\n",
			[]string{`g.yaml:9: experiments[0].grid_point: an experiment with a grid cannot set grid_point`}},
		{"bad grid_point", "  - name: a\n    grid_point: {of: b, axes: [seed], at: []}\n",
			[]string{`g.yaml:8: experiments[0].grid_point: expected as many labels (at: 0) as axes (axes: 1)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.want == nil {
				return
			}
			_, err := parseGrid(t, c.exps)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\nlacks\n%s", err, w)
				}
			}
		})
	}
	// 10,000 points is the most a grid may have, and it may have them.
	f, err := parseGrid(t, "  - name: a\n    grid:\n      seed: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n      train.epochs: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n"+
		"      train.k: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n      train.batch_size: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\n")
	if err != nil || len(f.Experiments) != MaxGridPoints {
		t.Errorf("a grid of %d points: %v", MaxGridPoints, err)
	}
	_, err = Parse([]byte("base:\n  grid: {seed: [1]}\n"+okExp), "b.yaml", Options{})
	if err == nil || !strings.Contains(err.Error(), "b.yaml:2: base.grid: a grid belongs to an experiment") {
		t.Errorf("grid in base: %v", err)
	}
}

// TestGridConfigsUnchanged: the shipped configs converted to grids
// resolve to the experiments they listed by hand before (kept in
// testdata/grid-before), with the same names, order, seeds and settings,
// so that their committed runs in docs/runs stay theirs.
func TestGridConfigsUnchanged(t *testing.T) {
	before, err := filepath.Glob("testdata/grid-before/*.yaml")
	if err != nil || len(before) != 5 {
		t.Fatalf("fixtures: %v %v", before, err)
	}
	olds := map[string][]byte{}
	for _, path := range before {
		if olds[path], err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	shipped := shippedConfigs(t) // moves to a temporary directory
	for _, path := range before {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			old := olds[path]
			fo, err := Parse(old, name, Options{})
			if err != nil {
				t.Fatal(err)
			}
			fn, err := Parse([]byte(shipped[name]), name, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(shipped[name], "grid:") {
				t.Fatalf("configs/%s has no grid", name)
			}
			if len(fo.Experiments) != len(fn.Experiments) {
				t.Fatalf("%d experiments, before %d", len(fn.Experiments), len(fo.Experiments))
			}
			for i, eo := range fo.Experiments {
				en := fn.Experiments[i]
				if en.Grid.IsZero() {
					t.Errorf("%s is not a grid point", en.Name)
				}
				en.Grid = GridPoint{}
				a, b := describeSettings(eo), describeSettings(en)
				if a != b {
					t.Errorf("experiment %d differs from before:\n%s", i, lineDiff(a, b))
				}
			}
			if fo.Sweep != fn.Sweep || fo.Seed != fn.Seed || fo.Name != fn.Name {
				t.Errorf("file keys differ: %q %d %q, before %q %d %q", fn.Name, fn.Seed, fn.Sweep, fo.Name, fo.Seed, fo.Sweep)
			}
		})
	}
}

// lineDiff lists the lines of a and b that differ.
func lineDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := 0; i < max(len(la), len(lb)); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			out = append(out, "- "+x, "+ "+y)
		}
	}
	return strings.Join(out, "\n")
}
