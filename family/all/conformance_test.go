package all_test

// The conformance test: one contract, checked over every registered model
// family (family.All), the way gonum's stat/distuv checks run over every
// distribution. For each family it builds tiny models from the family's own
// settings (a small YAML read by config.Parse, as the runner does), and
// checks that
//
//   - training resumed from a checkpoint (saved to model.npz and loaded
//     back) after any epoch ends in the same bits as training straight
//     through, for every training method the family registers;
//   - the codec round-trips the model, its training state and its meta bit
//     for bit;
//   - exact's p(v) sums to 1 over all 2^D visible vectors;
//   - every estimator the family registers runs, gives finite rows, and
//     leans the way it claims against exact: a lower bound ≤ exact + 3 SE,
//     an upper bound ≥ exact − 3 SE, an unbiased or consistent estimate
//     within 3 SE of it (the estimator's Leans) — and the check is strong enough to
//     catch the estimator returning exact ± powerShift (a quarter nat);
//   - the family's sampler draws N×D valid values with the frequencies of
//     exact's p(v), from every start it accepts.
//
// A new family gets all of it by registering — and must add its tiny
// config (tiny) here, and each of its estimators declares its Leans: a
// registered family without a tiny config, or an estimator without a
// claim, fails the test.

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/logz-ml/logz/config"
	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/experiment"
	"github.com/logz-ml/logz/family"
	_ "github.com/logz-ml/logz/family/all"
	"github.com/logz-ml/logz/family/familytest"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/models"
)

// visible is the number of visible units of every tiny model: small enough
// to enumerate all 2^visible vectors for the sampler's frequencies.
const visible = 6

// tinyCase is one family's tiny experiment.
type tinyCase struct {
	// data, model and evaluate are the experiment's sections (flow
	// mappings); model omits type. In evaluate's entries "{{to}}" is
	// replaced by the path of the family's model after its first epoch
	// (ais-ratio's to:).
	data, model, evaluate string
	// train lists train: sections, one per training method, each naming
	// its method; every method of family.Trainers must be among them. The
	// first one trains the model the estimators and the sampler see.
	train []string
	// skip names registered estimators the test does not run, each with
	// the reason.
	skip map[string]string
}

// plantedRBM and plantedSBN are tiny planted data sets of visible units.
const (
	plantedRBM = `{train: planted:train, test: planted:test, planted: {visible: 6, hidden: 3, train: 120, valid: 10, test: 24, seed: 3, weight_scale: 1}}`
	plantedSBN = `{train: planted:train, test: planted:test, planted: {model: sbn, visible: 6, hidden: 3, train: 120, valid: 10, test: 24, seed: 3, weight_scale: 1}}`
)

// tiny holds every family's tiny experiment. Weights start large
// (init_weight_std) so that the model after two epochs has interactions
// strong enough for the estimators' biases to show.
var tiny = map[string]tinyCase{
	"rbm": {
		data:  plantedRBM,
		model: `{hidden: 4, init_weight_std: 1}`,
		train: []string{
			`{method: cd, epochs: 3, batch_size: 20, learning_rate: 0.05}`,
			`{method: pcd, chains: 20, epochs: 2, batch_size: 20, learning_rate: 0.05}`,
			`{method: chi2, epochs: 2, batch_size: 20, learning_rate: 0.001, momentum: 0, final_momentum: 0, q_steps: 2, q_samples: 10, q_components: 3}`,
		},
		evaluate: `[exact,
			{name: ais, runs: 64, betas: 300, schedule: linear, init: base-rate},
			{name: ais-ratio, to: "{{to}}", runs: 64, betas: 300, schedule: linear},
			{name: raise, chains: 16, betas: 300, schedule: linear, examples: 0},
			{name: sandwich, until_gap: 0.2, start_betas: 30, max_betas: 300, ais: {runs: 64}, raise: {chains: 16, examples: 12}},
			{name: csl, chains: 100, steps: 300, examples: 0},
			{name: chi2, components: 8, steps: 300, warm_steps: 100, samples: 4000, batches: 20},
			pll, recon]`,
	},
	"dbn": {
		data:  plantedRBM,
		model: `{layers: [4, 3], init_weight_std: 1}`,
		train: []string{
			`{method: cd, epochs: 1, batch_size: 20, learning_rate: 0.05}`,
			`{method: pcd, chains: 20, epochs: 1, batch_size: 20, learning_rate: 0.05}`,
		},
		evaluate: `[exact,
			{name: dbn-bound, samples: 50},
			{name: ais, samples: 200, runs: 64, betas: 300, schedule: linear},
			{name: raise, chains: 16, betas: 300, schedule: linear, examples: 0},
			{name: sandwich, until_gap: 0.2, start_betas: 30, max_betas: 300, ais: {samples: 200, runs: 64}, raise: {chains: 16, examples: 12}}]`,
	},
	"dbm": {
		data:  plantedRBM,
		model: `{layers: [4, 3], init_weight_std: 1}`,
		train: []string{
			`{method: pcd, chains: 20, epochs: 1, batch_size: 20, learning_rate: 0.02, pretrain: {epochs: 1}}`,
		},
		evaluate: `[exact,
			{name: mf-bound, runs: 32, betas: 200, schedule: linear},
			{name: ais, samples: 100, runs: 32, betas: 200, schedule: linear},
			{name: raise, chains: 8, betas: 200, schedule: linear, examples: 0},
			{name: sandwich, until_gap: 0.2, start_betas: 20, max_betas: 200, ais: {samples: 100, runs: 32}, raise: {chains: 8, examples: 12}}]`,
	},
	"ising": {
		data:  `{train: planted:train, test: planted:test, planted: {model: ising, rows: 2, cols: 3, train: 120, valid: 10, test: 24, seed: 3, weight_scale: 1}}`,
		model: `{rows: 2, cols: 3}`,
		train: []string{
			`{method: pcd, epochs: 2, batch_size: 20, chains: 20, learning_rate: 0.1}`,
			`{method: exact, epochs: 2, batch_size: 20, learning_rate: 0.1}`,
			`{method: chi2, epochs: 2, batch_size: 20, learning_rate: 0.05, q_steps: 2, q_samples: 10, q_components: 3}`,
		},
		evaluate: `[exact,
			{name: ais, runs: 64, betas: 300, schedule: linear},
			{name: chi2, components: 8, steps: 300, warm_steps: 100, samples: 4000, batches: 20}]`,
		skip: map[string]string{"bp": "the Bethe approximation claims no direction against exact on a loopy grid; it is checked against enumeration (exact on chains, the zero-field loop sum) in eval/ising_bp_test.go and family/ising/bp_test.go"},
	},
	"mob": {
		data:     plantedRBM,
		model:    `{components: 3}`,
		train:    []string{`{method: em, epochs: 3, smoothing: 0.5}`},
		evaluate: `[exact]`,
	},
	"sbn":   sbnCase,
	"arsbn": arsbnCase,
	"vae": {
		data:  plantedRBM,
		model: `{latent: 4, hidden: [8], prior: rbm, prior_hidden: 2, init_prior_std: 1}`,
		train: []string{
			`{method: nvil, epochs: 2, batch_size: 20, learning_rate: 0.003, baseline_hidden: 4}`,
			`{method: nvil, epochs: 2, batch_size: 20, learning_rate: 0.003, baseline_hidden: 4, prior_training: pcd, chains: 20}`,
		},
		evaluate: `[exact,
			{name: is, samples: 500},
			{name: elbo, samples: 100},
			{name: chi2, components: 8, steps: 300, warm_steps: 100, samples: 4000, batches: 20}]`,
	},
}

// sbnCase is the tiny experiment of the sigmoid belief nets: arsbnCase's
// plus pg-gibbs and pg-vb and the mf-bound estimator (plain SBNs only).
var sbnCase = func() tinyCase {
	c := arsbnCase
	c.train = append(append([]string(nil), c.train...), `{method: pg-gibbs, epochs: 2}`, `{method: pg-vb, precision: float64, epochs: 2}`)
	c.evaluate = strings.TrimSuffix(c.evaluate, "]") + ",\n\t\t{name: mf-bound, passes: 20, examples: 0}]"
	return c
}()

// arsbnCase is the tiny experiment of both sigmoid belief net families.
var arsbnCase = tinyCase{
	data:  plantedSBN,
	model: `{layers: [3], init_weight_std: 1}`,
	train: []string{
		`{method: sghmc, epochs: 2, batch_size: 20, steps: 2, samples: 2}`,
		`{method: sghmc, sampler: gibbs, epochs: 2, batch_size: 20, steps: 2, samples: 2}`,
		`{method: sgnht, epochs: 2, batch_size: 20, steps: 2, samples: 2}`,
		`{method: adam, epochs: 2, batch_size: 20, steps: 2, samples: 2}`,
		`{method: sgld, sampler: gibbs, epochs: 2, batch_size: 20, steps: 2, samples: 2}`,
		`{method: rws, epochs: 2, batch_size: 20, steps: 2, samples: 2}`,
		`{method: rws, sleep: true, epochs: 2, batch_size: 20, steps: 2, samples: 2}`,
		`{method: wake-sleep, precision: float64, epochs: 2, batch_size: 20, steps: 2, samples: 2}`,
		`{method: nvil, precision: float64, baseline_hidden: 4, epochs: 2, batch_size: 20, steps: 2, samples: 2}`,
	},
	evaluate: `[exact,
		{name: is, samples: 500},
		{name: ais, chains: 8, betas: 100, examples: 0},
		{name: bdmc, chains: 8, betas: 100, examples: 20},
		{name: completion, rows: 2, cols: 3, samples: 10, sweeps: 2, examples: 0}]`,
}

// lean is the side of the truth on which an estimate's expectation lies.
type lean int

const (
	// none: no claim (the row carries no such number).
	none lean = iota
	// low: a stochastic lower bound, E ≤ truth: estimate ≤ exact + 3 SE.
	low
	// high: a stochastic upper bound: estimate ≥ exact − 3 SE.
	high
	// near: unbiased or consistent, or biased either way by less than its
	// error: |estimate − exact| ≤ 3 SE.
	near
)

func (l lean) String() string { return [...]string{"none", "low", "high", "near"}[l] }

// claim is what an estimator's rows promise about exact's numbers.
type claim struct {
	// loglik: MeanLoglik against exact's mean log p(v) on the same split.
	loglik lean
	// logZ: LogZ against exact's log Z (of the ratio to the model of
	// {{to}} when ratio is set).
	logZ  lean
	ratio bool
	// bracket: the row's [LoglikLo, LoglikHi] is a bracket (lo below hi
	// within 3 SE) and its warnings say nothing lies outside it.
	bracket bool
	// value, if set, checks a diagnostic's Value (not a likelihood).
	value func(v float64) bool
	// why says where the claim comes from.
	why string
}

// diagnostics check the values of the estimators that report no
// likelihood (their Leans claim nothing), keyed by "family estimator".
var diagnostics = map[string]func(v float64) bool{
	"rbm pll":          func(v float64) bool { return v <= 0 },
	"rbm recon":        func(v float64) bool { return v >= 0 && v <= visible },
	"sbn completion":   func(v float64) bool { return v >= 0 && v <= 1 },
	"arsbn completion": func(v float64) bool { return v >= 0 && v <= 1 },
}

// claimOf is what estimator e of family f declares (its Leans) and, for a
// diagnostic, the check of its value; false when e claims nothing at all
// and is neither exact nor a diagnostic.
func claimOf(f *family.Family, e *family.Estimator) (claim, bool) {
	l := e.Leans
	c := claim{loglik: lean(l.LogLik), logZ: lean(l.LogZ), ratio: l.Ratio, bracket: l.Bracket, value: diagnostics[f.Name+" "+e.Name], why: l.Why}
	return c, l.Why != "" && (e.Name == "exact" || c.loglik != none || c.logZ != none || c.bracket || c.value != nil)
}

// floor is the absolute tolerance added to 3 SE, for estimates whose SE
// is 0 or nearly (rounding of sums of exponentials).
const floor = 1e-6

// sameCopies is the size of the split "same": copies of one test example,
// on which the spread of an estimator's per-example values is its own
// noise alone, so that 3 SE is tight.
const sameCopies = 32

func TestConformance(t *testing.T) {
	all := family.All()
	if len(all) == 0 {
		t.Fatal("no family is registered")
	}
	names := map[string]bool{}
	for _, f := range all {
		names[f.Name] = true
	}
	for name := range tiny {
		if !names[name] {
			t.Errorf("the conformance table has a tiny config for %q, which is not a registered family", name)
		}
	}
	for _, f := range all {
		t.Run(f.Name, func(t *testing.T) {
			c, ok := tiny[f.Name]
			if !ok {
				t.Fatalf("family %s is registered but has no tiny config in the conformance test's table (family/all/conformance_test.go): add one", f.Name)
			}
			checkFamily(t, f, c)
		})
	}
}

// checkFamily runs the whole contract on one family.
func checkFamily(t *testing.T, f *family.Family, c tinyCase) {
	checkRegistration(t, f, c)
	dir := t.TempDir()
	methods := map[string]bool{}
	var trained, early models.Model
	for i, tr := range c.train {
		e := parse(t, f, c, tr, "")
		methods[methodOf(t, tr)] = true
		t.Run(fmt.Sprintf("resume %d %s", i, methodOf(t, tr)), func(t *testing.T) {
			m, first := checkResume(t, f, e, filepath.Join(dir, fmt.Sprint(i)))
			if i == 0 {
				trained, early = m, first
			}
		})
	}
	for _, tr := range f.Trainers {
		if !methods[tr.Method] {
			t.Errorf("training method %q is not in the tiny config's train list: its resume is not checked", tr.Method)
		}
	}
	if trained == nil {
		t.Fatal("the first training method failed; nothing to evaluate")
	}
	toPath := filepath.Join(dir, "to.npz")
	if err := models.Save(toPath, &models.Checkpoint{Model: early}, family.Codecs()); err != nil {
		t.Fatal(err)
	}
	exp := parse(t, f, c, c.train[0], toPath)
	t.Run("estimators", func(t *testing.T) { checkEstimators(t, f, c, exp, trained, early) })
	p := exactDistribution(t, f, exp, trained)
	t.Run("sample", func(t *testing.T) { checkSample(t, f, exp, trained, p) })
}

// checkRegistration checks the family's lists against the tables and
// itself: its default evaluate lists name its estimators, and each of its
// estimators has a claim or a reason to be skipped.
func checkRegistration(t *testing.T, f *family.Family, c tinyCase) {
	for _, l := range [][]family.Configured{f.EveryEpoch(), f.Final()} {
		for _, e := range l {
			if _, ok := f.Estimator(e.Name); !ok {
				t.Errorf("a default evaluate list names estimator %q, which the family does not register", e.Name)
			}
		}
	}
	if _, ok := f.Estimator("exact"); !ok {
		t.Fatalf("family %s registers no exact estimator: the contract is checked against exact", f.Name)
	}
	for _, e := range f.Estimators {
		_, claimed := claimOf(f, e)
		if _, skipped := c.skip[e.Name]; !claimed && !skipped {
			t.Errorf("estimator %s of family %s declares no Leans (what its rows claim against exact, and why), and the conformance test has no diagnostic check of its value", e.Name, f.Name)
		}
	}
	for k := range diagnostics {
		if fam, est, _ := strings.Cut(k, " "); fam == f.Name {
			if _, ok := f.Estimator(est); !ok {
				t.Errorf("the diagnostics table names estimator %s of family %s, which it does not register", est, f.Name)
			}
		}
	}
}

// parse reads the family's tiny experiment with the given train section.
func parse(t *testing.T, f *family.Family, c tinyCase, train, to string) config.Experiment {
	t.Helper()
	ev := strings.ReplaceAll(c.evaluate, "{{to}}", to)
	if to == "" {
		ev = "[exact]"
	}
	model := strings.Replace(c.model, "{", "{type: "+f.Name+", ", 1)
	src := fmt.Sprintf("seed: 7\nexperiments:\n  - name: tiny\n    data: %s\n    model: %s\n    train: %s\n    evaluate: {splits: [test], final: %s}\n",
		c.data, model, train, strings.Join(strings.Fields(ev), " "))
	file, err := config.Parse([]byte(src), f.Name+".yaml", config.Options{})
	if err != nil {
		t.Fatalf("the tiny config does not parse: %v\n%s", err, src)
	}
	return file.Experiments[0]
}

// methodOf returns the method a train section names.
func methodOf(t *testing.T, train string) string {
	var m map[string]any
	if err := yaml.Unmarshal([]byte(train), &m); err != nil {
		t.Fatal(err)
	}
	s, ok := m["method"].(string)
	if !ok {
		t.Fatalf("train section %s names no method", train)
	}
	return s
}

// loadData loads the experiment's train and test sets.
func loadData(t *testing.T, exp config.Experiment) (train, test *data.Set) {
	t.Helper()
	train, _, test, err := experiment.LoadData(exp)
	if err != nil {
		t.Fatal(err)
	}
	if train.D != visible {
		t.Fatalf("the tiny data has %d units, want %d", train.D, visible)
	}
	return train, test
}

// rowsOf copies the examples of s.
func rowsOf(s *data.Set) familytest.Rows {
	out := make(familytest.Rows, s.N)
	for i := range out {
		out[i] = slices.Clone(s.Row(i))
	}
	return out
}

// newTrainer builds the experiment's model and trainer as the runner does.
func newTrainer(t *testing.T, f *family.Family, exp config.Experiment, train *data.Set) family.Trainer {
	t.Helper()
	exp = exp.Clone()
	m, err := f.Plugin.NewModel(exp.Model.Settings, train.D)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := f.Plugin.NewTrainer(family.TrainerArgs{
		Model: m, ModelSettings: exp.Model.Settings, Train: exp.Train, Data: train,
		BaseRate: data.LogOdds(train, 1), Seed: config.DeriveSeed(exp.Seed, 1), Workers: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// trainUntil trains tr up to epoch n.
func trainUntil(t *testing.T, tr family.Trainer, x familytest.Rows, n int) {
	t.Helper()
	for tr.Completed() < n {
		before := tr.Completed()
		sum, err := tr.TrainEpoch(x)
		if err != nil {
			t.Fatalf("epoch %d: %v", before+1, err)
		}
		if tr.Completed() != before+1 || sum.Epoch != before+1 {
			t.Fatalf("after epoch %d, Completed() = %d and the summary's epoch is %d", before+1, tr.Completed(), sum.Epoch)
		}
		if math.IsNaN(sum.ReconError) || math.IsInf(sum.ReconError, 0) {
			t.Errorf("epoch %d: training signal %v", before+1, sum.ReconError)
		}
	}
}

// checkResume trains the experiment straight through and, for every epoch
// e before the last, for e epochs, saves the checkpoint to model.npz, loads
// it into a fresh trainer and trains on: the checkpoint at the end must be
// the same bits. It returns the trained model and the one after epoch 1.
func checkResume(t *testing.T, f *family.Family, exp config.Experiment, dir string) (trained, first models.Model) {
	train, _ := loadData(t, exp)
	x := rowsOf(train)
	straight := newTrainer(t, f, exp, train)
	total := straight.Total()
	if total < 2 {
		t.Fatalf("the tiny config trains %d epoch(s); it needs at least 2 to resume between them", total)
	}
	trainUntil(t, straight, x, total)
	want, err := straight.Checkpoint("tiny")
	if err != nil {
		t.Fatal(err)
	}
	if want.Model.TypeName() != f.Name || want.Meta.Epoch != total {
		t.Errorf("the final checkpoint holds a %s at epoch %d, want a %s at epoch %d", want.Model.TypeName(), want.Meta.Epoch, f.Name, total)
	}
	for at := 1; at < total; at++ {
		tr := newTrainer(t, f, exp, train)
		trainUntil(t, tr, x, at)
		c, err := tr.Checkpoint("tiny")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, fmt.Sprintf("epoch%d.npz", at))
		if err := models.Save(path, c, family.Codecs()); err != nil {
			t.Fatal(err)
		}
		loaded, err := models.Load(path, family.Codecs())
		if err != nil {
			t.Fatal(err)
		}
		// The codec round trip: what was saved is what is loaded.
		if d := diffCheckpoints(f, c, loaded); d != "" {
			t.Errorf("checkpoint after epoch %d, saved and loaded: %s", at, d)
		}
		if at == 1 {
			first = loaded.Model
			// Without its trainer state (as logz export writes it) the
			// checkpoint is refused by every trainer, never resumed from
			// zeroed buffers.
			if err := newTrainer(t, f, exp, train).Resume(loaded.WithoutTrainerState()); err == nil {
				t.Errorf("resume from the checkpoint after epoch 1 without its trainer state: no error")
			}
		}
		resumed := newTrainer(t, f, exp, train)
		if err := resumed.Resume(loaded); err != nil {
			t.Fatalf("resume after epoch %d: %v", at, err)
		}
		if resumed.Completed() != at || resumed.Total() != total {
			t.Fatalf("resumed after epoch %d: Completed %d, Total %d (want %d, %d)", at, resumed.Completed(), resumed.Total(), at, total)
		}
		trainUntil(t, resumed, x, total)
		got, err := resumed.Checkpoint("tiny")
		if err != nil {
			t.Fatal(err)
		}
		if d := diffCheckpoints(f, want, got); d != "" {
			t.Errorf("resumed after epoch %d of %d, trained to the end: %s, unlike training straight through", at, total, d)
		}
	}
	// The trained model itself through the codec alone.
	path := filepath.Join(dir, "trained.npz")
	if err := models.Save(path, &models.Checkpoint{Model: straight.Current()}, family.Codecs()); err != nil {
		t.Fatal(err)
	}
	back, err := models.Load(path, family.Codecs())
	if err != nil {
		t.Fatal(err)
	}
	if d := diffArrays("parameter", f.Codec.Arrays(straight.Current()), f.Codec.Arrays(back.Model)); d != "" {
		t.Errorf("the trained model, saved and loaded: %s", d)
	}
	return back.Model, first
}

// diffCheckpoints says how b differs from a: parameters, state arrays,
// state bytes and meta, compared bit for bit; "" when they do not.
func diffCheckpoints(f *family.Family, a, b *models.Checkpoint) string {
	if a.Model.TypeName() != b.Model.TypeName() {
		return fmt.Sprintf("model type %s, want %s", b.Model.TypeName(), a.Model.TypeName())
	}
	if d := diffArrays("parameter", f.Codec.Arrays(a.Model), f.Codec.Arrays(b.Model)); d != "" {
		return d
	}
	var sa, sb []models.Array
	for _, k := range sortedKeys(a.State) {
		sa = append(sa, models.Array{Name: k, Shape: a.State[k].Shape, Data: a.State[k].Data})
	}
	for _, k := range sortedKeys(b.State) {
		sb = append(sb, models.Array{Name: k, Shape: b.State[k].Shape, Data: b.State[k].Data})
	}
	if d := diffArrays("state", sa, sb); d != "" {
		return d
	}
	if ka, kb := sortedKeys(a.Bytes), sortedKeys(b.Bytes); !slices.Equal(ka, kb) {
		return fmt.Sprintf("state bytes %v, want %v", kb, ka)
	}
	for k, v := range a.Bytes {
		if !bytes.Equal(v, b.Bytes[k]) {
			return fmt.Sprintf("state bytes %s differ", k)
		}
	}
	if a.Meta.Epoch != b.Meta.Epoch || !bytes.Equal(a.Meta.Train, b.Meta.Train) {
		return fmt.Sprintf("meta epoch %d, train %s; want epoch %d, train %s", b.Meta.Epoch, b.Meta.Train, a.Meta.Epoch, a.Meta.Train)
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// diffArrays compares named arrays bit for bit.
func diffArrays(what string, a, b []models.Array) string {
	if len(a) != len(b) {
		return fmt.Sprintf("%d %s arrays, want %d", len(b), what, len(a))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !slices.Equal(a[i].Shape, b[i].Shape) || len(a[i].Data) != len(b[i].Data) {
			return fmt.Sprintf("%s array %s %v (%d values), want %s %v (%d values)", what, b[i].Name, b[i].Shape, len(b[i].Data), a[i].Name, a[i].Shape, len(a[i].Data))
		}
		for j, v := range a[i].Data {
			if math.Float64bits(v) != math.Float64bits(b[i].Data[j]) {
				return fmt.Sprintf("%s array %s differs first at [%d]: %v, want %v", what, a[i].Name, j, b[i].Data[j], v)
			}
		}
	}
	return ""
}

// env is the environment of a final evaluation of the tiny experiment on
// the given splits.
func env(exp config.Experiment, train *data.Set, splits []evalenv.Split) evalenv.Env {
	return evalenv.Env{Experiment: exp.Name, Stage: report.StageFinal, Epoch: 1, Splits: splits,
		BaseRate: data.LogOdds(train, 1), Train: rowsOf(train), Seed: config.DeriveSeed(exp.Seed, 2)}
}

// exactDistribution returns exact's p(v) of every visible vector v (bit i
// = v_i), checking that it sums to 1.
func exactDistribution(t *testing.T, f *family.Family, exp config.Experiment, m models.Model) []float64 {
	t.Helper()
	train, _ := loadData(t, exp)
	var splits []evalenv.Split
	for code := range 1 << visible {
		v := make([]uint8, visible)
		for i := range v {
			v[i] = uint8(code >> i & 1)
		}
		splits = append(splits, evalenv.Split{Name: fmt.Sprint(code), Data: familytest.Rows{v}})
	}
	rows, err := env(exp, train, splits).Run(f, m, []family.Configured{f.Entry("exact")})
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, 1<<visible)
	seen := 0
	for _, r := range rows {
		var code int
		if _, err := fmt.Sscan(r.Split, &code); err != nil || r.MeanLoglik == nil {
			continue
		}
		p[code] = math.Exp(*r.MeanLoglik)
		seen++
	}
	if seen != 1<<visible {
		t.Fatalf("exact gave log p(v) for %d of the %d visible vectors", seen, 1<<visible)
	}
	if s := sum(p); math.Abs(s-1) > 1e-9 {
		t.Errorf("exact's p(v) sums to %.12f over all %d visible vectors, not 1", s, 1<<visible)
	}
	return p
}

func sum(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v
	}
	return s
}

// checkEstimators runs every estimator of the tiny config on the trained
// model, on the test split and on sameCopies copies of one test example,
// and checks each row against the claim of its estimator.
func checkEstimators(t *testing.T, f *family.Family, c tinyCase, exp config.Experiment, m, early models.Model) {
	train, test := loadData(t, exp)
	tr := rowsOf(test)
	same := make(familytest.Rows, sameCopies)
	for i := range same {
		same[i] = tr[0]
	}
	splits := []evalenv.Split{{Name: "test", Data: tr}, {Name: "same", Data: same}}
	list := exp.Evaluate.Final
	listed := map[string]bool{}
	for _, e := range list {
		listed[e.Name] = true
	}
	for _, e := range f.Estimators {
		if why, skipped := c.skip[e.Name]; skipped {
			t.Logf("estimator %s skipped: %s", e.Name, why)
		} else if !listed[e.Name] {
			t.Errorf("estimator %s is not in the tiny config's evaluate list (nor skipped with a reason)", e.Name)
		}
	}
	if err := f.CheckFeasible(m, list); err != nil {
		t.Fatal(err)
	}
	ev := env(exp, train, splits)
	rows, err := ev.Run(f, m, list)
	if err != nil {
		t.Fatal(err)
	}
	// The references: exact's mean log p(v) per split, its log Z, and the
	// log Z of the model of {{to}}.
	ref := reference{loglik: map[string]float64{}, logZ: math.NaN(), toLogZ: math.NaN()}
	for _, r := range rows {
		if r.Estimator == "exact" {
			if r.MeanLoglik != nil {
				ref.loglik[r.Split] = *r.MeanLoglik
			}
			if r.LogZ != nil {
				ref.logZ = *r.LogZ
			}
		}
	}
	if early != nil {
		erows, err := env(exp, train, splits).Run(f, early, []family.Configured{f.Entry("exact")})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range erows {
			if r.LogZ != nil {
				ref.toLogZ = *r.LogZ
			}
		}
	}
	for _, s := range splits {
		if _, ok := ref.loglik[s.Name]; !ok {
			t.Fatalf("exact gave no mean log-likelihood on split %s", s.Name)
		}
	}
	ran := map[string]int{}
	caught := map[string]bool{}
	for i := range rows {
		r := &rows[i]
		ran[r.Estimator]++
		if err := r.Validate(); err != nil {
			t.Errorf("%s row on %q: %v", r.Estimator, r.Split, err)
		}
		// A sandwich's rows are its rounds' ais and raise rows (Round >
		// 0): each is held to its own estimator's claim and to the
		// sandwich's (a bracket), and counts for both.
		names := []string{r.Estimator}
		if r.Round > 0 {
			names = append(names, "sandwich")
		}
		for _, name := range names[1:] {
			ran[name]++
		}
		for _, name := range names {
			e, known := f.Estimator(name)
			if !known {
				t.Errorf("row of estimator %q, which the family does not register", name)
				continue
			}
			cl, ok := claimOf(f, e)
			if !ok {
				t.Errorf("row of estimator %q, which has no claim", name)
				continue
			}
			problems := checkRow(r, cl, ref)
			for _, p := range problems {
				t.Errorf("%s on %q (%s): %s", name, r.Split, cl.why, p)
			}
			t.Logf("%s %q: loglik %s, log Z %s, value %s, se %.3g; warnings %q", name, r.Split, num(r.MeanLoglik), num(r.LogZ), num(r.Value), rowSE(r, near), r.Warnings)
			// The check's power: the same row moved powerShift beyond exact in
			// the direction its claim forbids must be caught.
			for _, mut := range mutants(r, cl, ref) {
				if len(checkRow(&mut, cl, ref)) > 0 {
					caught[name] = true
				}
			}
			if cl.loglik == none && cl.logZ == none {
				caught[name] = true // nothing to move
			}
		}
	}
	for _, e := range list {
		if ran[e.Name] == 0 {
			t.Errorf("estimator %s gave no rows", e.Name)
		} else if !caught[e.Name] {
			t.Errorf("estimator %s returning exact ± %g nats in the direction its claim forbids would not be caught: its standard errors are too large for the check to mean anything", e.Name, powerShift)
		}
	}
}

// reference holds exact's numbers.
type reference struct {
	loglik       map[string]float64
	logZ, toLogZ float64
}

func num(p *float64) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.4f", *p)
}

// rowSE is the standard error of a row's estimate against exact's on the
// same examples: its log Z error (the side that matters for the lean: for
// a low log Z, caught too high, the distance to its lower band log(Ẑ − σ̂);
// for a high one its upper band; the wider for near) combined with its loglik_se, which on the split "same" is the
// spread of the estimator's own per-example noise. A log Z without bands
// is exact (the rows of exact, and of bounds that use exact's log Z); one
// with an upper band but no lower one (Ẑ − σ̂ ≤ 0) has an infinite error
// below.
func rowSE(r *report.Row, l lean) float64 {
	zse := 0.0
	if r.LogZ != nil && (r.LogZHi1 != nil || r.LogZLo1 != nil) {
		up, down := math.Inf(1), math.Inf(1)
		if r.LogZHi1 != nil {
			up = *r.LogZHi1 - *r.LogZ
		}
		if r.LogZLo1 != nil {
			down = *r.LogZ - *r.LogZLo1
		}
		switch l {
		case low:
			zse = down
		case high:
			zse = up
		default:
			zse = math.Max(up, down)
		}
	}
	lse := 0.0
	if r.LoglikSE != nil {
		lse = *r.LoglikSE
	}
	return math.Hypot(zse, lse)
}

// beyond says whether est lies beyond truth on the side l forbids by more
// than 3 se + floor.
func beyond(l lean, est, truth, se float64) bool {
	tol := 3*se + floor
	switch l {
	case low:
		return est > truth+tol
	case high:
		return est < truth-tol
	case near:
		return math.Abs(est-truth) > tol
	}
	return false
}

// offence says how est lies on the wrong side of exact.
func offence(what string, l lean, est, truth, se float64) string {
	side, should := "above", "a lower bound (leans low) should not be"
	switch {
	case l == high:
		side, should = "below", "an upper bound (leans high) should not be"
	case l == near && est < truth:
		side, should = "below", "an estimate that leans neither way should be within that"
	case l == near:
		should = "an estimate that leans neither way should be within that"
	}
	return fmt.Sprintf("%s %.4f is %.4f nats %s exact's %.4f, more than 3 SE + %g (SE %.3g): %s", what, est, math.Abs(est-truth), side, truth, floor, se, should)
}

// checkRow returns what is wrong with a row under its claim.
func checkRow(r *report.Row, cl claim, ref reference) []string {
	var out []string
	if cl.loglik != none {
		truth, ok := ref.loglik[r.Split]
		switch {
		case !ok:
			out = append(out, "no exact mean log-likelihood on this split to compare with")
		case r.MeanLoglik == nil:
			out = append(out, "no mean log-likelihood")
		case r.Subsampled() && r.ControlVariate == "":
			out = append(out, "a subsample's own mean (the tiny settings should cover the split)")
		default:
			// A log Z lean opposite to the loglik's: the log Z error
			// counts on the side that pushes log p the forbidden way.
			zl := cl.loglik
			if cl.logZ != none {
				zl = cl.logZ
			}
			if se := rowSE(r, zl); beyond(cl.loglik, *r.MeanLoglik, truth, se) {
				out = append(out, offence("mean log-likelihood", cl.loglik, *r.MeanLoglik, truth, se))
			}
		}
	}
	if cl.logZ != none && (r.Split == "" || r.LogZ != nil) {
		truth := ref.logZ
		if cl.ratio {
			truth = ref.toLogZ - ref.logZ
		}
		switch {
		case math.IsNaN(truth):
			out = append(out, "no exact log Z to compare with")
		case r.LogZ == nil:
			out = append(out, "no log Z")
		default:
			if se := rowSE(r, cl.logZ); beyond(cl.logZ, *r.LogZ, truth, se) {
				out = append(out, offence("log Z", cl.logZ, *r.LogZ, truth, se))
			}
		}
	}
	if cl.bracket {
		switch {
		case r.LoglikLo == nil || r.LoglikHi == nil:
			out = append(out, "no bracket")
		case *r.LoglikLo > *r.LoglikHi+3*rowSE(r, near)+floor:
			out = append(out, fmt.Sprintf("bracket [%.4f, %.4f] reversed beyond 3 SE", *r.LoglikLo, *r.LoglikHi))
		}
		for _, w := range r.Warnings {
			if strings.Contains(w, "outside") {
				out = append(out, "warning: "+w)
			}
		}
	}
	if cl.value != nil && (r.Value == nil || !cl.value(*r.Value)) {
		out = append(out, fmt.Sprintf("value %s out of its range", num(r.Value)))
	}
	return out
}

// powerShift is how far beyond exact, in nats, a copy of a row is moved to
// test the check's power: every estimator here must catch a quarter nat
// (all catch 0.2; dbn raise, whose 20-chain subsample is the noisiest,
// misses 0.1).
const powerShift = 0.25

// mutants are copies of r moved powerShift beyond exact in each direction its
// claim forbids, as an estimator returning exact ± powerShift with the same spread
// would give (a log Z moves with its bands).
func mutants(r *report.Row, cl claim, ref reference) []report.Row {
	var out []report.Row
	shift := func(p *float64, d float64) *float64 {
		if p == nil {
			return nil
		}
		v := *p + d
		return &v
	}
	for _, d := range []float64{+powerShift, -powerShift} {
		if cl.loglik != none && r.MeanLoglik != nil && forbids(cl.loglik, d) {
			if truth, ok := ref.loglik[r.Split]; ok {
				m := *r
				m.MeanLoglik = shift(&truth, d)
				out = append(out, m)
			}
		}
		truth := ref.logZ
		if cl.ratio {
			truth = ref.toLogZ - ref.logZ
		}
		if cl.logZ != none && r.LogZ != nil && forbids(cl.logZ, d) && !math.IsNaN(truth) {
			m := *r
			by := truth + d - *r.LogZ
			m.LogZ = shift(r.LogZ, by)
			m.LogZLo, m.LogZHi = shift(r.LogZLo, by), shift(r.LogZHi, by)
			m.LogZLo1, m.LogZHi1 = shift(r.LogZLo1, by), shift(r.LogZHi1, by)
			out = append(out, m)
		}
	}
	return out
}

// forbids says whether an estimate d nats from the truth is on the side
// lean l rules out.
func forbids(l lean, d float64) bool {
	switch l {
	case low:
		return d > 0
	case high:
		return d < 0
	}
	return l == near
}

// checkSample checks the family's sampler from every start it accepts:
// N×D values, 0/1 states or [0,1] means, with the frequencies and
// marginals of exact's p(v).
func checkSample(t *testing.T, f *family.Family, exp config.Experiment, m models.Model, p []float64) {
	sampler, ok := sampling.SamplerOf(f)
	if !ok {
		t.Fatalf("family %s has no sampler: its Plugin is no sampling.Sampler (the contract includes sampling)", f.Name)
	}
	train, _ := loadData(t, exp)
	draw := func(n int, init string, mean bool, workers int) ([]float64, error) {
		qfit := sampling.QFitDefaults()
		qfit.Components, qfit.Steps = 5, 50
		d, err := sampler.Sample(m, sampling.SampleOptions{N: n, Steps: 100, Init: init, Mean: mean, Data: rowsOf(train), QFit: qfit, Seed: 11, Workers: workers})
		if err != nil {
			return nil, err
		}
		values := sampling.ValuesStates
		if mean {
			values = sampling.ValuesMeans
		}
		method := sampling.MethodGibbs
		if sampling.SampleInits(f) == nil {
			method = sampling.MethodAncestral
		}
		if d.N != n || d.D != visible || len(d.X) != n*visible || d.Values != values || d.Method != method {
			t.Errorf("start %q, mean %v: drew N %d, D %d, %d values, %s by %s; want %d×%d %s by %s", init, mean, d.N, d.D, len(d.X), d.Values, d.Method, n, visible, values, method)
		}
		return d.X, nil
	}
	familytest.CheckSampler(t, draw, visible, p, sampling.SampleInits(f), 1000)
}
