package sbn

import (
	"fmt"
	"math"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
	belief "github.com/logz-ml/logz/sbn"
)

// Train is the train: section of the sbn and arsbn families (Du, Zhu &
// Zhang 2015, Alg. 1 and App. C; see sbn.TrainOptions for the equations).
type Train struct {
	// Method is the training method: sghmc, sgnht (SG Nosé–Hoover
	// thermostat, as the official code), sgld (Langevin dynamics), adam
	// (no injected noise), or a baseline of the paper's Table 3: rws
	// (reweighted wake-sleep, adam with the adaptive-is sampler),
	// wake-sleep or nvil (float64 only), or pg-gibbs (sbn only: Gan et
	// al.'s batch Gibbs sampler with Pólya-Gamma augmentation, one sweep
	// per epoch, set by the prior keys and precision alone), or pg-vb
	// (sbn only, float64: its mean-field variational counterpart, one pass
	// of coordinate updates per epoch, the posterior mean evaluated).
	Method string `yaml:"method" want:"sghmc, sgnht, sgld, adam, rws, wake-sleep, nvil, pg-gibbs or pg-vb"`
	// Sampler draws the latent states: gibbs (eq. 15) or adaptive-is
	// (recognition network on the inclusive KL, eq. 7–10).
	Sampler string `yaml:"sampler" want:"gibbs or adaptive-is"`
	// Epochs is the number of passes over the training set.
	Epochs int `yaml:"epochs" want:"a positive integer"`
	// BatchSize is the minibatch size |B_t|.
	BatchSize int `yaml:"batch_size" want:"a positive integer"`
	// Steps is the number of dynamics steps per minibatch.
	Steps int `yaml:"steps" want:"a positive integer"`
	// Samples is L, latent samples per example and step.
	Samples int `yaml:"samples" want:"a positive integer"`
	// LearningRate λ: the step on the per-data gradient, η = λ/N (Adam's
	// step for adam).
	LearningRate float64 `yaml:"learning_rate" want:"a positive number"`
	// Friction is SGHMC's momentum decay α; GradNoise its β̂ ∈ [0, α].
	Friction float64 `yaml:"friction" want:"a number in (0,1]"`
	// GradNoise is β̂ ∈ [0, friction], the estimated noise of the stochastic gradient.
	GradNoise float64 `yaml:"grad_noise" want:"a number in [0, friction]"`
	// NoiseA is SGNHT's A.
	NoiseA float64 `yaml:"noise_a" want:"a positive number"`
	// Prior on every generative parameter: student-t (σ, ν), gaussian (σ)
	// or none.
	Prior string `yaml:"prior" want:"student-t, gaussian or none"`
	// PriorSigma is the prior's scale σ.
	PriorSigma float64 `yaml:"prior_sigma" want:"a positive number"`
	// PriorNu is the Student-t prior's degrees of freedom ν.
	PriorNu float64 `yaml:"prior_nu" want:"a positive number"`
	// BurnIn Gibbs sweeps when an example's chain resumes; GibbsSweeps
	// between kept states; Persistent keeps each example's state across
	// epochs.
	BurnIn int `yaml:"burn_in" want:"a non-negative integer"`
	// GibbsSweeps are the Gibbs sweeps between two kept states.
	GibbsSweeps int `yaml:"gibbs_sweeps" want:"a positive integer"`
	// Persistent keeps each example's Gibbs state across epochs.
	Persistent bool `yaml:"persistent" want:"true or false"`
	// RecLearningRate is the recognition network's Adam step (adaptive-is).
	RecLearningRate float64 `yaml:"rec_learning_rate" want:"a positive number"`
	// Average: the evaluated net is the mean of the last Average posterior
	// samples (θ after each minibatch), as the official code; 1 = the last
	// sample, as the paper. The report says which.
	Average int `yaml:"average" want:"a positive integer"`
	// CheckpointEvery writes model.npz after every N-th epoch and after the
	// last; 0 = only after the last.
	CheckpointEvery int `yaml:"checkpoint_every" want:"a non-negative integer"`
	// Precision of the sampler: float32 or float64. Adaptive importance
	// sampler: its sums over the proposals and the gradients in float32;
	// log-weights, parameters and dynamics in float64. Gibbs sampler: the
	// chains' activations, σ pairs and odds in float32, eight chains per
	// AVX2 register; log-odds, gradient, parameters and dynamics in
	// float64.
	Precision kernel.Precision `yaml:"precision" want:"float64 or float32 (adaptive-is: the sums of the proposals and gradients in float32; gibbs: the chains' activations, σ pairs, odds and e^{±W} in float32, eight chains per AVX2 register; log-weights or log-odds, parameters and dynamics float64)"`
	// BaselineHidden is the number of tanh units of NVIL's input-dependent
	// baseline b(x) (nvil; 0: the running mean alone).
	BaselineHidden int `yaml:"baseline_hidden" want:"a non-negative integer"`
	// Sleep adds, for rws, the sleep-phase update of the recognition
	// network (dreams (h, x) from the model) to the wake-phase one.
	Sleep bool `yaml:"sleep" want:"true or false"`
	// Stopping adds early_stop (validation early stopping, every family).
	family.Stopping `yaml:",inline"`
}

// DefaultTrain is the paper's setting (App. C) for 10 epochs.
func DefaultTrain() Train {
	o := belief.DefaultTrainOptions()
	return Train{
		Method: o.Method, Sampler: o.Sampler, Epochs: 10, BatchSize: o.BatchSize, Steps: o.Steps, Samples: o.Samples,
		LearningRate: o.LearningRate, Friction: o.Friction, GradNoise: o.GradNoise, NoiseA: o.NoiseA,
		Prior: o.Prior, PriorSigma: o.PriorSigma, PriorNu: o.PriorNu,
		BurnIn: o.BurnIn, GibbsSweeps: o.GibbsSweeps, Persistent: o.Persistent,
		RecLearningRate: o.RecLearningRate, Average: max(1, o.Average), CheckpointEvery: 1, Precision: o.Precision,
		BaselineHidden: o.BaselineHidden,
	}
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Check reports bad train settings.
func (t *Train) Check(p family.Problems) {
	t.CheckStopping(p)
	p.Enum("method", t.Method, belief.Methods)
	p.Enum("sampler", t.Sampler, []string{"gibbs", "adaptive-is"})
	p.Enum("prior", t.Prior, []string{"student-t", "gaussian", "none"})
	p.Enum("precision", string(t.Precision), []string{string(kernel.Float64), string(kernel.Float32)})
	family.CheckEpochs(p, "epochs", t.Epochs)
	p.Check("batch_size", t.BatchSize >= 1 && t.BatchSize <= 10000, "an integer in [1, 10000]", t.BatchSize)
	p.Check("steps", t.Steps >= 1 && t.Steps <= 10000, "an integer in [1, 10000]", t.Steps)
	p.Check("samples", t.Samples >= 1 && t.Samples <= 10000, "an integer in [1, 10000]", t.Samples)
	p.Check("learning_rate", t.LearningRate > 0 && finite(t.LearningRate), "a positive number", t.LearningRate)
	p.Check("friction", t.Friction > 0 && t.Friction <= 1, "a number in (0,1]", t.Friction)
	p.Check("grad_noise", t.GradNoise >= 0 && t.GradNoise <= t.Friction, "a number in [0, friction]", t.GradNoise)
	p.Check("noise_a", t.NoiseA > 0 && finite(t.NoiseA), "a positive number", t.NoiseA)
	p.Check("prior_sigma", t.PriorSigma > 0 && finite(t.PriorSigma), "a positive number", t.PriorSigma)
	p.Check("prior_nu", t.PriorNu > 0 && finite(t.PriorNu), "a positive number", t.PriorNu)
	p.Check("burn_in", t.BurnIn >= 0 && t.BurnIn <= 10000, "an integer in [0, 10000]", t.BurnIn)
	p.Check("gibbs_sweeps", t.GibbsSweeps >= 1 && t.GibbsSweeps <= 10000, "an integer in [1, 10000]", t.GibbsSweeps)
	p.Check("rec_learning_rate", t.RecLearningRate > 0 && finite(t.RecLearningRate), "a positive number", t.RecLearningRate)
	p.Check("average", t.Average >= 1 && t.Average <= 1000, "an integer in [1, 1000]", t.Average)
	p.Check("checkpoint_every", t.CheckpointEvery >= 0, "a non-negative integer", t.CheckpointEvery)
	p.Check("baseline_hidden", t.BaselineHidden >= 0 && t.BaselineHidden <= models.MaxUnits, fmt.Sprintf("an integer in [0, %d]", models.MaxUnits), t.BaselineHidden)
	switch t.Method {
	case "rws", "wake-sleep", "nvil":
		if t.Sampler != "adaptive-is" {
			p.Crossf("sampler", "method", "method %s draws the latents from its recognition network: set sampler: adaptive-is (got %q)", t.Method, t.Sampler)
		}
	}
	if t.Method == "pg-gibbs" || t.Method == "pg-vb" {
		if t.Prior == "none" {
			p.Crossf("prior", "method", "method %s needs a proper prior: set prior: student-t or gaussian (got %q)", t.Method, t.Prior)
		}
		if t.Average > 1 {
			what := "its last sample"
			if t.Method == "pg-vb" {
				what = "the posterior mean"
			}
			p.Crossf("average", "method", "method %s evaluates %s: set average: 1 (got %d)", t.Method, what, t.Average)
		}
	}
	if t.Sleep && t.Method != "rws" {
		p.Crossf("sleep", "sleep", "the sleep phase is an option of method rws (got %q); wake-sleep always runs it", t.Method)
	}
	if (t.Method == "wake-sleep" || t.Method == "nvil" || t.Method == "pg-vb") && t.Precision != kernel.Float64 {
		p.Crossf("precision", "method", "method %s runs in float64 only: set precision: float64 (got %q)", t.Method, t.Precision)
	}
	t.checkMinibatch(p)
}

// checkMinibatch reports a minibatch of more than family.MaxUpdateSweeps
// latent draws or Gibbs sweeps (the work between two moves of the epoch's
// progress bar), once the counts are within their own limits.
func (t *Train) checkMinibatch(p family.Problems) {
	in := func(n, lo int) bool { return n >= lo && n <= 10000 }
	if !in(t.BatchSize, 1) || !in(t.Steps, 1) || !in(t.Samples, 1) || !in(t.BurnIn, 0) || !in(t.GibbsSweeps, 1) {
		return // reported at their keys
	}
	if t.Sampler == "gibbs" {
		if n := t.BatchSize * (t.BurnIn + t.Steps*t.Samples*t.GibbsSweeps); n > family.MaxUpdateSweeps {
			p.Crossf("", "batch_size", "batch_size × (burn_in + steps × samples × gibbs_sweeps) = %d × (%d + %d × %d × %d) = %d Gibbs sweeps per minibatch is more than the limit of %d (family.MaxUpdateSweeps)",
				t.BatchSize, t.BurnIn, t.Steps, t.Samples, t.GibbsSweeps, n, family.MaxUpdateSweeps)
		}
		return
	}
	if n := t.BatchSize * t.Steps * t.Samples; n > family.MaxUpdateSweeps {
		p.Crossf("", "batch_size", "batch_size × steps × samples = %d × %d × %d = %d latent draws per minibatch is more than the limit of %d (family.MaxUpdateSweeps)",
			t.BatchSize, t.Steps, t.Samples, n, family.MaxUpdateSweeps)
	}
}

// CheckpointDue reports whether model.npz is written after epoch e.
func (t *Train) CheckpointDue(e int) bool {
	return e == t.Epochs || (t.CheckpointEvery > 0 && e%t.CheckpointEvery == 0)
}

func (t *Train) options(seed uint64, workers int) belief.TrainOptions {
	return belief.TrainOptions{
		Method: t.Method, Sampler: t.Sampler, Prior: t.Prior,
		LearningRate: t.LearningRate, Friction: t.Friction, GradNoise: t.GradNoise, NoiseA: t.NoiseA,
		PriorSigma: t.PriorSigma, PriorNu: t.PriorNu, Steps: t.Steps, BatchSize: t.BatchSize, Samples: t.Samples,
		BurnIn: t.BurnIn, GibbsSweeps: t.GibbsSweeps, Persistent: t.Persistent,
		RecLearningRate: t.RecLearningRate, Average: t.Average, Seed: seed, Workers: workers, Epochs: t.Epochs,
		Precision: t.Precision, BaselineHidden: t.BaselineHidden, Sleep: t.Sleep,
	}
}

// SBN and ARSBN are the registered families.
var (
	SBN   = newFamily("sbn", false)
	ARSBN = newFamily("arsbn", true)
)

func init() {
	kit.Register(SBN)
	kit.Register(ARSBN)
}

func newFamily(name string, ar bool) *family.Family {
	trainers := []family.TrainerInfo{
		{Method: "sghmc", Doc: "doubly stochastic SGHMC (Alg. 1): minibatch and latent-sample gradients scaled by N/B, friction α, injected noise 2(α−β̂)η, Student-t prior"},
		{Method: "sgnht", Doc: "SG Nosé–Hoover thermostat (the official DSGHMC code): adaptive friction ξ, injected noise 2ηA"},
		{Method: "sgld", Doc: "SG Langevin dynamics (Welling & Teh 2011): θ ← θ − (η/2)∇Ũ + N(0, η), η = λ/N, with either sampler"},
		{Method: "adam", Doc: "Adam on the same doubly stochastic gradient, no injected noise (a maximum-likelihood or MAP point estimate)"},
		{Method: "rws", Doc: "reweighted wake-sleep (Bornschein & Bengio 2015): Adam on the self-normalised IS gradient of log p(x) with the adaptive-is sampler, Q by the wake-phase update (sleep: true adds the sleep phase's)"},
		{Method: "wake-sleep", Doc: "wake-sleep (Hinton et al. 1995): wake phase ∇θ log p(x, h), h ~ Q; sleep phase ∇φ log Q(h | x), (h, x) ~ p; Adam on both (float64)"},
		{Method: "nvil", Doc: "NVIL (Mnih & Gregor 2014): the variational lower bound, Q by the score function with a centred, variance-normalised learning signal and an input-dependent baseline; Adam (float64)"},
	}
	if !ar {
		trainers = append(trainers, family.TrainerInfo{Method: "pg-gibbs", Doc: "batch Gibbs sampler with Pólya-Gamma augmentation (Gan et al. 2015): per epoch one sweep of every example's latents, then ω ~ PG(1, ψ) and each unit's row of weights from its Gaussian conditional, Student-t prior as a scale mixture; the last sample evaluated"},
			family.TrainerInfo{Method: "pg-vb", Doc: "mean-field variational Bayes with Pólya-Gamma augmentation (Gan et al. 2015): per epoch one pass of exact coordinate updates of q(h) (Bernoulli), q(ω) = PG(1, c), each unit's row q(w, b) Gaussian and q(τ) (Student-t prior); signal the variational bound; the posterior mean evaluated (float64)"})
	}
	estimators := []*family.Estimator{Exact, IS, AIS, BDMC, Completion}
	if !ar {
		estimators = append(estimators, MFBound)
	}
	codec := belief.TypeOf(ar)
	doc := "sigmoid belief net, p(h_L) Π_l p(h_{l−1}|h_l) with σ(W_l h_l + b_{l−1}) (Du, Zhu & Zhang 2015, eq. 11–12); arrays gen_W<l>, gen_b<l>, optional rec_W<l>, rec_c<l>"
	if ar {
		doc = "autoregressive sigmoid belief net: each layer (the top prior too) adds strictly lower-triangular within-layer weights S_l, raster order (eq. 13–14); arrays as sbn plus gen_S<l>"
	}
	return &family.Family{
		Name: name, Doc: doc, Codec: codec, OwnEvalDefaults: true,
		Model:      func() family.Settings { m := DefaultModel(); return &m },
		Train:      func() family.Settings { t := DefaultTrain(); return &t },
		Trainers:   trainers,
		Estimators: estimators,
		EveryEpoch: func() []family.Configured {
			return []family.Configured{{Name: "ais", Settings: &AISSettings{Chains: 4, Betas: 100, Examples: 50}}}
		},
		Final: func() []family.Configured {
			return []family.Configured{{Name: "ais", Settings: &AISSettings{Chains: 16, Betas: 1000, Examples: 100}}}
		},
		Plugin: Plugin{name: name, ar: ar},
	}
}

func (Plugin) NewTrainer(a family.TrainerArgs) (family.Trainer, error) {
	n := a.Model.(*belief.Net)
	m := a.ModelSettings.(*Model)
	t := a.Train.(*Train)
	belief.InitNormal(n, m.InitWeightStd, a.Seed)
	if m.InitVisibleBias == "base-rate" && len(a.BaseRate) == len(n.B[0]) {
		copy(n.B[0], a.BaseRate)
	}
	switch t.Method {
	case "pg-gibbs":
		return belief.NewPGTrainer(n, a.Data.N, t.options(a.Seed, a.Workers))
	case "pg-vb":
		return belief.NewVBTrainer(n, a.Data.N, t.options(a.Seed, a.Workers))
	}
	tr, err := belief.NewTrainer(n, a.Data.N, t.options(a.Seed, a.Workers))
	if err != nil {
		return nil, err
	}
	return tr, nil
}

// Finish warns on an is, ais or mf-bound row above the exact row of its
// evaluation beyond noise when the two were not compared example by
// example (exact listed after them): all are (stochastic) lower bounds on
// log p(x).
func (Plugin) Finish(_ models.Model, rows []report.Row, _ []family.Configured) []report.Row {
	report.CheckLowerBounds(rows, func(r *report.Row) bool {
		return r.Estimator == "is" || r.Estimator == "ais" || r.Estimator == "mf-bound"
	})
	return rows
}

// DataWarnings warns of a minibatch larger than the training set of n
// examples (family.DataWarner).
func (t *Train) DataWarnings(n int) []string { return family.BatchWarnings(t.BatchSize, n) }

// Plugin is the Plugin of the sbn and arsbn families: it builds, trains
// and samples sigmoid belief nets (autoregressive ones when ar is set).
type Plugin struct {
	name string
	ar   bool
}

// NewModel builds a net of the latent layer sizes model.layers.
func (p Plugin) NewModel(s family.Settings, visible int) (models.Model, error) {
	m := s.(*Model)
	sizes := append([]int{visible}, m.Layers...)
	if err := models.CheckSizes(p.name, sizes); err != nil {
		return nil, fmt.Errorf("model.layers: %w", err)
	}
	return belief.New(sizes, p.ar), nil
}
