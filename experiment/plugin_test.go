package experiment_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/internal/imagegrid"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/internal/npyx"
	"github.com/logz-ml/logz/models"
)

// This file is a whole model family — independent Bernoulli units, fitted
// by their smoothed means — registered from here alone. The runner, the
// config reader and the registry take it without a change anywhere else:
// the family registry's promise.

type indep struct{ Logits []float64 }

func (m *indep) TypeName() string { return "indep-test" }
func (m *indep) NumVisible() int  { return len(m.Logits) }
func (m *indep) Validate() error  { return nil }

type indepModel struct {
	Smoothing float64 `yaml:"smoothing" want:"a positive number"`
}

func (s *indepModel) Check(p family.Problems) {
	p.Check("smoothing", s.Smoothing > 0, "a positive number", s.Smoothing)
}

type indepTrain struct {
	Epochs int `yaml:"epochs" want:"a positive integer"`
}

func (t *indepTrain) Check(p family.Problems) {
	p.Check("epochs", t.Epochs >= 1, "a positive integer", t.Epochs)
}

type indepTrainer struct {
	m      *indep
	s      float64
	epochs int
	done   int
}

func (t *indepTrainer) TrainEpoch(x data.Examples) (models.EpochSummary, error) {
	D := len(t.m.Logits)
	for i := range D {
		on := 0.0
		for n := range x.Len() {
			on += float64(x.Row(n)[i])
		}
		t.m.Logits[i] = math.Log((on + t.s) / (float64(x.Len()) - on + t.s))
	}
	t.done++
	return models.EpochSummary{Epoch: t.done}, nil
}
func (t *indepTrainer) Checkpoint(e string) (*models.Checkpoint, error) {
	return &models.Checkpoint{Model: t.m, Meta: models.Meta{Experiment: e, Epoch: t.done}}, nil
}
func (t *indepTrainer) Resume(c *models.Checkpoint) error { return fmt.Errorf("no resume") }
func (t *indepTrainer) Completed() int                    { return t.done }
func (t *indepTrainer) Total() int                        { return t.epochs }
func (t *indepTrainer) Current() models.Model             { return t.m }
func (t *indepTrainer) SetOnBatch(func(int))              {}

type noSettings = family.NoSettings

// indepBuilder builds and trains the test families' models.
type indepBuilder struct{}

func (indepBuilder) NewModel(_ family.Settings, visible int) (models.Model, error) {
	return &indep{Logits: make([]float64, visible)}, nil
}

// trainersBuilt counts the test families' NewTrainer calls.
var trainersBuilt atomic.Int64

func (indepBuilder) NewTrainer(a family.TrainerArgs) (family.Trainer, error) {
	trainersBuilt.Add(1)
	return &indepTrainer{m: a.Model.(*indep), s: a.ModelSettings.(*indepModel).Smoothing, epochs: a.Train.(*indepTrain).Epochs}, nil
}

// indepPlugin also samples and shows filters.
type indepPlugin struct{ indepBuilder }

// Sample: unit i is 1 in sample k when k+i+seed is odd (a fixed pattern
// that shows the seed and the shape arrived).
func (indepPlugin) Sample(m models.Model, o sampling.SampleOptions) (*sampling.Drawn, error) {
	D := m.NumVisible()
	x := make([]float64, o.N*D)
	for k := range o.N {
		for i := range D {
			x[k*D+i] = float64((uint64(k+i) + o.Seed) % 2)
		}
	}
	return &sampling.Drawn{N: o.N, D: D, X: x, Method: sampling.MethodAncestral, Values: sampling.ValuesStates, What: "a fixed pattern"}, nil
}

func (indepPlugin) Filters(m models.Model) (*sampling.Filters, bool) {
	l := m.(*indep).Logits
	return &sampling.Filters{W: l, Visible: len(l), Hidden: 1, What: "the logits"}, true
}

// runner is an estimator's Impl made of a function.
type runner func(env *evalenv.Env, m models.Model, s family.Settings, j evalenv.Job) ([]report.Row, error)

func (r runner) Run(env *evalenv.Env, m models.Model, s family.Settings, j evalenv.Job) ([]report.Row, error) {
	return r(env, m, s, j)
}

func (runner) Takes(family.Settings) bool { return true }

func init() {
	f := &family.Family{
		Name: "indep-test",
		Doc:  "independent Bernoulli units (a test family)",
		Codec: models.Type{
			Name: "indep-test",
			Doc:  "logits (D)",
			Arrays: func(m models.Model) []models.Array {
				l := m.(*indep).Logits
				return []models.Array{{Name: "logits", Shape: []int{len(l)}, Data: l}}
			},
			FromArrays: func(a map[string]*npyx.Array) (models.Model, error) {
				return &indep{Logits: a["logits"].Data}, nil
			},
		},
		Model:    func() family.Settings { return &indepModel{Smoothing: 1} },
		Train:    func() family.Settings { return &indepTrain{Epochs: 1} },
		Trainers: []family.TrainerInfo{{Method: "", Doc: "smoothed means"}},
		Plugin:   indepPlugin{},
		Estimators: []*family.Estimator{estim.Define(estim.Def[models.Model, noSettings]{
			Name: "exact", Doc: "Σ_i v_i a_i − softplus(a_i)",
			Run: func(env *evalenv.Env, m models.Model, _ *noSettings, j evalenv.Job) ([]report.Row, error) {
				var rows []report.Row
				for _, s := range env.Splits {
					sum := 0.0
					for n := range s.Data.Len() {
						for i, b := range s.Data.Row(n) {
							a := m.(*indep).Logits[i]
							sum += float64(b)*a - math.Log1p(math.Exp(a))
						}
					}
					row := j.Base
					row.Split, row.MeanLoglik, row.NExamples = s.Name, report.F(sum/float64(s.Data.Len())), s.Data.Len()
					rows = append(rows, row)
				}
				return rows, nil
			},
		})},
		EveryEpoch: func() []family.Configured { return nil },
		Final:      func() []family.Configured { return nil },
	}
	f.Final = func() []family.Configured { return []family.Configured{f.Entry("exact")} }
	// The final exact entry hands the runner a picture: one row of two
	// 1×20 tiles, 0 and 1.
	exact := f.Estimators[0]
	run := evalenv.RunnerOf(exact).Run
	exact.Impl = runner(func(env *evalenv.Env, m models.Model, s family.Settings, j evalenv.Job) ([]report.Row, error) {
		if env.Artifact != nil {
			x := make([]float64, 40)
			for i := 20; i < 40; i++ {
				x[i] = 1
			}
			if err := env.Artifact(sampling.Artifact{Name: experiment.CompletionName, Rows: 1, Cols: 2, TileRows: 4, TileCols: 5, X: x, Caption: "zeros, ones"}); err != nil {
				return nil, err
			}
		}
		return run(env, m, s, j)
	})
	kit.Register(f)
}

func TestFamilyPlugIn(t *testing.T) {
	src := `experiments:
  - name: toy
    data: {train: planted:train, test: planted:test, planted: {train: 200, test: 100}}
    model: {type: indep-test, smoothing: 0.5}
    train: {epochs: 2}
    evaluate: {splits: [test]}
`
	f, err := config.Parse([]byte(src), "toy.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	rows, err := experiment.Run(f, experiment.Options{Out: out})
	if err != nil {
		t.Fatal(err)
	}
	var got *report.Row
	for i := range rows {
		if rows[i].Stage == report.StageFinal && rows[i].Estimator == "exact" {
			got = &rows[i]
		}
	}
	if got == nil || got.MeanLoglik == nil || !(*got.MeanLoglik < 0) || got.Model != "indep-test" || got.Epoch != 2 {
		t.Fatalf("final rows: %+v", rows)
	}
	c, err := models.Load(filepath.Join(out, "toy", "model.npz"), family.Codecs())
	if err != nil || c.Model.TypeName() != "indep-test" || c.Model.NumVisible() != 20 {
		t.Fatalf("checkpoint: %v %+v", err, c)
	}
	// The family's samples, written after the final evaluation (NumSamples
	// × D, seeded from the experiment seed).
	smp, err := npyx.ReadFile(filepath.Join(out, "toy", "samples.npy"))
	if err != nil || len(smp.Shape) != 2 || smp.Shape[0] != experiment.NumSamples || smp.Shape[1] != 20 {
		t.Fatalf("samples.npy: %v %+v", err, smp)
	}
	seed := config.DeriveSeed(f.Experiments[0].Seed, 3)
	if smp.Data[0] != float64(seed%2) || smp.Data[21] != float64((2+seed)%2) {
		t.Errorf("samples.npy does not hold the family's samples for the experiment's seed")
	}
	// samples.json captions them; samples.png draws them as 4×5 tiles,
	// filters.png the logits; the estimator's picture is there; DrawImages
	// redraws the same bytes from the files.
	var info experiment.SamplesInfo
	if b, err := os.ReadFile(filepath.Join(out, "toy", experiment.SamplesInfoFile)); err != nil || json.Unmarshal(b, &info) != nil ||
		info.Family != "indep-test" || info.N != experiment.NumSamples || info.D != 20 || info.Tile != [2]int{4, 5} || info.Image || info.What != "a fixed pattern" || info.Seed != seed {
		t.Errorf("samples.json: %v %+v", err, info)
	}
	pngs := map[string][]byte{}
	for _, name := range []string{experiment.SamplesPNG, experiment.FiltersPNG, experiment.CompletionName + ".png"} {
		path := filepath.Join(out, "toy", name)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		pngs[name] = b
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if name == experiment.SamplesPNG && img.Bounds().Dx() != 10*(5*imagegrid.DefaultScale(4, 5)+1)+1 {
			t.Errorf("samples.png is %v, want 10 tiles across", img.Bounds())
		}
	}
	if c, err := npyx.ReadFile(filepath.Join(out, "toy", experiment.CompletionName+".npy")); err != nil || c.Shape[0] != 2 || c.Shape[1] != 20 || c.Data[39] != 1 {
		t.Errorf("completion.npy: %v %+v", err, c)
	}
	if r, err := experiment.DrawImages(filepath.Join(out, "toy")); err != nil || len(r.Drawn) != 3 || len(r.Stale) != 0 {
		t.Fatalf("DrawImages: %+v, %v", r, err)
	}
	for name, want := range pngs {
		if b, err := os.ReadFile(filepath.Join(out, "toy", name)); err != nil || !bytes.Equal(b, want) {
			t.Errorf("DrawImages: %s differs from the runner's (%v)", name, err)
		}
	}
	// Without completion.npy (issue 25, item 12), completion.png is kept
	// and named, not redrawn; previously the missing file was an error.
	os.Remove(filepath.Join(out, "toy", experiment.CompletionName+".npy"))
	if r, err := experiment.DrawImages(filepath.Join(out, "toy")); err != nil || fmt.Sprint(r.Drawn, r.Stale) != "[samples.png filters.png] [completion.png (no completion.npy)]" {
		t.Errorf("DrawImages without completion.npy: %+v, %v", r, err)
	}
	if _, err := experiment.DrawImages(t.TempDir()); err == nil || !strings.Contains(err.Error(), "nothing to draw") {
		t.Errorf("DrawImages on an empty folder: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(out, "config.resolved.yaml")); err != nil || !strings.Contains(string(b), "smoothing: 0.5") {
		t.Errorf("config.resolved.yaml lacks the family's settings: %v\n%s", err, b)
	}

	// Strict decoding of the family's sections, with file, line and path.
	bad := strings.Replace(src, "train: {epochs: 2}", "train: {epochs: 2, k: 3}", 1)
	bad = strings.Replace(bad, "evaluate: {splits: [test]}", "evaluate: {splits: [test], final: [exact, ais]}", 1)
	_, err = config.Parse([]byte(bad), "toy.yaml", config.Options{})
	for _, want := range []string{
		`toy.yaml:5: experiments[0].train.k: unknown key (known keys: epochs)`,
		// The other families are linked into this test binary (folder_test.go).
		`toy.yaml:6: experiments[0].evaluate.final[1].name: ais is an estimator of model type ising, rbm, dbn, dbm, sbn or arsbn, not of indep-test (the model type is indep-test; its estimators: exact)`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestMergeBuildsNoTrainer: the evaluation shards and the merge of a
// sharded run evaluate the trained model read from its checkpoint without
// building a trainer, and the merge gives the rows of the run in one
// process. Mutation checked: building the trainer in buildWith even when
// the trained model is given fails it (3 trainers built).
func TestMergeBuildsNoTrainer(t *testing.T) {
	f, err := config.Parse([]byte(`experiments:
  - name: toy
    data: {train: planted:train, test: planted:test, planted: {train: 200, test: 100}}
    model: {type: indep-test, smoothing: 0.5}
    train: {epochs: 2}
    evaluate: {splits: [test]}
`), "toy.yaml", config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := experiment.Run(f, experiment.Options{Out: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var stderr bytes.Buffer
	if err := experiment.RunShard(f, experiment.ShardOptions{Out: dir, Shard: experiment.Shard{Index: 0, Count: 1}, Phase: experiment.PhaseTrain, Stderr: &stderr, Logz: "test"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	before := trainersBuilt.Load()
	for i := range 2 {
		if err := experiment.RunShard(f, experiment.ShardOptions{Out: dir, Shard: experiment.Shard{Index: i, Count: 2}, Phase: experiment.PhaseEval, Stderr: &stderr, Logz: "test"}); err != nil {
			t.Fatalf("shard %d: %v\n%s", i, err, stderr.String())
		}
	}
	merged, err := experiment.Merge(experiment.Options{Out: dir}, "test")
	if err != nil {
		t.Fatal(err)
	}
	if n := trainersBuilt.Load() - before; n != 0 {
		t.Errorf("the evaluation shards and the merge built %d trainers, want none", n)
	}
	final := func(rows []report.Row) (out []float64) {
		for _, r := range rows {
			if r.Stage == report.StageFinal && r.MeanLoglik != nil {
				out = append(out, *r.MeanLoglik)
			}
		}
		return out
	}
	if w, m := final(whole), final(merged); len(w) == 0 || fmt.Sprint(w) != fmt.Sprint(m) {
		t.Errorf("merged final log-likelihoods %v, the run's %v", m, w)
	}
}
