package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/logz-ml/logz/configs"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/family"
	_ "github.com/logz-ml/logz/family/all" // registers rbm, dbn and dbm
	"github.com/logz-ml/logz/family/dbm"
	"github.com/logz-ml/logz/family/dbn"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/rbm"
)

// rbmTrain is an experiment's train settings as the rbm family's.
func rbmTrain(t testing.TB, e Experiment) *rbm.Train {
	t.Helper()
	tr, ok := e.Train.(*rbm.Train)
	if !ok {
		t.Fatalf("experiment %q: train settings are %T, want *rbm.Train", e.Name, e.Train)
	}
	return tr
}

// rbmModel is an experiment's model settings as the rbm family's.
func rbmModel(t testing.TB, e Experiment) *rbm.Model {
	t.Helper()
	m, ok := e.Model.Settings.(*rbm.Model)
	if !ok {
		t.Fatalf("experiment %q: model settings are %T, want *rbm.Model", e.Name, e.Model.Settings)
	}
	return m
}

// exactOf is the settings of an exact entry.
func exactOf(t testing.TB, e Estimator) *estim.Exact {
	t.Helper()
	s, ok := e.Settings.(*estim.Exact)
	if !ok {
		t.Fatalf("estimator %q: settings are %T, want *estim.Exact", e.Name, e.Settings)
	}
	return s
}

// rbmAIS is the settings of an rbm's ais entry.
func rbmAIS(t testing.TB, e Estimator) *rbm.AISSettings {
	t.Helper()
	s, ok := e.Settings.(*rbm.AISSettings)
	if !ok {
		t.Fatalf("estimator %q: settings are %T, want *rbm.AISSettings", e.Name, e.Settings)
	}
	return s
}

func mustParse(t testing.TB, src, file string, opt Options) *File {
	t.Helper()
	f, err := Parse([]byte(src), file, opt)
	if err != nil {
		t.Fatalf("Parse(%s):\n%v", file, err)
	}
	return f
}

// TestMinimalIsDefault checks that defaults are values: an experiment that
// sets only its name and data is exactly Default() with those filled in.
func TestMinimalIsDefault(t *testing.T) {
	f := mustParse(t, okExp, "min.yaml", Options{})
	if f.Name != "min" || f.Seed != 1 || f.Path != "min.yaml" || len(f.Experiments) != 1 {
		t.Fatalf("file = %+v", f)
	}
	want := Default()
	want.Name = "a"
	want.Data.Train, want.Data.Test = "planted:train", "planted:test"
	want.Seed = DeriveSeed(1, 0)
	want.Data.BinarizeSeed = DeriveSeed(1, binarizeLabel)
	// Check resolves the unset precision to the method's
	// (rbm.DefaultPrecision), as it resolves PCD's chains.
	if tr := rbmTrain(t, want); tr.Precision == "" {
		tr.Precision = rbm.DefaultPrecision(tr.Method)
	} else {
		t.Errorf("Default()'s rbm train precision = %q, want unset (resolved by Check)", tr.Precision)
	}
	if got := f.Experiments[0]; !reflect.DeepEqual(got, want) {
		t.Errorf("minimal experiment differs from Default():\n got %+v\nwant %+v", got, want)
	}
	// Default returns fresh lists each call.
	d1, d2 := Default(), Default()
	exactOf(t, d1.Evaluate.Final[0]).MaxUnits = 3
	d1.Evaluate.Splits[0] = "valid"
	if exactOf(t, d2.Evaluate.Final[0]).MaxUnits != 25 || d2.Evaluate.Splits[0] != "test" {
		t.Error("Default() shares its lists between calls")
	}
	rbmTrain(t, d1).K = 7
	rbmModel(t, d1).Hidden = 7
	if rbmTrain(t, d2).K != 1 || rbmModel(t, d2).Hidden != 25 {
		t.Error("Default() shares its model or train settings between calls")
	}
	// Clone copies the settings too.
	c := d2.Clone()
	exactOf(t, c.Evaluate.Final[0]).MaxUnits = 4
	rbmTrain(t, c).K = 4
	rbmModel(t, c).Hidden = 4
	if exactOf(t, d2.Evaluate.Final[0]).MaxUnits != 25 || rbmTrain(t, d2).K != 1 || rbmModel(t, d2).Hidden != 25 {
		t.Error("Clone shares settings with the original")
	}
}

// TestDefaultDocumented checks Default() against the values its doc comment
// and the README promise.
func TestDefaultDocumented(t *testing.T) {
	d := Default()
	tr := rbmTrain(t, d)
	if tr.Method != "cd" || tr.K != 1 || tr.KEnd != 0 || tr.Chains != 0 || tr.Epochs != 10 || tr.BatchSize != 100 ||
		tr.LearningRate != 0.05 || tr.LRSchedule != "constant" || tr.LREnd != 0 || tr.LRDecay != 1 ||
		tr.Momentum != 0.5 || tr.FinalMomentum != 0.9 || tr.MomentumSwitchEpoch != 5 ||
		tr.WeightDecay != 0.0002 || tr.CheckpointEvery != 1 || !tr.Shuffle {
		t.Errorf("train defaults: %+v", tr)
	}
	if !reflect.DeepEqual(d.Model, Model{Type: "rbm", Settings: &rbm.Model{Hidden: 25, Init: rbm.Init{InitWeightStd: 0.01, InitVisibleBias: "base-rate"}}}) {
		t.Errorf("model defaults: %+v", d.Model)
	}
	wantPlanted := Planted{Model: "rbm", Visible: 20, Hidden: 8, Rows: 4, Cols: 5, Train: 2000, Valid: 500, Test: 1000, Seed: 0, WeightScale: 0.5}
	if d.Data.Planted != wantPlanted || d.Data.Binarize != "stochastic" || d.Data.Threshold != 0.5 {
		t.Errorf("data defaults: %+v", d.Data)
	}
	paperAIS := estim.AIS{Runs: 100, Anneal: estim.Anneal{Betas: 14500, Schedule: "2008", Init: "base-rate"}, MinESSFraction: 0.1}
	ais := Estimator{Name: "ais", Settings: &rbm.AISSettings{AIS: paperAIS}}
	if got := rbm.Family.Entry("ais"); !reflect.DeepEqual(got, ais) {
		t.Errorf("ais defaults: %+v", got.Settings)
	}
	// samples (500) is a setting of the dbn's and dbm's ais; the rbm's
	// accepts it only at that old default.
	if got := rbm.AIS.New().(*rbm.AISSettings).Legacy(); !reflect.DeepEqual(got, map[string]any{"samples": 500}) {
		t.Errorf("rbm ais legacy keys: %v", got)
	}
	if got := dbn.AIS.New(); !reflect.DeepEqual(got, &dbn.AISSettings{AIS: paperAIS, Samples: 500}) {
		t.Errorf("dbn ais defaults: %+v", got)
	}
	if got := dbm.AIS.New(); !reflect.DeepEqual(got, &dbm.AISSettings{AIS: paperAIS, Samples: 500}) {
		t.Errorf("dbm ais defaults: %+v", got)
	}
	if got := rbm.Family.Entry("exact"); !reflect.DeepEqual(got, Estimator{Name: "exact", Settings: &estim.Exact{MaxUnits: 25}}) {
		t.Errorf("exact defaults: %+v", got.Settings)
	}
	ev := d.Evaluate
	names := func(l []Estimator) (s []string) {
		for _, e := range l {
			s = append(s, e.Name)
		}
		return
	}
	if !reflect.DeepEqual(ev.Splits, []string{"test", "train"}) || ev.Every != 1 || ev.MaxExamples != 0 ||
		!reflect.DeepEqual(names(ev.EveryEpoch), []string{"exact", "ais"}) ||
		!reflect.DeepEqual(names(ev.Final), []string{"exact", "ais", "pll", "recon"}) {
		t.Errorf("evaluate defaults: %+v", ev)
	}
	if e := rbmAIS(t, ev.EveryEpoch[1]); e.Runs != 16 || e.Betas != 1000 || e.Schedule != "linear" || e.Init != "base-rate" {
		t.Errorf("cheap ais defaults: %+v", e)
	}
	if e, ok := rbm.Family.Estimator("nope"); ok {
		t.Errorf("the rbm family has an estimator named nope: %+v", e)
	}
}

// TestAgreesWithData checks that the planted defaults are the data
// package's (the limits are data's own constants), so that a config that does not override them and
// `logz eval --data planted:test` see the same examples.
func TestAgreesWithData(t *testing.T) {
	p, dp := Default().Data.Planted, data.DefaultPlanted
	got := data.PlantedSpec{Model: p.Model, Visible: p.Visible, Hidden: p.Hidden, Rows: p.Rows, Cols: p.Cols, Train: p.Train, Valid: p.Valid, Test: p.Test, Seed: p.Seed, WeightScale: p.WeightScale}
	if got != dp {
		t.Errorf("config planted defaults %+v, data.DefaultPlanted %+v", got, dp)
	}
	for _, s := range []string{"mnist:train", "fashion-mnist:test", "planted:valid", "npy:x.npy", "idx:a:b", "mnist:valid", "npy:", "foo:x", "nocolon"} {
		mine, err1 := ParseDataSpec(s)
		theirs, err2 := data.ParseSpec(s)
		if (err1 == nil) != (err2 == nil) || mine.String() != theirs.String() {
			t.Errorf("spec %q: config %v %v, data %v %v", s, mine, err1, theirs, err2)
		}
	}
}

// TestMerge checks base/experiment merging: mappings merge recursively,
// lists and scalars replace, and experiments do not share lists.
func TestMerge(t *testing.T) {
	src := `seed: 9
base:
  data:
    train: planted:train
    test: planted:test
    planted: {visible: 10, hidden: 4}
  train: {k: 3, epochs: 7}
  evaluate:
    splits: [test]
    final: [exact, pll]
experiments:
  - name: a
  - name: b
    data: {planted: {visible: 12}}
    train: {k: 5}
    evaluate: {final: [recon]}
  - name: c
    seed: 42
    evaluate: {splits: [train, test]}
`
	f := mustParse(t, src, "merge.yaml", Options{})
	base := Default()
	base.Data.Train, base.Data.Test = "planted:train", "planted:test"
	base.Data.Planted.Visible, base.Data.Planted.Hidden = 10, 4
	bt := rbmTrain(t, base)
	bt.K, bt.Epochs = 3, 7
	bt.Precision = "float32" // unset in the file: Check resolves it for cd
	base.Evaluate.Splits = []string{"test"}
	base.Evaluate.Final = []Estimator{rbm.Family.Entry("exact"), rbm.Family.Entry("pll")}
	base.Data.BinarizeSeed = DeriveSeed(9, binarizeLabel) // the file's, shared by all experiments

	a := base.Clone()
	a.Name, a.Seed = "a", DeriveSeed(9, 0)
	b := base.Clone()
	b.Name, b.Seed = "b", DeriveSeed(9, 1)
	b.Data.Planted.Visible = 12                               // hidden stays 4: mappings merge
	rbmTrain(t, b).K = 5                                      // epochs stays 7
	b.Evaluate.Final = []Estimator{rbm.Family.Entry("recon")} // lists replace
	c := base.Clone()
	c.Name, c.Seed = "c", 42
	c.Evaluate.Splits = []string{"train", "test"}

	for i, want := range []Experiment{a, b, c} {
		if got := f.Experiments[i]; !reflect.DeepEqual(got, want) {
			t.Errorf("experiment %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
	exactOf(t, f.Experiments[0].Evaluate.Final[0]).MaxUnits = 1
	if exactOf(t, f.Experiments[2].Evaluate.Final[0]).MaxUnits != 25 {
		t.Error("experiments share the base's lists")
	}
	rbmTrain(t, f.Experiments[0]).Epochs = 1
	if rbmTrain(t, f.Experiments[2]).Epochs != 7 {
		t.Error("experiments share the base's train settings")
	}
	if f.Experiments[0].Seed == f.Experiments[1].Seed {
		t.Error("derived seeds of two experiments are equal")
	}
}

// TestRoundTrip checks that the resolved config parses back to the same
// File, and that resolving is idempotent.
func TestRoundTrip(t *testing.T) {
	srcs := map[string]string{
		"merge.yaml": `name: rt
description: "a: tricky, description # with \"quotes\""
seed: 18446744073709551615
base:
  data: {train: 'npy:/tmp/x y.npy', test: "idx:t10k: odd.gz", validation: 7, binarize: threshold, threshold: 0.3}
experiments:
  - name: a.1
    train: {method: pcd, k: 2, k_end: 25, lr_schedule: linear, lr_end: 1e-05, learning_rate: 0.30000000000000004, weight_decay: 0}
    evaluate:
      splits: [train, valid]
      every: 0
      every_epoch: []
      final: [{name: ais, schedule: 2008, betas: 3, runs: 2, min_ess_fraction: 0, seed: 5}, {name: exact, max_units: 40}]
  - name: b_2
    seed: 3
    model: {hidden: 40, init_weight_std: 0, init_visible_bias: zero}
    train: {lr_schedule: exponential, lr_decay: 0.97, shuffle: false, chains: 0}
`,
		"minimal.yaml": okExp,
	}
	for name, src := range shippedConfigs(t) {
		srcs[name] = src
	}
	for name, src := range srcs {
		t.Run(name, func(t *testing.T) {
			f1 := mustParse(t, src, name, Options{})
			out1, err := f1.Resolved()
			if err != nil {
				t.Fatal(err)
			}
			f2 := mustParse(t, string(out1), "config.resolved.yaml", Options{})
			f2.Path = f1.Path
			if !reflect.DeepEqual(f1, f2) {
				t.Errorf("resolved config parses to a different File:\n%s\n first %+v\nsecond %+v", out1, f1, f2)
			}
			out2, err := f2.Resolved()
			if err != nil {
				t.Fatal(err)
			}
			if string(out1) != string(out2) {
				t.Errorf("resolving is not idempotent:\n%s\n---\n%s", out1, out2)
			}
			if strings.Contains(string(out1), "base:") {
				t.Error("resolved config has a base section")
			}
		})
	}
}

// TestShippedConfigs checks every file in configs/ and the content the
// quickstart and MNIST configs promise.
func TestShippedConfigs(t *testing.T) {
	shippedConfigs(t) // the bottom_from files, in a temporary directory
	err := fs.WalkDir(configs.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := configs.FS.ReadFile(path)
		if err != nil {
			return err
		}
		f := mustParse(t, string(b), "configs/"+path, Options{})
		if stem := strings.TrimSuffix(path, ".yaml"); f.Name != stem {
			t.Errorf("%s: name %q, want the file stem %q", path, f.Name, stem)
		}
		if !strings.HasPrefix(string(b), "#") {
			t.Errorf("%s: no comment header", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	name, data := configs.Default()
	if name != "quickstart.yaml" {
		t.Errorf("configs.Default() = %q", name)
	}
	q := mustParse(t, string(data), name, Options{})
	var aisSeconds float64
	for _, e := range q.Experiments {
		if !strings.HasPrefix(e.Data.Train, "planted:") || !strings.HasPrefix(e.Data.Test, "planted:") {
			t.Errorf("quickstart %s: data %s / %s, want planted", e.Name, e.Data.Train, e.Data.Test)
		}
		if h := rbmModel(t, e).Hidden; h < 10 || h > 12 {
			t.Errorf("quickstart %s: %d hidden units, want 10–12", e.Name, h)
		}
		if !reflect.DeepEqual(e.Evaluate.Splits, []string{"test", "train"}) || e.Evaluate.Every != 1 {
			t.Errorf("quickstart %s: splits %v every %d", e.Name, e.Evaluate.Splits, e.Evaluate.Every)
		}
		has := func(l []Estimator, names ...string) bool {
			for _, n := range names {
				found := false
				for _, est := range l {
					found = found || est.Name == n
				}
				if !found {
					return false
				}
			}
			return true
		}
		if !has(e.Evaluate.EveryEpoch, "exact", "ais") || !has(e.Evaluate.Final, "exact", "ais", "pll", "recon") {
			t.Errorf("quickstart %s: estimators %+v / %+v", e.Name, e.Evaluate.EveryEpoch, e.Evaluate.Final)
		}
		// AIS cost ≈ runs × betas × (D + 2H) × 3 ns (measured on the development machine; docs/performance.md).
		units := float64(e.Data.Planted.Visible + 2*rbmModel(t, e).Hidden)
		aisCost := func(est Estimator) float64 {
			if a, ok := est.Settings.(*rbm.AISSettings); ok {
				return float64(a.Runs * a.Betas)
			}
			return 0
		}
		for _, est := range e.Evaluate.EveryEpoch {
			aisSeconds += float64(rbmTrain(t, e).Epochs) * aisCost(est) * units * 3e-9
		}
		for _, est := range e.Evaluate.Final {
			aisSeconds += aisCost(est) * units * 3e-9
		}
	}
	if aisSeconds > 5 {
		t.Errorf("quickstart AIS budget ≈ %.1f s, want well under a minute", aisSeconds)
	}

	b, err := configs.FS.ReadFile("mnist-rbm-small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := mustParse(t, string(b), "mnist-rbm-small.yaml", Options{})
	type row struct {
		name   string
		k, hid int
	}
	want := []row{{"cd1-h25", 1, 25}, {"cd3-h25", 3, 25}, {"cd1-h20", 1, 20}}
	if len(m.Experiments) != len(want) {
		t.Fatalf("mnist config has %d experiments", len(m.Experiments))
	}
	paperAIS := Estimator{Name: "ais", Settings: &rbm.AISSettings{AIS: estim.AIS{Runs: 100, Anneal: estim.Anneal{Betas: 14500, Schedule: "2008", Init: "base-rate"}, MinESSFraction: 0.1}}}
	for i, w := range want {
		e := m.Experiments[i]
		tr, mod := rbmTrain(t, e), rbmModel(t, e)
		if e.Name != w.name || tr.K != w.k || mod.Hidden != w.hid || tr.Method != "cd" {
			t.Errorf("mnist experiment %d = %s k=%d h=%d, want %+v", i, e.Name, tr.K, mod.Hidden, w)
		}
		if e.Data.Train != "mnist:train" || e.Data.Test != "mnist:test" || e.Data.Binarize != "stochastic" || e.Evaluate.MaxExamples != 0 {
			t.Errorf("mnist %s data: %+v", e.Name, e.Data)
		}
		if tr.LearningRate != 0.05 || tr.Momentum != 0.5 || tr.FinalMomentum != 0.9 || tr.WeightDecay != 0.0002 || tr.BatchSize != 100 {
			t.Errorf("mnist %s train settings: %+v", e.Name, tr)
		}
		var gotExact, gotAIS bool
		for _, est := range e.Evaluate.Final {
			gotExact = gotExact || est.Name == "exact"
			gotAIS = gotAIS || reflect.DeepEqual(est, paperAIS)
		}
		if !gotExact || !gotAIS {
			t.Errorf("mnist %s final estimators %+v lack exact or the paper's AIS", e.Name, e.Evaluate.Final)
		}
	}
}

func TestSeeds(t *testing.T) {
	// splitmix64's known answer is tested in internal/seeds.
	seen := map[uint64]bool{}
	for parent := uint64(0); parent < 4; parent++ {
		for i := uint64(0); i < 1000; i++ {
			s := DeriveSeed(parent, i)
			if s == 0 || seen[s] {
				t.Fatalf("DeriveSeed(%d, %d) = %d: zero or repeated", parent, i, s)
			}
			seen[s] = true
		}
	}
	if DeriveSeed(1, 2, 3) == DeriveSeed(1, 3, 2) || DeriveSeed(1, 2) == DeriveSeed(1, 2, 0) {
		t.Error("DeriveSeed ignores the order or number of labels")
	}
	if DeriveSeed(5, 1) != DeriveSeed(5, 1) {
		t.Error("DeriveSeed is not deterministic")
	}

	src := "seed: 3\n" + okExp + "  - name: b\n    seed: 77\n    data: {train: planted:train, test: planted:test}\n"
	f := mustParse(t, src, "s.yaml", Options{})
	if f.Seed != 3 || f.Experiments[0].Seed != DeriveSeed(3, 0) || f.Experiments[1].Seed != 77 {
		t.Errorf("seeds: file %d, experiments %d %d", f.Seed, f.Experiments[0].Seed, f.Experiments[1].Seed)
	}
	over := uint64(11)
	g := mustParse(t, src, "s.yaml", Options{Seed: &over})
	if g.Seed != 11 || g.Experiments[0].Seed != DeriveSeed(11, 0) || g.Experiments[1].Seed != 77 {
		t.Errorf("--seed override: file %d, experiments %d %d", g.Seed, g.Experiments[0].Seed, g.Experiments[1].Seed)
	}
	// A file seed written after the experiments still governs them.
	h := mustParse(t, okExp+"seed: 3\n", "s.yaml", Options{})
	if h.Experiments[0].Seed != DeriveSeed(3, 0) {
		t.Error("seed after experiments was not used for derivation")
	}
}

// TestYAMLFeatures checks the YAML forms the decoder accepts: anchors,
// aliases, merge keys, bare estimator names, numbers written as floats or
// with underscores, the schedule written as the integer 2008, null mappings,
// and tabs that are content rather than indentation.
func TestYAMLFeatures(t *testing.T) {
	src := "description: |\n  first line\n  \tindented by a tab inside the text\n" + `base:
  data: {train: planted:train, test: planted:test}
  evaluate:
    final: &fin
      - exact
      - {name: ais, runs: 1_000, betas: 1e4, schedule: 2008}
      - {name: ais, runs: 20, betas: 1.5e1, schedule: "2008", init: uniform}
experiments:
  - name: a
    train: &tr {k: 2, epochs: 3}
    model:
  - name: b
    train: {<<: *tr, k: 4}
    evaluate:
      every_epoch: *fin
`
	f := mustParse(t, src, "features.yaml", Options{})
	if !strings.Contains(f.Description, "\tindented") {
		t.Errorf("description = %q", f.Description)
	}
	a, b := f.Experiments[0], f.Experiments[1]
	at, bt := rbmTrain(t, a), rbmTrain(t, b)
	if at.K != 2 || at.Epochs != 3 || bt.K != 4 || bt.Epochs != 3 {
		t.Errorf("anchors/merge keys: a %d/%d b %d/%d", at.K, at.Epochs, bt.K, bt.Epochs)
	}
	if !reflect.DeepEqual(a.Model, Default().Model) {
		t.Errorf("empty model: mapping changed the model: %+v", a.Model)
	}
	want := []Estimator{
		rbm.Family.Entry("exact"),
		{Name: "ais", Settings: &rbm.AISSettings{AIS: estim.AIS{Runs: 1000, Anneal: estim.Anneal{Betas: 10000, Schedule: "2008", Init: "base-rate"}, MinESSFraction: 0.1}}},
		{Name: "ais", Settings: &rbm.AISSettings{AIS: estim.AIS{Runs: 20, Anneal: estim.Anneal{Betas: 15, Schedule: "2008", Init: "uniform"}, MinESSFraction: 0.1}}},
	}
	if !reflect.DeepEqual(a.Evaluate.Final, want) || !reflect.DeepEqual(b.Evaluate.EveryEpoch, want) {
		t.Errorf("estimators:\n got %+v\n and %+v\nwant %+v", a.Evaluate.Final, b.Evaluate.EveryEpoch, want)
	}
}

// TestModelTypes checks that model.type is looked up in the family
// registry: an unknown type is rejected with the registered families listed,
// and the type of each registered family is accepted, giving the experiment
// that family's settings and default estimator lists.
func TestModelTypes(t *testing.T) {
	if got := family.Names(); !reflect.DeepEqual(got, []string{"arsbn", "dbm", "dbn", "ising", "mob", "rbm", "sbn", "vae"}) {
		t.Errorf("registered families %v, want arsbn, dbm, dbn, ising, mob, rbm, sbn, vae", got)
	}
	_, err := Parse([]byte(okExp+"    model: {type: vea}\n"), "m.yaml", Options{})
	want := `m.yaml:4: experiments[0].model.type: unknown model type "vea" (did you mean "vae"?; known: arsbn, dbm, dbn, ising, mob, rbm, sbn, vae)`
	if err == nil || err.Error() != want {
		t.Errorf("unknown model type: error %v, want %s", err, want)
	}
	// What each family needs besides its type to make a valid experiment
	// (a dbm's train.method defaults to pcd, the one it accepts).
	model := map[string]string{
		"rbm":   "    model: {type: rbm}\n",
		"dbn":   "    model: {type: dbn, layers: [4, 3]}\n",
		"dbm":   "    model: {type: dbm, layers: [4, 3]}\n",
		"sbn":   "    model: {type: sbn, layers: [4, 3]}\n",
		"arsbn": "    model: {type: arsbn, layers: [4]}\n",
		"ising": "    model: {type: ising}\n",
		"mob":   "    model: {type: mob, components: 3}\n",
		"vae":   "    model: {type: vae, latent: 4, hidden: [8], prior: rbm, prior_hidden: 3}\n",
	}
	for _, fam := range family.All() {
		src, ok := model[fam.Name]
		if !ok {
			t.Errorf("registered family %s has no case here", fam.Name)
			continue
		}
		f, err := Parse([]byte(okExp+src), "m.yaml", Options{})
		if err != nil {
			t.Errorf("model type %s rejected: %v", fam.Name, err)
			continue
		}
		e := f.Experiments[0]
		if e.Model.Type != fam.Name || reflect.TypeOf(e.Model.Settings) != reflect.TypeOf(fam.Model()) || reflect.TypeOf(e.Train) != reflect.TypeOf(fam.Train()) {
			t.Errorf("model type %s: got type %q with %T and %T", fam.Name, e.Model.Type, e.Model.Settings, e.Train)
		}
		if !reflect.DeepEqual(e.Evaluate.EveryEpoch, fam.EveryEpoch()) || !reflect.DeepEqual(e.Evaluate.Final, fam.Final()) {
			t.Errorf("model type %s: estimators %+v / %+v are not the family's defaults", fam.Name, e.Evaluate.EveryEpoch, e.Evaluate.Final)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "my exp.yaml")
	if err := os.WriteFile(p, []byte(okExp), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Path != p || f.Name != "my_exp" {
		t.Errorf("Path %q Name %q", f.Path, f.Name)
	}
	_, err = Load(filepath.Join(dir, "missing.yaml"), Options{})
	if err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing file: %v", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("experiments: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad, Options{})
	var e *Error
	if !errors.As(err, &e) || e.File != bad || e.Line != 1 || e.Path != "experiments" {
		t.Errorf("Load error = %#v (%v)", e, err)
	}
}

func TestParseDataSpec(t *testing.T) {
	good := map[string]DataSpec{
		"mnist:train":          {Scheme: "mnist", Part: "train"},
		"fashion-mnist:test":   {Scheme: "fashion-mnist", Part: "test"},
		"planted:valid":        {Scheme: "planted", Part: "valid"},
		"npy:C:/data/x.npy":    {Scheme: "npy", Path: "C:/data/x.npy"},
		"idx:t10k-images.gz":   {Scheme: "idx", Path: "t10k-images.gz"},
		"npy:dir with space/x": {Scheme: "npy", Path: "dir with space/x"},
	}
	for s, want := range good {
		got, err := ParseDataSpec(s)
		if err != nil || got != want || got.String() != s {
			t.Errorf("ParseDataSpec(%q) = %+v, %v (String %q)", s, got, err, got.String())
		}
	}
	for _, s := range []string{"", "mnist", "mnist:", "mnist:valid", "planted:all", "npy:", "idx: ", "MNIST:train", "csv:x"} {
		if d, err := ParseDataSpec(s); err == nil {
			t.Errorf("ParseDataSpec(%q) = %+v, want an error", s, d)
		} else if !strings.Contains(err.Error(), s) {
			t.Errorf("ParseDataSpec(%q) error does not quote the spec: %v", s, err)
		}
	}
}

// TestEvaluateDue checks when the EveryEpoch estimators run. (The train
// schedules, KAt, LearningRateAt, MomentumAt and CheckpointDue, are the rbm
// family's and tested in family/rbm.)
func TestEvaluateDue(t *testing.T) {
	ev := Evaluate{Every: 3}
	if ev.Due(1) || !ev.Due(3) || !ev.Due(6) || (Evaluate{}).Due(1) {
		t.Error("Evaluate.Due")
	}
}

func BenchmarkParseQuickstart(b *testing.B) {
	_, data := configs.Default()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(data, "quickstart.yaml", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
