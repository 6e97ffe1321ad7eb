// Package config reads logz experiment files: YAML documents that describe
// one or more experiments (data, model, trainer, estimators, seeds) which
// `logz run FILE.yaml` runs in sequence and tabulates together.
//
// Decoding is strict. The document is parsed into a yaml.Node tree and walked
// against the Go types of this package, so that every problem is reported
// with the file, the line, the key path and what was expected, e.g.
//
//	configs/x.yaml:14: experiments[1].train.lerning_rate: unknown key (did you mean "learning_rate"?; known keys: method, k, ...)
//	x.yaml:9: experiments[0].train.k: expected a positive integer, got "one"
//
// All problems of a file are collected and returned together as an
// [ErrorList].
//
// An experiment's grid: key expands it, before anything else, into one
// experiment per point of a product of settings and seeds (see grid.go and
// docs/grid.md); the points are experiments like any other from then on.
//
// Defaults are values: [Default] returns a fully populated [Experiment]. A
// file's optional `base:` mapping is decoded on top of Default(), and each
// experiment on top of (a copy of) the result: mappings merge key by key,
// recursively; lists and scalars replace. After [Parse] every field holds
// the value that will be used (seeds derived, PCD chains resolved), and
// [File.Resolved] writes it back as YAML that parses to the same File.
package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"

	"github.com/logz-ml/logz/family"
	"gopkg.in/yaml.v3"
)

// File is one parsed config file.
type File struct {
	// Name names the set of experiments (the run directory is runs/<Name>).
	// Default: the file name without its extension.
	Name string `yaml:"name"`
	// Description is free text, copied into the report.
	Description string `yaml:"description,omitempty"`
	// Seed is the file's master seed (default 1). Experiments that do not
	// set their own seed derive it as DeriveSeed(Seed, index).
	Seed uint64 `yaml:"seed"`
	// Sweep names a numeric setting that varies across the experiments, as
	// the path of its key (e.g. data.planted.weight_scale); report.html
	// then draws every estimate of log Z against it across experiments.
	Sweep string `yaml:"sweep,omitempty"`
	// Experiments run in this order; at least one, names unique.
	Experiments []Experiment `yaml:"experiments"`
	// Path is the file the config came from (as passed to Load or Parse).
	Path string `yaml:"-"`
	// Overrides are the --set arguments that made the values: those a
	// resolved config names in its head comment (ResolvedOverrides), then
	// Options.Set, in order. Their values are in the experiments.
	Overrides []string `yaml:"-"`
	// Warnings are the values of the file that are valid but do nothing
	// (binarize: threshold on 0/1 data, a binarize_seed that no method
	// draws with), each "file:line: key: message"; the commands print them
	// when they read the file.
	Warnings []string `yaml:"-"`
	// progress is Options.Progress of the Parse that made the file.
	progress func(stage string, done, total int)
}

// Experiment is one model trained and evaluated end to end.
type Experiment struct {
	// Name is unique within the file, matches [A-Za-z0-9._-]+, and becomes
	// the experiment's directory name. Required.
	Name string `yaml:"name" want:"a name of letters, digits, '.', '_' or '-'"`
	// Seed seeds everything random in the experiment. 0 in the file means
	// "derive it from the file seed and the experiment's index"; after
	// Parse it always holds the seed in use.
	Seed uint64 `yaml:"seed" want:"a non-negative integer (0 = derived)"`
	// Data is the data the experiment trains and evaluates on.
	Data Data `yaml:"data"`
	// Model is the model: its type (a family) and the family's model settings.
	Model Model `yaml:"model"`
	// Train is the family's train: section (e.g. *rbm.Train), decoded
	// strictly onto the family's defaults.
	Train family.Settings `yaml:"train"`
	// Evaluate is what is estimated after epochs and at the end.
	Evaluate Evaluate `yaml:"evaluate"`
	// Reference holds published numbers to show beside this experiment's
	// (e.g. the paper's test log-likelihood); they are labelled as such
	// and never computed.
	Reference Reference `yaml:"reference,omitempty"`
	// Grid records which grid point this experiment is, when a grid: key
	// made it (see docs/grid.md): the experiment the grid was written in,
	// its axes and this point's labels on them. The resolved config keeps
	// it, so that the reports can average over the seed axis.
	Grid GridPoint `yaml:"grid_point,omitempty"`
	// Select, on an experiment with a grid, chooses the grid's point whose
	// estimate on a held-out split is best and reports that point's
	// numbers on the other splits (see docs/grid.md). Every point of the
	// grid carries it; the reports read it from the resolved config.
	Select Select `yaml:"select,omitempty"`
}

// Select chooses a grid's point on a held-out split: the point (with a
// seed axis, the group of seeds) whose mean log-likelihood estimate by
// Estimator on Split is highest; ties go to the first in grid order.
type Select struct {
	// Split is the split the estimates are compared on: valid (or train);
	// never test, whose numbers the choice reports.
	Split string `yaml:"split" want:"the split to choose on: valid (or train), not test"`
	// Estimator names the evaluate.final estimator whose mean
	// log-likelihood is compared (its first entry of that name).
	Estimator string `yaml:"estimator" want:"the name of an evaluate.final estimator"`
}

// IsZero reports whether no selection is asked for.
func (s Select) IsZero() bool { return s == Select{} }

// Reference is a published mean log-likelihood per split, with its source.
// 0 = none for a split.
type Reference struct {
	// Source cites where the numbers are published.
	Source string `yaml:"source,omitempty" want:"a short citation, e.g. \"Du et al. 2015, Table 2\""`
	// Test is the published mean test log-likelihood in nats (0 = none).
	Test float64 `yaml:"test,omitempty" want:"a log-likelihood in nats (≤ 0)"`
	// Valid is the published mean validation log-likelihood in nats (0 = none).
	Valid float64 `yaml:"valid,omitempty" want:"a log-likelihood in nats (≤ 0)"`
	// Train is the published mean training log-likelihood in nats (0 = none).
	Train float64 `yaml:"train,omitempty" want:"a log-likelihood in nats (≤ 0)"`
}

// Values returns the split → value pairs that are set, in split order.
func (r Reference) Values() []struct {
	Split string
	Value float64
} {
	var out []struct {
		Split string
		Value float64
	}
	for _, kv := range []struct {
		s string
		v float64
	}{{"test", r.Test}, {"valid", r.Valid}, {"train", r.Train}} {
		if kv.v != 0 {
			out = append(out, struct {
				Split string
				Value float64
			}{kv.s, kv.v})
		}
	}
	return out
}

// Data says where the examples come from and how grey values become bits.
type Data struct {
	// Train and Test are data specs (see ParseDataSpec): mnist:train|test,
	// fashion-mnist:train|test, digits:train|train-shifted|test,
	// omniglot:train|test, caltech-silhouettes:train|valid|test,
	// ocr-letters:train|valid|test, binarized-mnist:train|valid|test,
	// idx:PATH, npy:PATH, planted:train|valid|test. Both are required. Relative paths are relative to the working directory.
	Train string `yaml:"train" want:"a data spec such as mnist:train"`
	Test  string `yaml:"test" want:"a data spec such as mnist:test"`
	// Validation is the number of training examples (after LimitTrain)
	// held out as the validation split, a random subset drawn with the
	// experiment's seed; 0 = none.
	Validation int `yaml:"validation" want:"a non-negative integer"`
	// LimitTrain and LimitTest keep only the first N examples; 0 = all.
	LimitTrain int `yaml:"limit_train" want:"a non-negative integer (0 = all)"`
	LimitTest  int `yaml:"limit_test" want:"a non-negative integer (0 = all)"`
	// Binarize is how grey values in [0,1] become bits: "stochastic"
	// (v ~ Bernoulli(grey), drawn once with the experiment's seed, as in
	// Salakhutdinov & Murray 2008), "threshold" (v = [grey > Threshold]) or
	// "none" (the data must already be 0/1).
	Binarize string `yaml:"binarize" want:"stochastic, threshold or none"`
	// BinarizeSeed seeds the stochastic binarisation; 0 in the file means
	// derived from the file seed (the same for every experiment of the
	// file, so that they are measured on the same bits); after Parse it holds
	// the seed in use.
	BinarizeSeed uint64 `yaml:"binarize_seed" want:"a non-negative integer (0 = derived from the file seed)"`
	// Threshold is the cut for Binarize "threshold", in (0,1).
	Threshold float64 `yaml:"threshold" want:"a number in (0,1)"`
	// DataDir is the directory of the IDX files for mnist:, fashion-mnist:
	// and digits: specs, and of the published sets' files (omniglot:,
	// caltech-silhouettes:, ocr-letters:, binarized-mnist:); "" =
	// $LOGZ_DATA_DIR, else ./data/mnist for mnist, $LOGZ_FASHION_DIR, else
	// /usr/share/datasets/fashion-mnist for fashion-mnist, $LOGZ_DIGITS_DIR,
	// else ./data/digits for digits, and for a published set NAME its own
	// variable ($LOGZ_OMNIGLOT_DIR, …), else ./data/NAME.
	DataDir string `yaml:"data_dir" want:"a directory path"`
	// Planted configures the synthetic data of planted: specs.
	Planted Planted `yaml:"planted"`
}

// Planted describes the synthetic data set: examples sampled exactly from a
// seeded random "planted" RBM (built by data.PlantedRBM), sigmoid belief
// net (sbn.Planted) or Ising grid (data.PlantedIsing), so that the true
// model is known. The model names are those of data.PlantedModels.
type Planted struct {
	// Model is the planted model: rbm, sbn (one latent layer of Hidden
	// units, sampled ancestrally) or ising (a Rows×Cols grid with spins
	// pm1, fields uniform in [−1,1] and couplings uniform in
	// [−WeightScale, WeightScale]; see data.PlantedIsing) or ising-ferro
	// (the same grid with every coupling WeightScale and fields ±0.01).
	Model string `yaml:"model" want:"rbm, sbn, ising or ising-ferro"`
	// Visible and Hidden are the planted model's layer sizes; exact sampling
	// of the RBM enumerates 2^min(Visible, Hidden) states, so then
	// min(Visible, Hidden) ≤ 20.
	Visible int `yaml:"visible" want:"a positive integer"`
	Hidden  int `yaml:"hidden" want:"a positive integer"`
	// Rows and Cols are the grid of the planted ising model (Visible is
	// then Rows·Cols).
	Rows int `yaml:"rows" want:"a positive integer"`
	Cols int `yaml:"cols" want:"a positive integer"`
	// Train, Valid and Test are the sizes of the three planted splits.
	Train int `yaml:"train" want:"a positive integer"`
	Valid int `yaml:"valid" want:"a positive integer"`
	Test  int `yaml:"test" want:"a positive integer"`
	// Seed draws the planted model and its samples (independent of the
	// experiment seed, so every experiment of a file sees the same data; 0
	// is a seed like any other here).
	Seed uint64 `yaml:"seed" want:"a non-negative integer"`
	// WeightScale s scales the planted weights (pattern weights 8s, others
	// −4s, plus s·N(0,1) noise; see data.PlantedRBM); for ising, the
	// couplings are uniform in [−s, s].
	WeightScale float64 `yaml:"weight_scale" want:"a positive number"`
}

// Model selects the model family and holds its model: settings.
type Model struct {
	// Type is a registered model family (family.Names()): rbm, dbn, dbm, ...
	Type string
	// Settings is the rest of the model: mapping, decoded strictly onto the
	// family's defaults (e.g. *rbm.Model).
	Settings family.Settings
}

// MarshalYAML writes type followed by the family's settings.
func (m Model) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "type"}, &yaml.Node{Kind: yaml.ScalarNode, Value: m.Type})
	if m.Settings != nil {
		var body yaml.Node
		if err := body.Encode(m.Settings); err != nil {
			return nil, err
		}
		n.Content = append(n.Content, body.Content...)
	}
	return n, nil
}

// Family returns the model's family.
func (m Model) Family() (*family.Family, error) { return family.Lookup(m.Type) }

// Evaluate says what is measured, on which splits and when.
type Evaluate struct {
	// Splits are the data splits whose mean log-likelihood is reported:
	// any of train, valid, test, each at most once. "valid" needs
	// data.validation > 0, or planted data with planted.valid > 0.
	Splits []string `yaml:"splits" want:"a list of splits (train, valid, test)"`
	// MaxExamples caps the examples per split used for mean
	// log-likelihoods (the first N); 0 = all.
	MaxExamples int `yaml:"max_examples" want:"a non-negative integer (0 = all)"`
	// Every runs the EveryEpoch estimators after epochs e with
	// e mod Every = 0; 0 = never.
	Every int `yaml:"every" want:"a non-negative integer (0 = never)"`
	// EveryEpoch are the (cheap) estimators run after epochs; Final are
	// run once after training.
	EveryEpoch []Estimator `yaml:"every_epoch" want:"a list of estimators"`
	// Final are the estimators run once after training (the thorough ones).
	Final []Estimator `yaml:"final" want:"a list of estimators"`
	// ByLabel breaks each mean log-likelihood of a shared log Z (exact,
	// AIS, the χ² bound), and RAISE's over the examples it evaluated, down
	// by the examples' labels: the mean log p of each label's examples with
	// its standard error (Burda et al. 2015,
	// footnote 2: digits "1" against "8"); needs labelled data (mnist:,
	// fashion-mnist:, digits: with their labels files).
	ByLabel bool `yaml:"by_label,omitempty" want:"true or false"`
}

// Estimator is one entry of evaluate.every_epoch or evaluate.final: the name
// of an estimator of the experiment's family and its settings (the
// estimator's own struct). In a file an entry is a mapping such as
// {name: ais, runs: 100} or just the name (`- pll`).
type Estimator = family.Configured

// MarshalYAML writes the lists' entries as flow mappings
// ({name: ais, runs: 100, betas: 14500, ...}) with every setting.
func (ev Evaluate) MarshalYAML() (any, error) {
	n := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, v *yaml.Node) {
		n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	}
	for _, kv := range []struct {
		key string
		v   any
	}{{"splits", ev.Splits}, {"max_examples", ev.MaxExamples}, {"every", ev.Every}} {
		var v yaml.Node
		if err := v.Encode(kv.v); err != nil {
			return nil, err
		}
		add(kv.key, &v)
	}
	for _, l := range []struct {
		key  string
		list []Estimator
	}{{"every_epoch", ev.EveryEpoch}, {"final", ev.Final}} {
		seq := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range l.list {
			item, err := estimatorNode(e)
			if err != nil {
				return nil, err
			}
			seq.Content = append(seq.Content, item)
		}
		add(l.key, seq)
	}
	if ev.ByLabel {
		add("by_label", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: "true"})
	}
	return n, nil
}

// estimatorNode writes one entry as a flow mapping: its name, then every
// setting of its struct.
func estimatorNode(e Estimator) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: "name"}, &yaml.Node{Kind: yaml.ScalarNode, Value: e.Name})
	if e.Settings != nil {
		var body yaml.Node
		if err := body.Encode(e.Settings); err != nil {
			return nil, fmt.Errorf("config: encoding estimator %s: %w", e.Name, err)
		}
		n.Content = append(n.Content, body.Content...)
	}
	return n, nil
}

// Options adjusts what Parse accepts.
type Options struct {
	// Seed, if non-nil, replaces the file's seed (as `logz run --seed N`
	// does). Experiments that set their own seed keep it.
	Seed *uint64
	// Progress, if set, is told how far Parse has read the experiments
	// ("reading") and Resolved has written them ("resolving"): done of total,
	// every 1,024 experiments and at the end of each stage.
	Progress func(stage string, done, total int)
	// Set holds the --set overrides of the command line, applied in order
	// to the document before it is decoded (see Override). File.Overrides
	// records them.
	Set []Override
	// Recorded says the document is a config that a run recorded (in a
	// checkpoint, or a run folder's config.resolved.yaml, read to evaluate
	// its models, merge its shards or compare it with the config of a
	// --resume): the files the run read when it started, such as a dbn's
	// train.bottom_from, are not checked, for they may have moved since
	// and none of these reads them.
	Recorded bool
}

// DefaultModelType is the model type of an experiment that names none.
const DefaultModelType = "rbm"

// Default returns the default experiment: every field holds the value used
// when a file does not set it. Name, Data.Train and Data.Test have no
// default (a file must set them). The model, train and estimator settings
// are those of the default model family (rbm), when it is registered.
//
//	data:     validation 0, limit_train 0, limit_test 0, binarize stochastic,
//	          threshold 0.5, data_dir "", planted {visible 20, hidden 8, rows 4, cols 5,
//	          train 2000, valid 500, test 1000, seed 0, weight_scale 0.5}
//	          (the data package's default planted set, so that
//	          `logz eval --data planted:test` sees the same examples)
//	model:    rbm, hidden 25, init_weight_std 0.01, init_visible_bias base-rate
//	train:    cd, k 1, k_end 0, chains 0, epochs 10, batch_size 100,
//	          learning_rate 0.05 constant (lr_end 0, lr_decay 1),
//	          momentum 0.5 → final_momentum 0.9 from epoch 5,
//	          weight_decay 0.0002, checkpoint_every 1, shuffle true
//	evaluate: splits [test, train], max_examples 0, every 1,
//	          every_epoch [exact, ais runs 16 betas 1000 linear],
//	          final [exact, ais runs 100 betas 14500 "2008", pll, recon]
//
// Other families have their own model, train and estimator defaults
// (`logz models` lists them).
func Default() Experiment {
	e := Experiment{
		Data: Data{
			Binarize:  "stochastic",
			Threshold: 0.5,
			Planted: Planted{
				Model: "rbm", Visible: 20, Hidden: 8, Rows: 4, Cols: 5,
				Train: 2000, Valid: 500, Test: 1000,
				Seed: 0, WeightScale: 0.5,
			},
		},
		Model: Model{Type: DefaultModelType},
		Evaluate: Evaluate{
			Splits: []string{"test", "train"},
			Every:  1,
		},
	}
	if f, err := family.Lookup(DefaultModelType); err == nil {
		e.setFamily(f)
	}
	return e
}

// setFamily gives the experiment a family's default model, train and
// estimator settings.
func (e *Experiment) setFamily(f *family.Family) {
	e.Model = Model{Type: f.Name, Settings: f.Model()}
	e.Train = f.Train()
	e.Evaluate.EveryEpoch = f.EveryEpoch()
	e.Evaluate.Final = f.Final()
}

// Clone returns a deep copy of e (its lists and settings are not shared).
func (e Experiment) Clone() Experiment {
	e.Evaluate.Splits = append([]string(nil), e.Evaluate.Splits...)
	e.Evaluate.EveryEpoch = cloneEstimators(e.Evaluate.EveryEpoch)
	e.Evaluate.Final = cloneEstimators(e.Evaluate.Final)
	e.Model.Settings = cloneSettings(e.Model.Settings)
	e.Train = cloneSettings(e.Train)
	return e
}

func cloneEstimators(l []Estimator) []Estimator {
	if l == nil {
		return nil
	}
	out := make([]Estimator, len(l))
	for i, c := range l {
		out[i] = Estimator{Name: c.Name, Settings: cloneSettings(c.Settings)}
	}
	return out
}

// cloneSettings copies the struct a Settings points to (its slices are
// copied too).
func cloneSettings(s family.Settings) family.Settings {
	if s == nil {
		return nil
	}
	v := reflect.ValueOf(s)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return s
	}
	c := reflect.New(v.Elem().Type())
	c.Elem().Set(v.Elem())
	copySlices(c.Elem())
	return c.Interface().(family.Settings)
}

func copySlices(v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		if !f.CanSet() {
			continue
		}
		switch f.Kind() {
		case reflect.Slice:
			if !f.IsNil() {
				c := reflect.MakeSlice(f.Type(), f.Len(), f.Len())
				reflect.Copy(c, f)
				f.Set(c)
			}
		case reflect.Struct:
			copySlices(f)
		}
	}
}

// Load reads and parses the config file at path.
func Load(path string, opt Options) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return Parse(data, path, opt)
}

// Parse decodes and validates a config. filename is used in error messages,
// as File.Path, and for the default File.Name. On failure the error is an
// ErrorList holding every problem found.
func Parse(data []byte, filename string, opt Options) (*File, error) {
	p := &parser{file: filename, opt: opt}
	if p.file == "" {
		p.file = "<config>"
	}
	f := p.parse(data)
	if err := p.err(); err != nil {
		return nil, err
	}
	f.Path = filename
	f.Warnings = p.warns
	// A resolved config names the overrides that made it; running it
	// again carries them on (into its own resolved config and report).
	f.Overrides = ResolvedOverrides(data)
	for _, o := range opt.Set {
		f.Overrides = append(f.Overrides, o.Arg)
	}
	return f, nil
}

// Experiment returns the experiment with that name.
func (f *File) Experiment(name string) (Experiment, bool) {
	for _, e := range f.Experiments {
		if e.Name == name {
			return e, true
		}
	}
	return Experiment{}, false
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// validName reports whether s can name a config or an experiment (it
// becomes a directory name).
func validName(s string) bool {
	return nameRE.MatchString(s) && s != "." && s != ".."
}

// defaultName derives a config name from its file name: the base name
// without extension, with characters outside [A-Za-z0-9._-] replaced by '_'.
func defaultName(filename string) string {
	base := filepath.Base(filename)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	var b strings.Builder
	for _, r := range base {
		if r < 128 && nameRE.MatchString(string(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if !validName(s) || filename == "" {
		return "config"
	}
	return s
}
