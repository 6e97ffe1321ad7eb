package config

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/logz-ml/logz/family/vae"
)

// overrides parses --set arguments, failing the test on a malformed one.
func overrides(t testing.TB, args ...string) []Override {
	t.Helper()
	out := make([]Override, len(args))
	for i, a := range args {
		o, err := ParseOverride(a)
		if err != nil {
			t.Fatalf("ParseOverride(%q): %v", a, err)
		}
		out[i] = o
	}
	return out
}

// parseSet parses text with the --set arguments args.
func parseSet(t testing.TB, text string, args ...string) (*File, error) {
	t.Helper()
	return Parse([]byte(text), "x.yaml", Options{Set: overrides(t, args...)})
}

const overrideDoc = `
name: ov
base:
  data: {train: "planted:train", test: "planted:test", limit_train: 100}
  train: {epochs: 3}
experiments:
  - name: a
    train: {epochs: 7, k: 2}
  - name: b
    model: {hidden: 9}
  - name: c
    data: {train: "planted:valid"}
`

// TestOverrideSemantics: without NAME the value reaches every experiment,
// those that set the key themselves included; with NAME only that one;
// keys an experiment sets and the override does not touch are kept; a
// later override wins.
func TestOverrideSemantics(t *testing.T) {
	f, err := parseSet(t, overrideDoc,
		"train.epochs=1", "data.train=npy:other.npy", "b:model.hidden=4", "c:train.k=3", "seed=5", "train.epochs=2")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range f.Experiments {
		if got := rbmTrain(t, e).Epochs; got != 2 {
			t.Errorf("%s: train.epochs = %d, want 2 (the last --set)", e.Name, got)
		}
		if e.Data.Train != "npy:other.npy" {
			t.Errorf("%s: data.train = %q, want npy:other.npy", e.Name, e.Data.Train)
		}
		if e.Data.LimitTrain != 100 || e.Data.Test != "planted:test" {
			t.Errorf("%s: data = %+v, want base's limit_train and test kept", e.Name, e.Data)
		}
		if e.Seed != 5 {
			t.Errorf("%s: seed = %d, want 5", e.Name, e.Seed)
		}
	}
	want := map[string]struct{ hidden, k int }{"a": {25, 2}, "b": {4, 1}, "c": {25, 3}}
	for _, e := range f.Experiments {
		w := want[e.Name]
		if got := rbmModel(t, e).Hidden; got != w.hidden {
			t.Errorf("%s: model.hidden = %d, want %d", e.Name, got, w.hidden)
		}
		if got := rbmTrain(t, e).K; got != w.k {
			t.Errorf("%s: train.k = %d, want %d", e.Name, got, w.k)
		}
	}
	if strings.Join(f.Overrides, " ") != "train.epochs=1 data.train=npy:other.npy b:model.hidden=4 c:train.k=3 seed=5 train.epochs=2" {
		t.Errorf("Overrides = %q", f.Overrides)
	}
	res, err := f.Resolved()
	if err != nil {
		t.Fatal(err)
	}
	if got := ResolvedOverrides(res); strings.Join(got, " ") != strings.Join(f.Overrides, " ") {
		t.Errorf("the resolved config names the overrides %q, want %q:\n%s", got, f.Overrides, res)
	}
	// The resolved file parses to the same experiments without --set, and
	// carries the overrides on.
	g, err := Parse(res, "r.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(g.Overrides, " ") != strings.Join(f.Overrides, " ") {
		t.Errorf("the resolved config parses with Overrides %q, want %q carried on", g.Overrides, f.Overrides)
	}
	r2, _ := g.Resolved()
	if d, _ := DiffResolved(res, r2, "a", "b", 0); len(d) > 0 {
		t.Errorf("resolved with --set and its re-parse differ: %v", d)
	}
}

// TestOverrideAnchors: a key set only
// through a merge key (<<) is overridden too; an anchored mapping shared
// by two experiments changes only in the one a NAME: override names; a
// file without base: gets one.
func TestOverrideAnchors(t *testing.T) {
	doc := `
base:
  data: &d {train: "planted:train", test: "planted:test"}
experiments:
  - name: a
    data: *d
  - name: b
    data:
      <<: *d
      limit_train: 50
  - name: c
    data: *d
`
	f, err := parseSet(t, doc, "a:data.train=planted:valid")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range f.Experiments {
		got[e.Name] = e.Data.Train
	}
	if got["a"] != "planted:valid" || got["b"] != "planted:train" || got["c"] != "planted:train" {
		t.Errorf("a:data.train reached %v; want only a changed", got)
	}
	f, err = parseSet(t, doc, "data.train=planted:valid")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range f.Experiments {
		if e.Data.Train != "planted:valid" {
			t.Errorf("%s: data.train = %q after data.train=planted:valid (through an alias or merge key)", e.Name, e.Data.Train)
		}
	}
	if e := f.Experiments[1]; e.Data.LimitTrain != 50 {
		t.Errorf("b: limit_train = %d, want 50 kept", e.Data.LimitTrain)
	}
	f, err = parseSet(t, "experiments:\n  - {name: a, data: {train: 'planted:train', test: 'planted:test'}}\n", "train.epochs=4")
	if err != nil {
		t.Fatal(err)
	}
	if got := rbmTrain(t, f.Experiments[0]).Epochs; got != 4 {
		t.Errorf("train.epochs = %d with no base: in the file, want 4", got)
	}
}

// TestOverrideTypes: values are YAML scalars or flow values, checked as the
// file's are: a list for the VAE's hidden layers, a mapping that replaces
// an estimator list entry, a quoted number is a string.
func TestOverrideTypes(t *testing.T) {
	doc := `
base:
  data: {train: "planted:train", test: "planted:test"}
  model: {type: vae, latent: 5, hidden: [7]}
experiments:
  - name: v
    evaluate:
      final:
        - {name: is, samples: 1000}
`
	f, err := parseSet(t, doc, "model.hidden=[3, 4]", "evaluate.final=[{name: elbo, samples: 2}]", "data.threshold=0.25", "reference={source: me, test: -90}")
	if err != nil {
		t.Fatal(err)
	}
	e := f.Experiments[0]
	m := e.Model.Settings.(*vae.Model)
	if len(m.Hidden) != 2 || m.Hidden[0] != 3 || m.Hidden[1] != 4 {
		t.Errorf("model.hidden = %v, want [3 4]", m.Hidden)
	}
	if len(e.Evaluate.Final) != 1 || e.Evaluate.Final[0].Name != "elbo" {
		t.Errorf("evaluate.final = %+v, want the one elbo entry", e.Evaluate.Final)
	}
	if e.Data.Threshold != 0.25 || e.Reference.Test != -90 || e.Reference.Source != "me" {
		t.Errorf("data.threshold %v, reference %+v", e.Data.Threshold, e.Reference)
	}
	// A mapping merges key by key: data={train: ...} keeps base's test.
	f, err = parseSet(t, doc, "data={train: 'npy:t.npy', limit_test: 3}")
	if err != nil {
		t.Fatal(err)
	}
	if d := f.Experiments[0].Data; d.Train != "npy:t.npy" || d.Test != "planted:test" || d.LimitTest != 3 {
		t.Errorf("data={train: ..., limit_test: 3}: data %+v, want train and limit_test set, test kept", d)
	}
}

// TestOverrideErrors: a problem with an overridden value names the --set
// argument and no line of the file; the file's own problems keep theirs.
func TestOverrideErrors(t *testing.T) {
	doc := "base:\n  data: {train: \"planted:train\", test: \"planted:test\"}\nexperiments:\n  - name: a\n    train: {epochs: 2}\n  - name: b\n"
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"data.trian=npy:x.npy"}, []string{`--set data.trian=npy:x.npy: unknown key (did you mean "train"?; known keys: train, test, `}},
		{[]string{"train.epochs=two"}, []string{`--set train.epochs=two: expected a positive integer, got "two"`}},
		{[]string{"train.epochs='3'"}, []string{`--set train.epochs='3': expected `, `(the quotes make it a string; write 3 without quotes)`}},
		{[]string{"train.epochs=0"}, []string{`--set train.epochs=0: `}},
		{[]string{"data.binarize=sometimes"}, []string{`--set data.binarize=sometimes: `, `sometimes`}},
		{[]string{"dta.train=x"}, []string{`--set dta.train=x: dta: unknown key (did you mean "data"?`}},
		{[]string{"data={trian: x}"}, []string{`--set data={trian: x}: data.trian: unknown key`}},
		{[]string{"zz:train.k=2"}, []string{`--set zz:train.k=2: no experiment named "zz" in the file (its experiments: a, b)`}},
		{[]string{"model.hidden=[8]"}, []string{`--set model.hidden=[8]: expected `}},
		{[]string{"train={}"}, []string{`--set train={}: a mapping sets nothing`}},
		{[]string{"data={test: }"}, []string{`--set data={test: }: data.test: an empty value sets nothing`}},
		{[]string{"data={1: x}"}, []string{`--set data={1: x}: keys must be plain words`}},
		{[]string{"data={test: 'planted:test', test: 'planted:valid'}"}, []string{`--set data={test: 'planted:test', test: 'planted:valid'}: data.test: duplicate key`}},
	} {
		_, err := parseSet(t, doc, c.args...)
		if err != nil && strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("%v: one problem reported more than once (base and the experiment that sets the key):\n%v", c.args, err)
		}
		if err == nil {
			t.Errorf("%v: no error", c.args)
			continue
		}
		msg := err.Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%v: error\n  %s\nwant it to contain\n  %s", c.args, msg, w)
			}
		}
		if strings.Contains(msg, "x.yaml:") || strings.Contains(msg, "line -") {
			t.Errorf("%v: error names a line of the file for a value of the command line:\n  %s", c.args, msg)
		}
		var el ErrorList
		if errors.As(err, &el) && (el[0].Set == "" || el[0].Line != 0) {
			t.Errorf("%v: Error %+v, want Set and no line", c.args, *el[0])
		}
	}
	// The file's own problem keeps its line beside the override's.
	_, err := parseSet(t, doc+"    train: {k: x}\n", "train.epochs=two")
	if err == nil || !strings.Contains(err.Error(), "x.yaml:7: experiments[1].train.k") || !strings.Contains(err.Error(), "--set train.epochs=two") {
		t.Errorf("want both the file's and the override's problem, got %v", err)
	}
}

// TestParseOverride: malformed arguments are refused with what to write.
func TestParseOverride(t *testing.T) {
	for arg, want := range map[string]string{
		"train.epochs":          "expected PATH=VALUE",
		"=3":                    "empty PATH",
		"a:=3":                  "empty PATH",
		"train..epochs=3":       "empty key in PATH",
		".epochs=3":             "empty key in PATH",
		"evaluate.final[0].x=1": "replaces a list whole",
		"name=x":                "name cannot be overridden",
		"a b:train.k=1":         "NAME",
		"data.train=[a":         "not a YAML value",
		"train=":                "VALUE is empty (YAML's null), which sets nothing",
		"train=~":               "VALUE is empty",
	} {
		_, err := ParseOverride(arg)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "--set "+arg+": ") {
			t.Errorf("ParseOverride(%q) = %v, want an error containing %q", arg, err, want)
		}
	}
	o, err := ParseOverride("exp-1:data.train=npy:a=b.npy")
	if err != nil || o.Experiment != "exp-1" || strings.Join(o.Path, ".") != "data.train" || o.value.Value != "npy:a=b.npy" {
		t.Errorf("ParseOverride = %+v, %v", o, err)
	}
	o, err = ParseOverride("data.data_dir=''")
	if err != nil || o.value.ShortTag() != "!!str" || o.value.Value != "" {
		t.Errorf("VALUE '': %+v, %v; want empty text", o, err)
	}
}

// TestOverrideShipped: the Table 1 configs take another data set and tiny
// settings from the command line, unchanged.
func TestOverrideShipped(t *testing.T) {
	for _, name := range []string{"repro-chi2-vae-ber200", "repro-chi2-vae-rbm64x8", "repro-chi2-vae-rbm64x64"} {
		b, err := os.ReadFile("../configs/" + name + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		f, err := Parse(b, name+".yaml", Options{Set: overrides(t, "data.train=npy:o-train.npy", "data.test=npy:o-test.npy")})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, e := range f.Experiments {
			if e.Data.Train != "npy:o-train.npy" || e.Data.Test != "npy:o-test.npy" {
				t.Errorf("%s/%s: data %q, %q", name, e.Name, e.Data.Train, e.Data.Test)
			}
		}
	}
}

// TestOverrideIntoValue: a --set whose PATH goes on under a value the file
// sets (a number, a text, a list), or whose VALUE is a mapping where the
// file has a value, is refused as the same mapping written in the file
// would be, naming the --set argument; it is not dropped. The file sets
// the keys in base: and in an experiment, so that neither place lets the
// override through.
func TestOverrideIntoValue(t *testing.T) {
	doc := `
base:
  data: {train: "planted:train", test: "planted:test"}
  train: {epochs: 3}
  model: {hidden: 5}
experiments:
  - name: a
    train: {epochs: 2}
    model: {hidden: 6}
  - name: b
`
	for arg, want := range map[string]string{
		"train.epochs={a: 1}":        `--set train.epochs={a: 1}: expected a positive integer, got a mapping`,
		"train.epochs.x=3":           `--set train.epochs.x=3: train.epochs: expected a positive integer, got a mapping`,
		"model.hidden.foo.bar=7":     `--set model.hidden.foo.bar=7: model.hidden: expected a positive integer, got a mapping`,
		"a:train.epochs.x=3":         `--set a:train.epochs.x=3: train.epochs: expected a positive integer, got a mapping`,
		"b:train.epochs={a: 1}":      `--set b:train.epochs={a: 1}: expected a positive integer, got a mapping`,
		"data.train.x=3":             `--set data.train.x=3: data.train: expected a data spec`,
		"evaluate.final.x=1":         `--set evaluate.final.x=1: evaluate.final: expected a list of estimators, got a mapping`,
		"a:train.foo.bar=7":          `--set a:train.foo.bar=7: train.foo: unknown key`,
		"data={train: {x: 1}}":       `--set data={train: {x: 1}}: data.train: expected a data spec`,
		"model.hidden={foo: {b: 1}}": `--set model.hidden={foo: {b: 1}}: expected a positive integer, got a mapping`,
	} {
		_, err := parseSet(t, doc, arg)
		if err == nil {
			t.Errorf("--set %s: no error (the override was dropped)", arg)
			continue
		}
		// (An empty data.train is reported after it, at the file's line.)
		if first, _, _ := strings.Cut(err.Error(), "\n"); !strings.Contains(first, want) {
			t.Errorf("--set %s: error\n  %s\nwant it to start with\n  %s", arg, err, want)
		}
	}
	// The same mapping written in the file is refused with the same words.
	_, err := Parse([]byte(strings.Replace(doc, "epochs: 2", "epochs: {x: 3}", 1)), "x.yaml", Options{})
	if err == nil || !strings.Contains(err.Error(), "train.epochs: expected a positive integer, got a mapping") {
		t.Errorf("epochs: {x: 3} in the file: %v, want the words the override gets", err)
	}
}
