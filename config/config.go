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
// Defaults are values: [Default] returns a fully populated [Experiment]. A
// file's optional `base:` mapping is decoded on top of Default(), and each
// experiment on top of (a copy of) the result: mappings merge key by key,
// recursively; lists and scalars replace. After [Parse] every field holds
// the value that will be used (seeds derived, PCD chains resolved), and
// [File.Resolved] writes it back as YAML that parses to the same File.
package config

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

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
	// Experiments run in this order; at least one, names unique.
	Experiments []Experiment `yaml:"experiments"`
	// Path is the file the config came from (as passed to Load or Parse).
	Path string `yaml:"-"`
}

// Experiment is one model trained and evaluated end to end.
type Experiment struct {
	// Name is unique within the file, matches [A-Za-z0-9._-]+, and becomes
	// the experiment's directory name. Required.
	Name string `yaml:"name" want:"a name of letters, digits, '.', '_' or '-'"`
	// Seed seeds everything random in the experiment. 0 in the file means
	// "derive it from the file seed and the experiment's index"; after
	// Parse it always holds the seed in use.
	Seed     uint64   `yaml:"seed" want:"a non-negative integer (0 = derived)"`
	Data     Data     `yaml:"data"`
	Model    Model    `yaml:"model"`
	Train    Train    `yaml:"train"`
	Evaluate Evaluate `yaml:"evaluate"`
}

// Data says where the examples come from and how grey values become bits.
type Data struct {
	// Train and Test are data specs (see ParseDataSpec): mnist:train|test,
	// fashion-mnist:train|test, idx:PATH, npy:PATH, planted:train|valid|test.
	// Both are required. Relative paths are relative to the working directory.
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
	// DataDir is the directory of the IDX files for mnist: and
	// fashion-mnist: specs; "" = $LOGZ_DATA_DIR, else ./data/mnist for mnist
	// and /usr/share/datasets/fashion-mnist for fashion-mnist.
	DataDir string `yaml:"data_dir" want:"a directory path"`
	// Planted configures the synthetic data of planted: specs.
	Planted Planted `yaml:"planted"`
}

// Planted describes the synthetic data set: examples sampled exactly from a
// seeded random "planted" RBM (built by data.PlantedRBM), so that the true
// model is known.
type Planted struct {
	// Visible and Hidden are the planted RBM's layer sizes; exact sampling
	// enumerates 2^min(Visible, Hidden) states, so min(Visible, Hidden) ≤ 20.
	Visible int `yaml:"visible" want:"a positive integer"`
	Hidden  int `yaml:"hidden" want:"a positive integer"`
	// Train, Valid and Test are the sizes of the three planted splits.
	Train int `yaml:"train" want:"a positive integer"`
	Valid int `yaml:"valid" want:"a positive integer"`
	Test  int `yaml:"test" want:"a positive integer"`
	// Seed draws the planted model and its samples (independent of the
	// experiment seed, so every experiment of a file sees the same data; 0
	// is a seed like any other here).
	Seed uint64 `yaml:"seed" want:"a non-negative integer"`
	// WeightScale s scales the planted weights (pattern weights 8s, others
	// −4s, plus s·N(0,1) noise; see data.PlantedRBM).
	WeightScale float64 `yaml:"weight_scale" want:"a positive number"`
}

// Model selects and sizes the model.
type Model struct {
	// Type is a registered model type (see Options.ModelTypes).
	Type string `yaml:"type" want:"a model type such as rbm"`
	// Hidden is the number of hidden units.
	Hidden int `yaml:"hidden" want:"a positive integer"`
	// Layers are the hidden layer sizes of a "dbn" or "dbm", bottom to top
	// (at least two; for a dbn the top two layers form the top RBM). Not
	// used by "rbm".
	Layers []int `yaml:"layers" want:"a list of positive integers"`
	// InitWeightStd is σ of the initial weights W_ij ~ N(0, σ²).
	InitWeightStd float64 `yaml:"init_weight_std" want:"a non-negative number"`
	// InitVisibleBias is "base-rate" (a_i = log(p_i/(1−p_i)) with p_i the
	// smoothed training mean of unit i) or "zero". Hidden biases start at 0.
	InitVisibleBias string `yaml:"init_visible_bias" want:"base-rate or zero"`
}

// Train configures the trainer (CD-k or PCD with SGD, momentum and L2
// weight decay). Its methods KAt, LearningRateAt and MomentumAt give the
// per-epoch schedules; Train satisfies the trainers' Schedule interface.
type Train struct {
	// Method is "cd" (CD-k, chains start at the data) or "pcd"
	// (persistent chains).
	Method string `yaml:"method" want:"cd or pcd"`
	// K is the number of block-Gibbs steps per update (at epoch 1).
	K int `yaml:"k" want:"a positive integer"`
	// KEnd, if non-zero, makes k grow linearly from K at epoch 1 to KEnd at
	// the last epoch (the 2008 paper's CD 1→25); see KAt.
	KEnd int `yaml:"k_end" want:"a non-negative integer (0 = constant k)"`
	// Chains is the number of persistent chains for PCD; 0 in the file
	// means BatchSize, and after Parse it holds the count in use. Must be 0
	// for CD.
	Chains int `yaml:"chains" want:"a non-negative integer"`
	// Epochs is the number of passes over the training set.
	Epochs int `yaml:"epochs" want:"a positive integer"`
	// BatchSize is the minibatch size.
	BatchSize int `yaml:"batch_size" want:"a positive integer"`
	// LearningRate is ε at epoch 1; see LearningRateAt.
	LearningRate float64 `yaml:"learning_rate" want:"a positive number"`
	// LRSchedule is "constant", "linear" (to LREnd at the last epoch) or
	// "exponential" (× LRDecay per epoch).
	LRSchedule string  `yaml:"lr_schedule" want:"constant, linear or exponential"`
	LREnd      float64 `yaml:"lr_end" want:"a non-negative number"`
	LRDecay    float64 `yaml:"lr_decay" want:"a number in (0,1]"`
	// Momentum applies before MomentumSwitchEpoch, FinalMomentum from it on.
	Momentum            float64 `yaml:"momentum" want:"a number in [0,1)"`
	FinalMomentum       float64 `yaml:"final_momentum" want:"a number in [0,1)"`
	MomentumSwitchEpoch int     `yaml:"momentum_switch_epoch" want:"a positive integer (1-based epoch)"`
	// WeightDecay is the L2 penalty λ on W (biases are not decayed).
	WeightDecay float64 `yaml:"weight_decay" want:"a non-negative number"`
	// CheckpointEvery writes model.npz after every N-th epoch and always
	// after the last; 0 = only after the last.
	CheckpointEvery int `yaml:"checkpoint_every" want:"a non-negative integer"`
	// Shuffle reshuffles the training set before each epoch.
	Shuffle bool `yaml:"shuffle" want:"true or false"`
	// LayerData (dbn) is what the layers above the first train on:
	// "sampled" (one draw from Q(h_l|h_{l−1}) per example, 2008 §4.1),
	// "resampled" (a fresh draw every epoch) or "mean-field" (the
	// probabilities themselves).
	LayerData string `yaml:"layer_data" want:"sampled, resampled or mean-field"`
	// TransposeInit (dbn) initialises each new layer with the transpose of
	// the one below (2008 §5.2), so the bound does not fall at stacking; it
	// needs layer l+1 to have as many units as layer l−1.
	TransposeInit bool `yaml:"transpose_init" want:"true or false"`
	// MeanFieldIters (dbm) is the number of mean-field fixed-point
	// iterations of the positive phase of joint DBM training (Salakhutdinov
	// & Hinton 2009); the negative phase is PCD with Chains persistent
	// chains and K Gibbs sweeps per update, so a dbm needs method "pcd".
	MeanFieldIters int `yaml:"mean_field_iters" want:"a positive integer"`
	// Pretrain (dbm) configures greedy layer-wise pretraining with the
	// modified RBMs of Salakhutdinov & Hinton (2009) before joint training.
	Pretrain Pretrain `yaml:"pretrain"`
}

// Pretrain configures DBM pretraining: each layer is trained as an RBM
// whose input from the missing neighbour layer is doubled (bottom-up for
// the first RBM, top-down for the top one, both for middle ones), for
// Epochs epochs, with train.batch_size, train.momentum,
// train.final_momentum, train.momentum_switch_epoch and train.weight_decay.
type Pretrain struct {
	// Epochs per layer; 0 = no pretraining (joint training starts from
	// random weights).
	Epochs int `yaml:"epochs" want:"a non-negative integer (0 = no pretraining)"`
	// Method is "cd" or "pcd" for the pretraining RBMs.
	Method string `yaml:"method" want:"cd or pcd"`
	// K is the number of Gibbs steps per pretraining update.
	K int `yaml:"k" want:"a positive integer"`
	// LearningRate is the constant learning rate of pretraining.
	LearningRate float64 `yaml:"learning_rate" want:"a positive number"`
}

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
	Final      []Estimator `yaml:"final" want:"a list of estimators"`
}

// Options adjusts what Parse accepts.
type Options struct {
	// ModelTypes are the registered model type names (models.Names());
	// empty means the built-in {"dbm", "dbn", "rbm"}.
	ModelTypes []string
	// Seed, if non-nil, replaces the file's seed (as `logz run --seed N`
	// does). Experiments that set their own seed keep it.
	Seed *uint64
}

func (o Options) modelTypes() []string {
	if len(o.ModelTypes) == 0 {
		return []string{"dbm", "dbn", "rbm"}
	}
	return o.ModelTypes
}

// Default returns the default experiment: every field holds the value used
// when a file does not set it. Name, Data.Train and Data.Test have no
// default (a file must set them).
//
//	data:     validation 0, limit_train 0, limit_test 0, binarize stochastic,
//	          threshold 0.5, data_dir "", planted {visible 20, hidden 8,
//	          train 2000, valid 500, test 1000, seed 0, weight_scale 0.5}
//	          (the data package's default planted set, so that
//	          `logz eval --data planted:test` sees the same examples)
//	model:    rbm, hidden 25, init_weight_std 0.01, init_visible_bias base-rate
//	train:    cd, k 1, k_end 0, chains 0, epochs 10, batch_size 100,
//	          learning_rate 0.05 constant (lr_end 0, lr_decay 1),
//	          momentum 0.5 → final_momentum 0.9 from epoch 5,
//	          weight_decay 0.0002, checkpoint_every 1, shuffle true,
//	          layer_data sampled (dbn), mean_field_iters 10 (dbm),
//	          pretrain {epochs 0, method cd, k 1, learning_rate 0.05} (dbm)
//	evaluate: splits [test, train], max_examples 0, every 1,
//	          every_epoch [exact, ais runs 16 betas 1000 linear],
//	          final [exact, ais runs 100 betas 14500 "2008", pll, recon]
func Default() Experiment {
	cheapAIS := MustEstimator("ais")
	cheapAIS.Runs, cheapAIS.Betas, cheapAIS.Schedule = 16, 1000, "linear"
	return Experiment{
		Data: Data{
			Binarize:  "stochastic",
			Threshold: 0.5,
			Planted: Planted{
				Visible: 20, Hidden: 8,
				Train: 2000, Valid: 500, Test: 1000,
				Seed: 0, WeightScale: 0.5,
			},
		},
		Model: Model{Type: "rbm", Hidden: 25, InitWeightStd: 0.01, InitVisibleBias: "base-rate"},
		Train: Train{
			Method: "cd", K: 1, Epochs: 10, BatchSize: 100,
			LearningRate: 0.05, LRSchedule: "constant", LRDecay: 1.0,
			Momentum: 0.5, FinalMomentum: 0.9, MomentumSwitchEpoch: 5,
			WeightDecay: 0.0002, CheckpointEvery: 1, Shuffle: true,
			LayerData: "sampled", MeanFieldIters: 10,
			Pretrain: Pretrain{Epochs: 0, Method: "cd", K: 1, LearningRate: 0.05},
		},
		Evaluate: Evaluate{
			Splits:     []string{"test", "train"},
			Every:      1,
			EveryEpoch: []Estimator{MustEstimator("exact"), cheapAIS},
			Final: []Estimator{
				MustEstimator("exact"), MustEstimator("ais"),
				MustEstimator("pll"), MustEstimator("recon"),
			},
		},
	}
}

// Clone returns a deep copy of e (its lists are not shared).
func (e Experiment) Clone() Experiment {
	e.Evaluate.Splits = append([]string(nil), e.Evaluate.Splits...)
	e.Evaluate.EveryEpoch = append([]Estimator(nil), e.Evaluate.EveryEpoch...)
	e.Evaluate.Final = append([]Estimator(nil), e.Evaluate.Final...)
	return e
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
	return f, nil
}

// Resolved returns the config with every default filled in, as YAML that
// Parse turns back into an equal File (the runner saves it as
// config.resolved.yaml). It has no base: section; each experiment is
// complete.
func (f *File) Resolved() ([]byte, error) {
	var doc yaml.Node
	if err := doc.Encode(f); err != nil {
		return nil, fmt.Errorf("config: encoding resolved config: %w", err)
	}
	src := f.Path
	if src == "" {
		src = "(no file)"
	}
	doc.HeadComment = "Resolved logz config of " + src + ": every default filled in.\n" +
		"Running this file reproduces the run (same seeds, same settings)."
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, fmt.Errorf("config: encoding resolved config: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("config: encoding resolved config: %w", err)
	}
	return buf.Bytes(), nil
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
