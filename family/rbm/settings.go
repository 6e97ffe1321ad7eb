// Package rbm is the model family "rbm": binary restricted Boltzmann
// machines trained by CD-k or PCD, with exact, AIS, RAISE, CSL,
// pseudo-log-likelihood and reconstruction-error estimators. Its Train
// settings are also the per-layer settings of the dbn and dbm families.
package rbm

import (
	"fmt"
	"math"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/models"
)

// Model is the model: section of an rbm.
type Model struct {
	// Hidden is the number of hidden units.
	Hidden int `yaml:"hidden" want:"a positive integer"`
	Init   `yaml:",inline"`
}

// Init is how the parameters start (shared with the dbn and dbm families).
type Init struct {
	// InitWeightStd is σ of the initial weights W_ij ~ N(0, σ²).
	InitWeightStd float64 `yaml:"init_weight_std" want:"a non-negative number"`
	// InitVisibleBias is "base-rate" (a_i = log(p_i/(1−p_i)) with p_i the
	// smoothed training mean of unit i) or "zero". Hidden biases start at 0.
	InitVisibleBias string `yaml:"init_visible_bias" want:"base-rate or zero"`
}

// DefaultInit is N(0, 0.01²) weights and base-rate visible biases.
func DefaultInit() Init { return Init{InitWeightStd: 0.01, InitVisibleBias: "base-rate"} }

// Check reports bad initialisation settings.
func (i *Init) Check(p family.Problems) {
	p.Check("init_weight_std", i.InitWeightStd >= 0 && finite(i.InitWeightStd), "a non-negative number", i.InitWeightStd)
	p.Enum("init_visible_bias", i.InitVisibleBias, []string{"base-rate", "zero"})
}

// BaseRateVBias reports whether visible biases start at the base rate.
func (i *Init) BaseRateVBias() bool { return i.InitVisibleBias == "base-rate" }

// Check reports bad model settings.
func (m *Model) Check(p family.Problems) {
	p.Check("hidden", m.Hidden >= 1, "a positive integer", m.Hidden)
	p.Check("hidden", m.Hidden <= models.MaxUnits, fmt.Sprintf("at most %d units per layer (models.MaxUnits)", models.MaxUnits), m.Hidden)
	m.Init.Check(p)
}

// Legacy accepts the key "layers" of format-1 configs, which every rbm
// carried empty.
func (m *Model) Legacy() map[string]any { return map[string]any{"layers": []int(nil)} }

// Train is the rbm's train: section: the sampling-based settings of Layer
// (CD-k or PCD with SGD, momentum and L2 weight decay; its schedules make
// Train a train.Schedule) and the keys of χ² learning with Adam (method
// chi2, the rbm family only).
type Train struct {
	Layer `yaml:",inline"`
	// Chi2Train holds the settings of method chi2 (its own keys of train:).
	Chi2Train       `yaml:",inline"`
	family.Stopping `yaml:",inline"`
}

// Layer configures CD-k or PCD with SGD, momentum and L2 weight decay: the
// train: keys an rbm shares with the layer-wise training of the dbn and dbm
// families. Its methods KAt, LearningRateAt and MomentumAt give the
// per-epoch schedules (Layer satisfies train.Schedule).
type Layer struct {
	// Method is "cd" (CD-k, chains start at the data) or "pcd" (persistent
	// chains); an rbm also accepts "chi2" (the χ² variational bound of
	// Kuleshov & Ermon 2017 §4 with a fitted mixture q; see
	// train.RBMChi2Trainer).
	Method string `yaml:"method" want:"cd, pcd or chi2 (chi2: an rbm only)"`
	// K is the number of block-Gibbs steps per update (at epoch 1).
	K int `yaml:"k" want:"a positive integer"`
	// KEnd, if non-zero, makes k grow linearly from K at epoch 1 to KEnd at
	// the last epoch (the 2008 paper's CD 1→25); see KAt.
	KEnd int `yaml:"k_end" want:"a non-negative integer (0 = constant k)"`
	// Chains is the number of persistent chains for PCD; 0 in the file
	// means BatchSize, and after Check it holds the count in use. Must be 0
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
	LRSchedule string `yaml:"lr_schedule" want:"constant, linear or exponential"`
	// LREnd is the learning rate at the last epoch of the linear schedule.
	LREnd float64 `yaml:"lr_end" want:"a non-negative number"`
	// LRDecay is the factor per epoch of the exponential schedule.
	LRDecay float64 `yaml:"lr_decay" want:"a number in (0,1]"`
	// Momentum applies before MomentumSwitchEpoch, FinalMomentum from it on.
	Momentum float64 `yaml:"momentum" want:"a number in [0,1)"`
	// FinalMomentum is the momentum from momentum_switch_epoch on.
	FinalMomentum float64 `yaml:"final_momentum" want:"a number in [0,1)"`
	// MomentumSwitchEpoch is the (1-based) epoch from which final_momentum applies.
	MomentumSwitchEpoch int `yaml:"momentum_switch_epoch" want:"a positive integer (1-based epoch)"`
	// WeightDecay is the L2 penalty λ on W (biases are not decayed).
	WeightDecay float64 `yaml:"weight_decay" want:"a non-negative number"`
	// CheckpointEvery writes model.npz after every N-th epoch and always
	// after the last; 0 = only after the last.
	CheckpointEvery int `yaml:"checkpoint_every" want:"a non-negative integer"`
	// Shuffle reshuffles the training set before each epoch.
	Shuffle bool `yaml:"shuffle" want:"true or false"`
	// Precision is "float32" or "float64" for cd and pcd: float32 runs the
	// Gibbs sweeps and the gradient's sums on float32 copies of the weights
	// (half the memory traffic, twice the SIMD lanes, about 1.5–2× faster on
	// 784×500) while the parameters, their velocities and the update stay
	// float64; the numbers then agree with float64 training to float32
	// rounding, not bit for bit, and paired runs on MNIST learn the same
	// test log-likelihood (docs/runs/paired-rbm-precision). Unset it is
	// float32 for cd and pcd (DefaultPrecision); after Check it holds the
	// precision in use. In a dbm it applies to the pretraining RBMs (joint
	// training is float64); chi2 is float64 only. Evaluation is float64
	// whatever it is.
	Precision string `yaml:"precision" want:"float32 or float64 (unset: float32 for cd and pcd, float64 for an rbm's chi2; float32: sums of the Gibbs sweeps and gradient in float32, parameters float64)"`
}

// Chi2Train are the train: keys of method chi2, which maximises
// (1/B) Σ_batch log p̃_θ(v) − ½ log E_q[(p̃_θ/q)²] over θ by Adam (step
// learning_rate on its schedule; β₁ = 0.9, β₂ = 0.999, ε = 1e-8; momentum
// and final_momentum must be 0) alternating with q_steps fitter steps on
// q, a uniform mixture of q_components Bernoulli products that starts at
// the data's base-rate logits plus N(0, q_init_std²) noise. They must stay
// at their defaults for cd and pcd.
type Chi2Train struct {
	// QSteps is the number of fitter steps on q per θ step (the paper uses
	// 10 or 2).
	QSteps int `yaml:"q_steps" want:"a positive integer"`
	// QSamples is the number of draws from q per fitter step and for each
	// θ step's negative phase.
	QSamples int `yaml:"q_samples" want:"an integer ≥ 2"`
	// QComponents is the number of mixture components of q.
	QComponents int `yaml:"q_components" want:"a positive integer"`
	// QLearningRate is the step size of q's own Adam (on its logits).
	QLearningRate float64 `yaml:"q_learning_rate" want:"a positive number"`
	// QDecay is the weight of the past in the fitter's moving averages
	// (γ ≈ E_q[w²], the baseline and the signal's variance).
	QDecay float64 `yaml:"q_decay" want:"a number in [0,1)"`
	// QInitStd is σ of the noise on q's initial logits.
	QInitStd float64 `yaml:"q_init_std" want:"a non-negative number"`
	// Linearise weights the negative phase by w_i²/(nγ) (eq. 6, unbiased
	// for the running γ); false: self-normalised w_i²/Σ_j w_j².
	Linearise bool `yaml:"linearise" want:"true or false"`
}

// DefaultChi2Train is the paper's §5.2 setting: 10 q steps of 30 draws per θ
// step, a mixture of 10 components, q's Adam at 0.01 with averages of decay
// 0.9, initial noise 0.1, linearised weights.
func DefaultChi2Train() Chi2Train {
	return Chi2Train{QSteps: 10, QSamples: 30, QComponents: 10, QLearningRate: 0.01, QDecay: 0.9, QInitStd: 0.1, Linearise: true}
}

// MaxQSamples bounds q_samples, and MaxQSteps q_steps (far above the
// paper's 30 and 10; they keep a typo from stalling training).
const (
	MaxQSamples = 100_000
	MaxQSteps   = 10_000
)

// Check reports bad chi2 settings (method chi2 of the rbm family; the vae
// family's prior fitter).
func (c *Chi2Train) Check(p family.Problems) {
	p.Check("q_steps", c.QSteps >= 1 && c.QSteps <= MaxQSteps, fmt.Sprintf("a positive integer ≤ %d", MaxQSteps), c.QSteps)
	p.Check("q_samples", c.QSamples >= 2 && c.QSamples <= MaxQSamples, fmt.Sprintf("an integer in [2, %d]", MaxQSamples), c.QSamples)
	p.Check("q_components", c.QComponents >= 1 && c.QComponents <= chi2.MaxComponents, fmt.Sprintf("an integer in [1, %d]", chi2.MaxComponents), c.QComponents)
	p.Check("q_learning_rate", c.QLearningRate > 0 && finite(c.QLearningRate), "a positive number", c.QLearningRate)
	p.Check("q_decay", c.QDecay >= 0 && c.QDecay < 1, "a number in [0,1)", c.QDecay)
	p.Check("q_init_std", c.QInitStd >= 0 && finite(c.QInitStd), "a non-negative number", c.QInitStd)
	if c.QSteps <= MaxQSteps && c.QSamples <= MaxQSamples {
		family.CheckUpdateDraws(p, c.QSteps, c.QSamples)
	}
}

// DefaultTrain is CD-1 for 10 epochs, minibatch 100, learning rate 0.05,
// momentum 0.5 → 0.9 from epoch 5, weight decay 0.0002, a checkpoint after
// every epoch, shuffled, in the method's default precision (precision
// unset: Check resolves it, float32 for cd and pcd, float64 for chi2).
func DefaultTrain() Train {
	l := DefaultLayer()
	l.Precision = ""
	return Train{Layer: l, Chi2Train: DefaultChi2Train()}
}

// DefaultPrecision is the precision of training by method when
// train.precision is unset: float32 for cd and pcd (the sums of the Gibbs
// sweeps and the gradient; a paired comparison on MNIST found the same
// test log-likelihood as float64 within the spread between seeds), float64
// for chi2, which has no float32 path.
func DefaultPrecision(method string) string {
	if method == "chi2" {
		return "float64"
	}
	return "float32"
}

// Added lists precision, a key added after float64 training runs were made
// without it (family.AddedKeys).
func (t *Layer) Added() []string { return []string{"precision"} }

// SetBefore sets precision to float64, the precision of every run made
// before the key existed (family.AddedKeys).
func (t *Layer) SetBefore(key string) {
	if key == "precision" {
		t.Precision = "float64"
	}
}

// PrecisionInUse is Precision, or the method's default while it is unset
// (before Check resolves it).
func (t *Layer) PrecisionInUse() string {
	if t.Precision == "" {
		return DefaultPrecision(t.Method)
	}
	return t.Precision
}

// DefaultLayer is DefaultTrain's sampling-based part, and the layer-wise
// training of the dbn and dbm families (cd or pcd, so float32).
func DefaultLayer() Layer {
	return Layer{
		Method: "cd", K: 1, Epochs: 10, BatchSize: 100,
		LearningRate: 0.05, LRSchedule: "constant", LRDecay: 1.0,
		Momentum: 0.5, FinalMomentum: 0.9, MomentumSwitchEpoch: 5,
		WeightDecay: 0.0002, CheckpointEvery: 1, Shuffle: true, Precision: DefaultPrecision("cd"),
	}
}

// MaxBatch bounds batch_size and the PCD chains: the trainer keeps a D×H
// gradient per 25 examples or chains, so 10,000 (100 times the papers'
// minibatches of 100) already means 400 gradient copies.
const MaxBatch = 10_000

// Methods are the sampling-based methods (also those of layer-wise
// training in the dbn and dbm families).
var Methods = []string{"cd", "pcd"}

// TrainMethods are the accepted values of an rbm's method.
var TrainMethods = []string{"cd", "pcd", "chi2"}

// Check resolves PCD's chains (0 = the batch size) and an unset precision
// (DefaultPrecision of the method) and reports bad settings of an rbm's
// train: section (method cd, pcd or chi2).
func (t *Train) Check(p family.Problems) {
	t.CheckStopping(p)
	t.Layer.check(p, TrainMethods)
	if t.Method == "chi2" {
		t.Chi2Train.Check(p)
		if t.Momentum != 0 || t.FinalMomentum != 0 {
			p.Crossf("", "momentum", "method \"chi2\" steps with Adam (β₁ = 0.9 is its momentum): set momentum: 0 and final_momentum: 0 (got %v and %v), and a learning_rate for Adam (about 0.001)", t.Momentum, t.FinalMomentum)
		}
		if t.Precision != "float64" {
			p.Crossf("precision", "precision", "method \"chi2\" trains in float64 only (precision is %q); remove it or set precision: float64", t.Precision)
		}
	} else if t.Chi2Train != DefaultChi2Train() {
		p.Crossf("", "q_steps", "q_steps, q_samples, q_components, q_learning_rate, q_decay, q_init_std and linearise are only used by method \"chi2\" (method is %q); remove them", t.Method)
	}
}

// Check resolves PCD's chains (0 = the batch size) and an unset precision
// (float32) and reports bad settings of layer-wise training (method cd or
// pcd).
func (t *Layer) Check(p family.Problems) { t.check(p, Methods) }

func (t *Layer) check(p family.Problems, methods []string) {
	if t.Method == "pcd" && t.Chains == 0 {
		t.Chains = t.BatchSize
	}
	t.Precision = t.PrecisionInUse()
	p.Enum("method", t.Method, methods)
	family.CheckK(p, "k", t.K)
	if t.KEnd != 0 && t.KEnd < t.K {
		p.Crossf("", "k_end", "k_end must be 0 (constant k) or ≥ k (%d), got %d", t.K, t.KEnd)
	}
	family.CheckMax(p, "k_end", t.KEnd, family.MaxK, "family.MaxK")
	switch t.Method {
	case "pcd":
		if t.Chains < 1 {
			p.Crossf("", "chains", "method \"pcd\" needs chains ≥ 1, got %d", t.Chains)
		}
	case "cd", "chi2":
		if t.Chains != 0 {
			p.Crossf("", "chains", "method %q needs chains = 0 (persistent chains are for pcd), got %d", t.Method, t.Chains)
		}
	}
	family.CheckEpochs(p, "epochs", t.Epochs)
	p.Check("batch_size", t.BatchSize >= 1, "a positive integer", t.BatchSize)
	p.Check("batch_size", t.BatchSize <= MaxBatch, fmt.Sprintf("at most %d (rbm.MaxBatch; the trainer keeps a D×H gradient per 25 examples)", MaxBatch), t.BatchSize)
	p.Check("chains", t.Chains <= MaxBatch, fmt.Sprintf("at most %d persistent chains (rbm.MaxBatch; the trainer keeps a D×H gradient per 25 chains)", MaxBatch), t.Chains)
	t.checkUpdateSweeps(p)
	p.Check("learning_rate", t.LearningRate > 0 && finite(t.LearningRate), "a positive number", t.LearningRate)
	if p.Enum("lr_schedule", t.LRSchedule, []string{"constant", "linear", "exponential"}) {
		if t.LRSchedule == "linear" {
			if !(t.LREnd >= 0 && t.LREnd < t.LearningRate) {
				p.Crossf("", "lr_end", "lr_schedule \"linear\" needs 0 ≤ lr_end < learning_rate (%v), got lr_end %v", t.LearningRate, t.LREnd)
			}
		} else if t.LREnd != 0 {
			p.Crossf("lr_end", "lr_end", "only used by lr_schedule \"linear\" (lr_schedule is %q); remove it or set lr_schedule: linear", t.LRSchedule)
		}
		if t.LRSchedule == "exponential" {
			if !(t.LRDecay > 0 && t.LRDecay <= 1) {
				p.Crossf("", "lr_decay", "lr_schedule \"exponential\" needs 0 < lr_decay ≤ 1, got %v", t.LRDecay)
			}
		} else if t.LRDecay != 1 {
			p.Crossf("lr_decay", "lr_decay", "only used by lr_schedule \"exponential\" (lr_schedule is %q); remove it or set lr_schedule: exponential", t.LRSchedule)
		}
	}
	p.Check("momentum", t.Momentum >= 0 && t.Momentum < 1, "a number in [0,1)", t.Momentum)
	p.Check("final_momentum", t.FinalMomentum >= 0 && t.FinalMomentum < 1, "a number in [0,1)", t.FinalMomentum)
	p.Check("momentum_switch_epoch", t.MomentumSwitchEpoch >= 1, "a positive integer (1-based epoch)", t.MomentumSwitchEpoch)
	p.Check("weight_decay", t.WeightDecay >= 0 && finite(t.WeightDecay), "a non-negative number", t.WeightDecay)
	p.Check("checkpoint_every", t.CheckpointEvery >= 0, "a non-negative integer", t.CheckpointEvery)
	p.Enum("precision", t.Precision, []string{"float64", "float32"})
}

// checkUpdateSweeps reports a CD or PCD update of too many Gibbs sweeps:
// the largest k of the schedule times the chains it runs on (the minibatch
// for cd, the persistent chains for pcd).
func (t *Layer) checkUpdateSweeps(p family.Problems) {
	if t.BatchSize > MaxBatch || t.Chains > MaxBatch || t.KEnd > family.MaxK {
		return // reported at its key
	}
	kRel, k := "k", t.K
	if t.KEnd > t.K {
		kRel, k = "k_end", t.KEnd
	}
	switch t.Method {
	case "cd":
		family.CheckUpdateSweeps(p, kRel, k, "batch_size", t.BatchSize)
	case "pcd":
		family.CheckUpdateSweeps(p, kRel, k, "chains", t.Chains)
	}
}

// Legacy accepts the dbn and dbm keys that format-1 configs carried for
// every model type, at their old defaults.
func (t *Train) Legacy() map[string]any { return LegacyTrainKeys() }

// LegacyPretrain is the train.pretrain mapping of format-1 configs.
type LegacyPretrain struct {
	Epochs       int     `yaml:"epochs"`
	Method       string  `yaml:"method"`
	K            int     `yaml:"k"`
	LearningRate float64 `yaml:"learning_rate"`
}

// LegacyTrainKeys returns the train: keys of format-1 configs that belong to
// the dbn (layer_data, transpose_init) and dbm (mean_field_iters, pretrain)
// families, with the values every other model type carried, minus keep.
func LegacyTrainKeys(keep ...string) map[string]any {
	m := map[string]any{
		"layer_data":       "sampled",
		"transpose_init":   false,
		"mean_field_iters": 10,
		"pretrain":         LegacyPretrain{Epochs: 0, Method: "cd", K: 1, LearningRate: 0.05},
	}
	for _, k := range keep {
		delete(m, k)
	}
	return m
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// clampEpoch maps epoch into [1, max(Epochs,1)]: epochs before the first
// use the first epoch's settings, epochs after the last the last's.
func (t Layer) clampEpoch(epoch int) int {
	return max(1, min(epoch, max(t.Epochs, 1)))
}

// KAt returns the number of Gibbs steps k for a 1-based epoch e. With
// KEnd = 0 it is K. Otherwise k grows linearly over the E = Epochs epochs,
//
//	k(e) = K + round((KEnd − K)·(e − 1)/(E − 1)),
//
// rounding halves up, so k(1) = K and k(E) = KEnd exactly (k = K if E = 1).
// Epochs outside [1, E] are clamped into it.
func (t Layer) KAt(epoch int) int {
	if t.KEnd == 0 || t.Epochs <= 1 {
		return t.K
	}
	e := t.clampEpoch(epoch)
	num := (t.KEnd - t.K) * (e - 1)
	den := t.Epochs - 1
	// round(num/den) with halves up = ⌊(2·num + den)/(2·den)⌋.
	x, y := 2*num+den, 2*den
	q := x / y
	if x%y != 0 && x < 0 {
		q-- // Go division truncates toward zero; we want the floor
	}
	return t.K + q
}

// EpochCost is the relative cost of epoch e for the run's ETA: a CD-k or
// PCD-k update is one positive pass and k Gibbs sweeps, so 1 + k(e); χ²
// epochs all cost the same. (On Train, not Layer: the dbn and dbm, which
// embed Layer, count their epochs differently.)
func (t *Train) EpochCost(epoch, _ int) float64 {
	if t.Method == "chi2" {
		return 1
	}
	return 1 + float64(t.KAt(epoch))
}

// LearningRateAt returns the learning rate ε(e) for a 1-based epoch e, with
// ε₀ = LearningRate and E = Epochs:
//
//	constant:     ε(e) = ε₀
//	linear:       ε(e) = (1 − t)·ε₀ + t·LREnd,  t = (e − 1)/(E − 1)  (t = 0 if E = 1)
//	exponential:  ε(e) = ε₀ · LRDecay^(e − 1)
//
// so ε(1) = ε₀ and, for linear, ε(E) = LREnd exactly. Epochs outside [1, E]
// are clamped into it.
func (t Layer) LearningRateAt(epoch int) float64 {
	e := t.clampEpoch(epoch)
	switch t.LRSchedule {
	case "linear":
		if t.Epochs <= 1 {
			return t.LearningRate
		}
		s := float64(e-1) / float64(t.Epochs-1)
		return (1-s)*t.LearningRate + s*t.LREnd
	case "exponential":
		return t.LearningRate * math.Pow(t.LRDecay, float64(e-1))
	default:
		return t.LearningRate
	}
}

// MomentumAt returns the momentum μ(e) for a 1-based epoch e: Momentum for
// e < MomentumSwitchEpoch and FinalMomentum from it on.
func (t Layer) MomentumAt(epoch int) float64 {
	if epoch < t.MomentumSwitchEpoch {
		return t.Momentum
	}
	return t.FinalMomentum
}

// CheckpointDue reports whether model.npz is written after the 1-based
// epoch e: when CheckpointEvery > 0 divides e, and always after the last.
func (t Layer) CheckpointDue(epoch int) bool {
	return epoch == t.Epochs || (t.CheckpointEvery > 0 && epoch%t.CheckpointEvery == 0)
}

// DataWarnings warns of a minibatch larger than the training set of n
// examples (family.DataWarner).
func (t *Layer) DataWarnings(n int) []string { return family.BatchWarnings(t.BatchSize, n) }
