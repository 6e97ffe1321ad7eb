package config

import (
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/logz-ml/logz/configs"
	"github.com/logz-ml/logz/data"
)

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
	if got := f.Experiments[0]; !reflect.DeepEqual(got, want) {
		t.Errorf("minimal experiment differs from Default():\n got %+v\nwant %+v", got, want)
	}
	// Default returns fresh lists each call.
	d1, d2 := Default(), Default()
	d1.Evaluate.Final[0].MaxUnits = 3
	d1.Evaluate.Splits[0] = "valid"
	if d2.Evaluate.Final[0].MaxUnits != 25 || d2.Evaluate.Splits[0] != "test" {
		t.Error("Default() shares its lists between calls")
	}
}

// TestDefaultDocumented checks Default() against the values its doc comment
// and the README promise.
func TestDefaultDocumented(t *testing.T) {
	d := Default()
	tr := d.Train
	if tr.Method != "cd" || tr.K != 1 || tr.KEnd != 0 || tr.Chains != 0 || tr.Epochs != 10 || tr.BatchSize != 100 ||
		tr.LearningRate != 0.05 || tr.LRSchedule != "constant" || tr.LREnd != 0 || tr.LRDecay != 1 ||
		tr.Momentum != 0.5 || tr.FinalMomentum != 0.9 || tr.MomentumSwitchEpoch != 5 ||
		tr.WeightDecay != 0.0002 || tr.CheckpointEvery != 1 || !tr.Shuffle {
		t.Errorf("train defaults: %+v", tr)
	}
	if !reflect.DeepEqual(d.Model, Model{Type: "rbm", Hidden: 25, InitWeightStd: 0.01, InitVisibleBias: "base-rate"}) {
		t.Errorf("model defaults: %+v", d.Model)
	}
	wantPlanted := Planted{Visible: 20, Hidden: 8, Train: 2000, Valid: 500, Test: 1000, Seed: 0, WeightScale: 0.5}
	if d.Data.Planted != wantPlanted || d.Data.Binarize != "stochastic" || d.Data.Threshold != 0.5 {
		t.Errorf("data defaults: %+v", d.Data)
	}
	ais := Estimator{Name: "ais", Runs: 100, Betas: 14500, Schedule: "2008", Init: "base-rate", MinESSFraction: 0.1, Samples: 500}
	if MustEstimator("ais") != ais {
		t.Errorf("ais defaults: %+v", MustEstimator("ais"))
	}
	if MustEstimator("exact") != (Estimator{Name: "exact", MaxUnits: 25}) {
		t.Errorf("exact defaults: %+v", MustEstimator("exact"))
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
	if e := ev.EveryEpoch[1]; e.Runs != 16 || e.Betas != 1000 || e.Schedule != "linear" || e.Init != "base-rate" {
		t.Errorf("cheap ais defaults: %+v", e)
	}
	if _, err := NewEstimator("nope"); err == nil {
		t.Error("NewEstimator accepted an unknown name")
	}
}

// TestAgreesWithData checks that the planted defaults and limits are the
// data package's, so that a config that does not override them and
// `logz eval --data planted:test` see the same examples.
func TestAgreesWithData(t *testing.T) {
	p, dp := Default().Data.Planted, data.DefaultPlanted
	got := data.PlantedSpec{Visible: p.Visible, Hidden: p.Hidden, Train: p.Train, Valid: p.Valid, Test: p.Test, Seed: p.Seed, WeightScale: p.WeightScale}
	if got != dp {
		t.Errorf("config planted defaults %+v, data.DefaultPlanted %+v", got, dp)
	}
	if maxPlantedEnum != data.MaxPlantedEnum {
		t.Errorf("maxPlantedEnum = %d, data.MaxPlantedEnum = %d", maxPlantedEnum, data.MaxPlantedEnum)
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
	base.Train.K, base.Train.Epochs = 3, 7
	base.Evaluate.Splits = []string{"test"}
	base.Evaluate.Final = []Estimator{MustEstimator("exact"), MustEstimator("pll")}
	base.Data.BinarizeSeed = DeriveSeed(9, binarizeLabel) // the file's, shared by all experiments

	a := base.Clone()
	a.Name, a.Seed = "a", DeriveSeed(9, 0)
	b := base.Clone()
	b.Name, b.Seed = "b", DeriveSeed(9, 1)
	b.Data.Planted.Visible = 12                            // hidden stays 4: mappings merge
	b.Train.K = 5                                          // epochs stays 7
	b.Evaluate.Final = []Estimator{MustEstimator("recon")} // lists replace
	c := base.Clone()
	c.Name, c.Seed = "c", 42
	c.Evaluate.Splits = []string{"train", "test"}

	for i, want := range []Experiment{a, b, c} {
		if got := f.Experiments[i]; !reflect.DeepEqual(got, want) {
			t.Errorf("experiment %d:\n got %+v\nwant %+v", i, got, want)
		}
	}
	f.Experiments[0].Evaluate.Final[0].MaxUnits = 1
	if f.Experiments[2].Evaluate.Final[0].MaxUnits != 25 {
		t.Error("experiments share the base's lists")
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
	entries, err := fs.Glob(configs.FS, "*.yaml")
	if err != nil || len(entries) < 2 {
		t.Fatalf("configs.FS: %v %v", entries, err)
	}
	for _, name := range entries {
		b, err := configs.FS.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		srcs[name] = string(b)
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
	err := fs.WalkDir(configs.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := configs.FS.ReadFile(path)
		if err != nil {
			return err
		}
		f := mustParse(t, string(b), "configs/"+path, Options{ModelTypes: []string{"dbm", "dbn", "rbm"}})
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
		if h := e.Model.Hidden; h < 10 || h > 12 {
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
		// AIS cost ≈ runs × betas × (D + 2H) × 3 ns (GUIDE §9, this host).
		units := float64(e.Data.Planted.Visible + 2*e.Model.Hidden)
		for _, est := range e.Evaluate.EveryEpoch {
			aisSeconds += float64(e.Train.Epochs*est.Runs*est.Betas) * units * 3e-9
		}
		for _, est := range e.Evaluate.Final {
			aisSeconds += float64(est.Runs*est.Betas) * units * 3e-9
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
	paperAIS := Estimator{Name: "ais", Runs: 100, Betas: 14500, Schedule: "2008", Init: "base-rate", MinESSFraction: 0.1, Samples: 500}
	for i, w := range want {
		e := m.Experiments[i]
		if e.Name != w.name || e.Train.K != w.k || e.Model.Hidden != w.hid || e.Train.Method != "cd" {
			t.Errorf("mnist experiment %d = %s k=%d h=%d, want %+v", i, e.Name, e.Train.K, e.Model.Hidden, w)
		}
		if e.Data.Train != "mnist:train" || e.Data.Test != "mnist:test" || e.Data.Binarize != "stochastic" || e.Evaluate.MaxExamples != 0 {
			t.Errorf("mnist %s data: %+v", e.Name, e.Data)
		}
		tr := e.Train
		if tr.LearningRate != 0.05 || tr.Momentum != 0.5 || tr.FinalMomentum != 0.9 || tr.WeightDecay != 0.0002 || tr.BatchSize != 100 {
			t.Errorf("mnist %s train settings: %+v", e.Name, tr)
		}
		var gotExact, gotAIS bool
		for _, est := range e.Evaluate.Final {
			gotExact = gotExact || est.Name == "exact"
			gotAIS = gotAIS || est == paperAIS
		}
		if !gotExact || !gotAIS {
			t.Errorf("mnist %s final estimators %+v lack exact or the paper's AIS", e.Name, e.Evaluate.Final)
		}
	}
}

func TestSeeds(t *testing.T) {
	// splitmix64 is SplitMix64's output function: the first output of the
	// generator seeded with 0 is 0xe220a8397b1dcdaf (the reference
	// implementation by Vigna).
	if got := splitmix64(0); got != 0xe220a8397b1dcdaf {
		t.Errorf("splitmix64(0) = %#x, want 0xe220a8397b1dcdaf", got)
	}
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
	if a.Train.K != 2 || a.Train.Epochs != 3 || b.Train.K != 4 || b.Train.Epochs != 3 {
		t.Errorf("anchors/merge keys: a %d/%d b %d/%d", a.Train.K, a.Train.Epochs, b.Train.K, b.Train.Epochs)
	}
	if !reflect.DeepEqual(a.Model, Default().Model) {
		t.Errorf("empty model: mapping changed the model: %+v", a.Model)
	}
	want := []Estimator{
		MustEstimator("exact"),
		{Name: "ais", Runs: 1000, Betas: 10000, Schedule: "2008", Init: "base-rate", MinESSFraction: 0.1, Samples: 500},
		{Name: "ais", Runs: 20, Betas: 15, Schedule: "2008", Init: "uniform", MinESSFraction: 0.1, Samples: 500},
	}
	if !reflect.DeepEqual(a.Evaluate.Final, want) || !reflect.DeepEqual(b.Evaluate.EveryEpoch, want) {
		t.Errorf("estimators:\n got %+v\n and %+v\nwant %+v", a.Evaluate.Final, b.Evaluate.EveryEpoch, want)
	}
}

func TestModelTypesOption(t *testing.T) {
	src := okExp + "    model: {type: vae}\n"
	if _, err := Parse([]byte(src), "m.yaml", Options{ModelTypes: []string{"rbm", "vae"}}); err != nil {
		t.Errorf("registered type rejected: %v", err)
	}
	if _, err := Parse([]byte(okExp+"    model: {type: rbm}\n"), "m.yaml", Options{ModelTypes: []string{"vae"}}); err == nil {
		t.Error("rbm accepted although not registered")
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

// schedule is the trainers' view of Train (train.Schedule).
type schedule interface {
	KAt(epoch int) int
	LearningRateAt(epoch int) float64
	MomentumAt(epoch int) float64
}

var _ schedule = Train{}

func TestKAt(t *testing.T) {
	for _, E := range []int{2, 3, 7, 10, 24, 25, 26, 50, 100, 1000} {
		tr := Default().Train
		tr.K, tr.KEnd, tr.Epochs = 1, 25, E
		if tr.KAt(1) != 1 || tr.KAt(E) != 25 {
			t.Errorf("E=%d: k(1)=%d k(E)=%d, want 1 and 25", E, tr.KAt(1), tr.KAt(E))
		}
		prev := tr.KAt(1)
		for e := 1; e <= E; e++ {
			k := tr.KAt(e)
			// k(e) = 1 + round(24 (e−1)/(E−1)), halves up: |k − exact| ≤ ½.
			exact := 1 + 24*float64(e-1)/float64(E-1)
			if math.Abs(float64(k)-exact) > 0.5 || (math.Abs(float64(k)-exact) == 0.5 && float64(k) < exact) {
				t.Fatalf("E=%d: k(%d) = %d, exact %.3f", E, e, k, exact)
			}
			if k < prev {
				t.Fatalf("E=%d: k decreases at epoch %d", E, e)
			}
			prev = k
		}
		if tr.KAt(0) != 1 || tr.KAt(E+10) != 25 {
			t.Errorf("E=%d: epochs outside [1,E] not clamped: %d %d", E, tr.KAt(0), tr.KAt(E+10))
		}
	}
	tr := Default().Train
	tr.K, tr.KEnd, tr.Epochs = 3, 0, 10
	for e := range 12 {
		if tr.KAt(e) != 3 {
			t.Fatalf("constant k: k(%d) = %d", e, tr.KAt(e))
		}
	}
	tr.KEnd, tr.Epochs = 9, 1
	if tr.KAt(1) != 3 {
		t.Errorf("one epoch: k = %d, want k = 3", tr.KAt(1))
	}
	tr.K, tr.KEnd, tr.Epochs = 1, 2, 3 // halfway at epoch 2: 1.5 rounds up
	if tr.KAt(2) != 2 {
		t.Errorf("k(2) = %d, want 2 (half rounds up)", tr.KAt(2))
	}
}

func TestLearningRateAt(t *testing.T) {
	tr := Default().Train
	tr.LearningRate, tr.Epochs = 0.1, 10
	for e := 0; e <= 12; e++ {
		if tr.LearningRateAt(e) != 0.1 {
			t.Fatalf("constant: lr(%d) = %v", e, tr.LearningRateAt(e))
		}
	}
	tr.LRSchedule, tr.LREnd = "linear", 0.01
	if tr.LearningRateAt(1) != 0.1 || tr.LearningRateAt(10) != 0.01 || tr.LearningRateAt(11) != 0.01 {
		t.Errorf("linear ends: %v %v %v", tr.LearningRateAt(1), tr.LearningRateAt(10), tr.LearningRateAt(11))
	}
	for e := 1; e <= 10; e++ {
		want := 0.1 + (0.01-0.1)*float64(e-1)/9
		if got := tr.LearningRateAt(e); math.Abs(got-want) > 1e-15 {
			t.Errorf("linear lr(%d) = %v, want %v", e, got, want)
		}
	}
	tr.LRSchedule, tr.LREnd, tr.LRDecay = "exponential", 0, 0.9
	want := 0.1
	for e := 1; e <= 10; e++ {
		if got := tr.LearningRateAt(e); math.Abs(got-want) > 1e-15*want {
			t.Errorf("exponential lr(%d) = %v, want %v", e, got, want)
		}
		want *= 0.9
	}
	tr.Epochs = 1
	tr.LRSchedule = "linear"
	if tr.LearningRateAt(1) != 0.1 {
		t.Errorf("linear over one epoch: %v", tr.LearningRateAt(1))
	}
}

func TestMomentumAndCadence(t *testing.T) {
	tr := Default().Train
	tr.Momentum, tr.FinalMomentum, tr.MomentumSwitchEpoch = 0.5, 0.9, 5
	for e := 1; e <= 8; e++ {
		want := 0.5
		if e >= 5 {
			want = 0.9
		}
		if tr.MomentumAt(e) != want {
			t.Errorf("momentum(%d) = %v, want %v", e, tr.MomentumAt(e), want)
		}
	}
	tr.MomentumSwitchEpoch = 1
	if tr.MomentumAt(1) != 0.9 {
		t.Error("switch at epoch 1 does not apply from the start")
	}
	tr.Epochs, tr.CheckpointEvery = 10, 4
	var ck []int
	for e := 1; e <= 10; e++ {
		if tr.CheckpointDue(e) {
			ck = append(ck, e)
		}
	}
	if !reflect.DeepEqual(ck, []int{4, 8, 10}) {
		t.Errorf("checkpoints after %v", ck)
	}
	tr.CheckpointEvery = 0
	if tr.CheckpointDue(5) || !tr.CheckpointDue(10) {
		t.Error("checkpoint_every 0 must mean only the last epoch")
	}
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
