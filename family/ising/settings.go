// Package ising registers the model family "ising": a fully visible
// binary pairwise MRF on a rows×cols grid (models.Ising), with spins 01
// (s = x) or pm1 (s = 2x − 1),
//
//	log p̃(x) = Σ_i h_i s_i + Σ_{<ij>} J_ij s_i s_j,
//
// trained by maximum likelihood — the gradient of the mean log-likelihood
// is E_data[T(x)] − E_p[T(x)], T the sufficient statistics (s_i and
// s_i s_j over the edges) — with the model expectation exact (forward-
// backward on the transfer matrix) or from persistent Gibbs chains, and
// evaluated by exact log Z (transfer matrix or enumeration) and AIS from
// independent bits.
package ising

import (
	"fmt"
	"math"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/models"
)

// Model is the model: section of an ising experiment.
type Model struct {
	// Rows and Cols are the grid; 0 = from the data: both 0 take a square
	// grid of the data's units, one 0 takes units / the other.
	Rows int `yaml:"rows" want:"a non-negative integer (0 = from the data)"`
	Cols int `yaml:"cols" want:"a non-negative integer (0 = from the data)"`
	// Spins is the convention s(x): "01" (s = x) or "pm1" (s = 2x − 1).
	Spins string `yaml:"spins" want:"01 or pm1"`
	// Init is the initial parameters: "zero" (the uniform distribution) or
	// "base-rate" (couplings 0, fields at the training data's smoothed
	// log-odds: h = logit for spins 01, logit/2 for pm1, so the initial
	// model has the data's marginals).
	Init string `yaml:"init" want:"zero or base-rate"`
}

// DefaultModel is a grid from the data, spins pm1, base-rate fields.
func DefaultModel() Model { return Model{Spins: "pm1", Init: "base-rate"} }

// Check reports bad model settings.
func (m *Model) Check(p family.Problems) {
	p.Check("rows", m.Rows >= 0 && m.Rows <= models.MaxUnits, fmt.Sprintf("an integer in [0, %d] (0 = from the data)", models.MaxUnits), m.Rows)
	p.Check("cols", m.Cols >= 0 && m.Cols <= models.MaxUnits, fmt.Sprintf("an integer in [0, %d] (0 = from the data)", models.MaxUnits), m.Cols)
	p.Enum("spins", m.Spins, []string{"01", "pm1"})
	p.Enum("init", m.Init, []string{"zero", "base-rate"})
}

// Grid returns the grid of a model of visible units.
func (m *Model) Grid(visible int) (rows, cols int, err error) {
	R, C := m.Rows, m.Cols
	switch {
	case visible <= 0:
		return 0, 0, fmt.Errorf("ising: the data has %d units", visible)
	case R == 0 && C == 0:
		s := int(math.Round(math.Sqrt(float64(visible))))
		if s*s != visible {
			return 0, 0, fmt.Errorf("model.rows and model.cols: the data has %d units, not a square number; set rows and cols (rows × cols = %d)", visible, visible)
		}
		R, C = s, s
	case R == 0:
		R = visible / C
	case C == 0:
		C = visible / R
	}
	if R*C != visible {
		return 0, 0, fmt.Errorf("model.rows × model.cols = %d × %d = %d, but the data has %d units", m.Rows, m.Cols, R*C, visible)
	}
	return R, C, models.CheckIsingSize(R, C)
}

// Train is the train: section of an ising experiment.
type Train struct {
	// Method is "exact" (the model expectation E_p[T] by forward-backward
	// on the transfer matrix: exact maximum likelihood, for grids whose
	// narrower side is at most 20 and whose table (D+1)·2^width fits
	// models.MaxIsingTable) or "pcd" (E_p[T] from persistent Gibbs
	// chains) or "chi2" (maximise the mean log p̃(x) minus the χ² upper
	// bound on log Z of a mixture proposal q fitted alongside, Kuleshov &
	// Ermon 2017 eq. 5–6 and §5.1; the epoch's signal is the tracked bound).
	Method string `yaml:"method" want:"exact, pcd or chi2"`
	// Epochs is the number of passes over the training set.
	Epochs int `yaml:"epochs" want:"a positive integer"`
	// BatchSize is the number of examples per gradient step.
	BatchSize int `yaml:"batch_size" want:"a positive integer"`
	// Optimizer is "adam" or "sgd" (θ ← θ + learning_rate · gradient).
	Optimizer string `yaml:"optimizer" want:"adam or sgd"`
	// LearningRate is the optimizer's step size.
	LearningRate float64 `yaml:"learning_rate" want:"a positive number"`
	// Chains and Sweeps: pcd's persistent Gibbs chains and the single-site
	// sweeps each makes per gradient step.
	Chains int `yaml:"chains" want:"a positive integer"`
	// Sweeps are the single-site Gibbs sweeps each pcd chain makes per gradient step.
	Sweeps int `yaml:"sweeps" want:"a positive integer"`
	// QSteps, QSamples, QComponents and QLearningRate configure chi2's
	// proposal: fitter steps on q per step on θ, draws from q per step
	// (the θ step uses as many fresh ones), mixture components and q's Adam
	// step size. Linearise weighs the θ step's draws by w²/(nγ) (eq. 6)
	// instead of w²/Σw².
	QSteps        int     `yaml:"q_steps" want:"a non-negative integer"`
	QSamples      int     `yaml:"q_samples" want:"an integer ≥ 2"`
	QComponents   int     `yaml:"q_components" want:"a positive integer"`
	QLearningRate float64 `yaml:"q_learning_rate" want:"a positive number"`
	// Linearise weighs chi2's θ step by w²/(nγ) (eq. 6) instead of w²/Σw².
	Linearise bool `yaml:"linearise"`
	// CheckpointEvery writes model.npz after every N-th epoch and after
	// the last; 0 = only after the last.
	CheckpointEvery int `yaml:"checkpoint_every" want:"a non-negative integer"`
	// Stopping adds early_stop (validation early stopping, every family).
	family.Stopping `yaml:",inline"`
}

// DefaultTrain is pcd with 100 chains, one sweep per step, Adam at 0.02
// on minibatches of 100, 10 epochs.
func DefaultTrain() Train {
	return Train{Method: "pcd", Epochs: 10, BatchSize: 100, Optimizer: "adam", LearningRate: 0.02, Chains: 100, Sweeps: 1, CheckpointEvery: 1,
		QSteps: 10, QSamples: 100, QComponents: 10, QLearningRate: 0.05, Linearise: true}
}

// Methods lists the training methods.
var Methods = []string{"exact", "pcd", "chi2"}

// Check reports bad train settings.
func (t *Train) Check(p family.Problems) {
	t.CheckStopping(p)
	p.Enum("method", t.Method, Methods)
	family.CheckEpochs(p, "epochs", t.Epochs)
	p.Check("batch_size", t.BatchSize >= 1 && t.BatchSize <= 100000, "an integer in [1, 100000]", t.BatchSize)
	p.Enum("optimizer", t.Optimizer, []string{"adam", "sgd"})
	p.Check("learning_rate", t.LearningRate > 0 && !math.IsInf(t.LearningRate, 0), "a positive number", t.LearningRate)
	p.Check("chains", t.Chains >= 1 && t.Chains <= family.MaxRuns, fmt.Sprintf("an integer in [1, %d]", family.MaxRuns), t.Chains)
	p.Check("sweeps", t.Sweeps >= 1 && t.Sweeps <= 10000, "an integer in [1, 10000]", t.Sweeps)
	p.Check("q_steps", t.QSteps >= 0 && t.QSteps <= 10000, "an integer in [0, 10000]", t.QSteps)
	p.Check("q_samples", t.QSamples >= 2 && t.QSamples <= family.MaxRuns, fmt.Sprintf("an integer in [2, %d]", family.MaxRuns), t.QSamples)
	p.Check("q_components", t.QComponents >= 1 && t.QComponents <= chi2.MaxComponents, fmt.Sprintf("an integer in [1, %d]", chi2.MaxComponents), t.QComponents)
	p.Check("q_learning_rate", t.QLearningRate > 0 && !math.IsInf(t.QLearningRate, 0), "a positive number", t.QLearningRate)
	p.Check("checkpoint_every", t.CheckpointEvery >= 0, "a non-negative integer", t.CheckpointEvery)
	switch {
	case t.Method == "pcd" && t.Chains <= family.MaxRuns && t.Sweeps >= 1 && t.Sweeps <= 10000:
		family.CheckUpdateSweeps(p, "sweeps", t.Sweeps, "chains", t.Chains)
	case t.Method == "chi2" && t.QSteps >= 1 && t.QSteps <= 10000 && t.QSamples <= family.MaxRuns:
		family.CheckUpdateDraws(p, t.QSteps, t.QSamples)
	}
}

// CheckpointDue reports whether model.npz is written after epoch e.
func (t *Train) CheckpointDue(e int) bool {
	return e == t.Epochs || (t.CheckpointEvery > 0 && e%t.CheckpointEvery == 0)
}

// DataWarnings warns of a minibatch larger than the training set of n
// examples (family.DataWarner).
func (t *Train) DataWarnings(n int) []string { return family.BatchWarnings(t.BatchSize, n) }
