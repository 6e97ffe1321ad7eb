package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/optim"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// Seed labels of the trainer's random streams (seeds.Derive(seed, label, …)).
const (
	isingSeedShuffle = 1 // (epoch): the order of the examples
	isingSeedChain   = 2 // (epoch, step, chain): one chain's sweeps of one step
	isingSeedInit    = 3 // (chain): a chain's uniform initial state
)

// IsingOptions configures an IsingTrainer.
type IsingOptions struct {
	// Method is "exact" (E_p[T] by forward-backward on the transfer
	// matrix), "pcd" (E_p[T] from persistent Gibbs chains) or "chi2"
	// (a Chi2Learner with a mixture proposal).
	Method    string
	BatchSize int
	// SGD takes plain gradient-ascent steps θ ← θ + LearningRate·g instead
	// of Adam's.
	SGD          bool
	LearningRate float64
	// Chains and Sweeps: pcd's persistent Gibbs chains and the single-site
	// sweeps each makes per step.
	Chains, Sweeps int
	// QSteps, QSamples, QComponents and QLearningRate configure chi2's
	// proposal: fitter steps on q per step on θ, draws per step, mixture
	// components and q's Adam step size. Linearise weighs the θ step's
	// draws by w²/(nγ) (eq. 6) instead of w²/Σw².
	QSteps, QSamples, QComponents int
	QLearningRate                 float64
	Linearise                     bool
	// Epochs is the number of epochs to train (the trainer's Total).
	Epochs int
}

// IsingTrainer fits an Ising model by maximum likelihood. Each step on a
// minibatch B ascends the gradient of the mean log-likelihood,
//
//	g = (1/|B|) Σ_{x∈B} T(x) − E_p[T(x)],
//
// with E_p[T] exact (method exact: forward-backward on the transfer
// matrix) or the mean of T over Chains persistent Gibbs chains, each
// advanced Sweeps single-site sweeps per step (method pcd), by Adam or
// plain gradient ascent. Every random draw comes from a generator seeded
// by seeds.Derive(Seed, purpose, …): the epoch's shuffle, and each chain's
// sweeps of each step — so results do not depend on Workers or GOMAXPROCS,
// and a checkpoint needs no generator state.
type IsingTrainer struct {
	M    *models.Ising
	Opt  IsingOptions
	Seed uint64
	// Workers is the number of goroutines of the pcd chains; 0 = GOMAXPROCS.
	Workers int
	epochs

	adam   optim.Adam
	chains []uint8 // Chains × D
	pcg    []*rand.PCG
	rng    []*rand.Rand
	grad   []float64
	stat   []float64 // Chains × P per-chain statistics
	perm   []int
	chi    *Chi2Learner
}

// isingSeedChi2 labels the χ² learner's generator (checkpointed with it).
const isingSeedChi2 = 4

// isingMRF is an Ising model as an MRF: ∇_θ log p̃_θ(x) = T(x), the
// sufficient statistics.
type isingMRF struct{ *models.Ising }

func (isingMRF) Changed()                                            {}
func (m isingMRF) AddGradLogP(x []uint8, scale float64, g []float64) { m.AddStats(g, x, scale) }

// NewIsingTrainer returns a trainer of m (pcd chains start uniformly random).
func NewIsingTrainer(m *models.Ising, opt IsingOptions, seed uint64, workers int) (*IsingTrainer, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if opt.Method == "exact" {
		if err := m.TableFeasible(); err != nil {
			return nil, fmt.Errorf("train.method exact: %w; use method pcd", err)
		}
	} else if opt.Method != "pcd" && opt.Method != "chi2" {
		return nil, fmt.Errorf("train.method %q: expected exact, pcd or chi2", opt.Method)
	}
	P, D := len(m.Params()), m.NumVisible()
	t := &IsingTrainer{M: m, Opt: opt, Seed: seed, Workers: workers, epochs: epochs{total: opt.Epochs}, adam: optim.NewAdam(opt.LearningRate, P), grad: make([]float64, P)}
	if opt.Method == "pcd" {
		t.chains = make([]uint8, opt.Chains*D)
		t.stat = make([]float64, opt.Chains*P)
		t.pcg = make([]*rand.PCG, opt.Chains)
		t.rng = make([]*rand.Rand, opt.Chains)
		for c := range opt.Chains {
			t.pcg[c] = rand.NewPCG(seeds.Derive(seed, isingSeedInit, uint64(c)), 0)
			t.rng[c] = rand.New(t.pcg[c])
			for i := range D {
				t.chains[c*D+i] = uint8(t.rng[c].IntN(2))
			}
		}
	}
	if opt.Method == "chi2" {
		if err := t.startChi2(nil); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// startChi2 builds the χ² learner with a mixture proposal whose logits are
// the data's base rate (nil: uniform) plus N(0, 0.1²) noise.
func (t *IsingTrainer) startChi2(base []float64) error {
	o := t.Opt
	rng := rand.New(rand.NewPCG(seeds.Derive(t.Seed, isingSeedChi2, 0), 0))
	q, err := chi2.NewMixture(t.M.NumVisible(), o.QComponents, base, 0.1, rng)
	if err != nil {
		return err
	}
	t.chi, err = NewChi2Learner(isingMRF{t.M}, q, MRFChi2Options{
		BatchSize: o.BatchSize, LearningRate: o.LearningRate, SGD: o.SGD, QSteps: o.QSteps,
		Fit:            chi2.FitOptions{Samples: o.QSamples, LearningRate: o.QLearningRate, Decay: 0.9},
		SelfNormalised: !o.Linearise, Shuffle: true,
	}, seeds.Derive(t.Seed, isingSeedChi2, 1))
	return err
}

// InitBaseRate sets the couplings to 0 and the fields so that each site
// has the marginal log-odds lo_i: h_i = lo_i (spins 01) or lo_i/2 (pm1);
// method chi2's proposal starts at that product too (else uniform, the
// zero model).
func (t *IsingTrainer) InitBaseRate(lo []float64) {
	clear(t.M.Params())
	for i, l := range lo {
		if t.M.Spins == models.SpinsPM1 {
			l /= 2
		}
		t.M.Fields[i] = l
	}
	if t.chi != nil {
		// q starts at the model's starting distribution, the product of
		// the marginals (it cannot fail: it succeeded with nil).
		if err := t.startChi2(lo); err != nil {
			panic(err)
		}
	}
}

// Signals of the epoch summary (its ReconError): for method exact the mean
// exact log-likelihood of the minibatches before their steps; for pcd the
// root mean square of the gradient; for chi2 the χ² learner's bound on
// log Z at the epoch's final θ (SignalChi2LogZ).
const (
	SignalLogLik  = "loglik"
	SignalGradRMS = "grad-rms"
)

// TrainEpoch makes one pass over x in an order drawn for the epoch.
func (t *IsingTrainer) TrainEpoch(x data.Examples) (EpochSummary, error) {
	N, D := x.Len(), t.M.NumVisible()
	if N == 0 {
		return EpochSummary{}, errors.New("ising trainer: no training examples")
	}
	if len(x.Row(0)) != D {
		return EpochSummary{}, fmt.Errorf("ising trainer: examples have %d units, the model %d", len(x.Row(0)), D)
	}
	st := EpochSummary{LearningRate: t.Opt.LearningRate, Signal: SignalGradRMS}
	switch t.Opt.Method {
	case "exact":
		st.Signal = SignalLogLik
	case "pcd":
		st.K = t.Opt.Sweeps
	case "chi2":
		st.Signal = SignalChi2LogZ
		t.chi.Opt.OnBatch = t.onBatch
		c, err := t.chi.TrainEpoch(x)
		t.done = t.chi.Epoch
		if err == nil {
			err = t.M.Validate()
		}
		if err != nil {
			return st, fmt.Errorf("ising trainer: %w", err)
		}
		st.Epoch, st.ReconError = t.done, c.EndLogZ
		return st, nil
	}
	t.perm = Order(t.perm, N, true, rand.New(rand.NewPCG(seeds.Derive(t.Seed, isingSeedShuffle, uint64(t.done)), 0)))
	B := t.Opt.BatchSize
	steps := (N + B - 1) / B
	b, err := Minibatches(t.perm, B, t.onBatch, func(b int, batch []int) error {
		g := t.grad
		clear(g)
		lp := 0.0
		for _, n := range batch {
			t.M.AddStats(g, x.Row(n), 1/float64(len(batch)))
			lp += t.M.LogUnnorm(x.Row(n))
		}
		lp /= float64(len(batch))
		if t.Opt.Method == "exact" {
			logZ, e, err := t.M.ExpectedStats()
			if err != nil {
				return err
			}
			for k := range g {
				g[k] -= e[k]
			}
			st.ReconError += (lp - logZ) / float64(steps)
		} else {
			t.pcdStats(b)
			rms := 0.0
			for _, v := range g {
				rms += v * v
			}
			st.ReconError += math.Sqrt(rms/float64(len(g))) / float64(steps)
		}
		if t.Opt.SGD {
			for k, v := range g {
				t.M.Params()[k] += t.Opt.LearningRate * v
			}
		} else {
			t.adam.Step(t.M.Params(), g, -1)
		}
		return nil
	}, t.M.Validate)
	if err != nil {
		return st, fmt.Errorf("ising trainer: %w at epoch %d, step %d: %v", ErrDiverged, t.done+1, b, err)
	}
	t.done++
	st.Epoch = t.done
	return st, nil
}

// Current is the model being trained, M.
func (t *IsingTrainer) Current() models.Model { return t.M }

// EpochSettings are the epoch line's settings, named as the train: keys:
// the method, the optimizer and its learning rate, and pcd's chains and
// sweeps or chi2's proposal fitting.
func (t *IsingTrainer) EpochSettings(EpochSummary) string {
	o := t.Opt
	opt := "adam"
	if o.SGD {
		opt = "sgd"
	}
	s := fmt.Sprintf("%s %s lr=%.4g", o.Method, opt, o.LearningRate)
	switch o.Method {
	case "pcd":
		s += fmt.Sprintf(" chains=%d sweeps=%d", o.Chains, o.Sweeps)
	case "chi2":
		s += fmt.Sprintf(" q_steps=%d q_samples=%d q_components=%d", o.QSteps, o.QSamples, o.QComponents)
	}
	return s
}

// pcdStats advances every chain Sweeps sweeps (chain c with the generator
// of (epoch, step, c)) and subtracts the chains' mean T from t.grad; the
// per-chain statistics are summed in chain order.
func (t *IsingTrainer) pcdStats(step int) {
	D, P, C := t.M.NumVisible(), len(t.grad), t.Opt.Chains
	workers := t.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg workgroup.Group
	for range min(workers, C) {
		wg.Go(func() {
			for {
				c := int(next.Add(1) - 1)
				if c >= C {
					return
				}
				t.pcg[c].Seed(seeds.Derive(t.Seed, isingSeedChain, uint64(t.done), uint64(step), uint64(c)), 0)
				x := t.chains[c*D : (c+1)*D]
				for range t.Opt.Sweeps {
					t.M.GibbsSweep(x, 1, nil, t.rng[c])
				}
				s := t.stat[c*P : (c+1)*P]
				clear(s)
				t.M.AddStats(s, x, 1)
			}
		})
	}
	wg.Wait()
	w := 1 / float64(C)
	for c := range C {
		for k, v := range t.stat[c*P : (c+1)*P] {
			t.grad[k] -= w * v
		}
	}
}

// isingTrainState is the non-array trainer state kept in model.npz meta.
type isingTrainState struct {
	Epoch  int    `json:"epoch"`
	Seed   uint64 `json:"seed"`
	Method string `json:"method"`
	Chains int    `json:"chains,omitempty"`
	AdamT  int    `json:"adam_t"`
}

// Checkpoint returns the model with the state to resume exactly: Adam's
// moments (state_adam_m, state_adam_s), the pcd chains (state_chains),
// and epoch, seed and Adam's step count in meta. Arrays alias the
// trainer's buffers: save before training further.
func (t *IsingTrainer) Checkpoint(experiment string) (*models.Checkpoint, error) {
	st := isingTrainState{Epoch: t.done, Seed: t.Seed, Method: t.Opt.Method, AdamT: t.adam.T}
	P := len(t.grad)
	c := &models.Checkpoint{
		Model: t.M,
		State: map[string]models.Array{"adam_m": {Shape: []int{P}, Data: t.adam.M}, "adam_s": {Shape: []int{P}, Data: t.adam.S}},
	}
	if t.chi != nil {
		arrays, bytes, err := t.chi.State()
		if err != nil {
			return nil, err
		}
		maps.Copy(c.State, arrays)
		c.Bytes = bytes
	}
	if t.chains != nil {
		st.Chains = t.Opt.Chains
		ch := make([]float64, len(t.chains))
		for i, v := range t.chains {
			ch[i] = float64(v)
		}
		c.State["chains"] = models.Array{Shape: []int{t.Opt.Chains, t.M.NumVisible()}, Data: ch}
	}
	js, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	c.Meta = models.Meta{Experiment: experiment, Epoch: t.done, Train: js}
	return c, nil
}

// Resume restores the trainer from a checkpoint written by Checkpoint
// (same grid, spins, method and number of chains).
func (t *IsingTrainer) Resume(c *models.Checkpoint) error {
	m, ok := c.Model.(*models.Ising)
	if !ok {
		return fmt.Errorf("checkpoint holds a %s, not an ising", c.Model.TypeName())
	}
	if m.Rows != t.M.Rows || m.Cols != t.M.Cols || m.Spins != t.M.Spins {
		return fmt.Errorf("checkpoint model is %s, the experiment's %s", m.Label(), t.M.Label())
	}
	if len(c.Meta.Train) == 0 {
		return errors.New("checkpoint has no training state (it cannot be resumed, only evaluated)")
	}
	var st isingTrainState
	if err := json.Unmarshal(c.Meta.Train, &st); err != nil {
		return fmt.Errorf("checkpoint training state: %w", err)
	}
	if st.Method != t.Opt.Method || st.Chains != len(t.rng) {
		return fmt.Errorf("checkpoint was trained with method %s, %d chains; the experiment asks for %s, %d", st.Method, st.Chains, t.Opt.Method, len(t.rng))
	}
	P := len(t.grad)
	get := func(name string, n int) ([]float64, error) {
		a, ok := c.State[name]
		if !ok || len(a.Data) != n {
			return nil, fmt.Errorf("checkpoint state %q missing or of the wrong size (want %d values)", name, n)
		}
		return a.Data, nil
	}
	am, err := get("adam_m", P)
	if err != nil {
		return err
	}
	as, err := get("adam_s", P)
	if err != nil {
		return err
	}
	if t.chains != nil {
		ch, err := get("chains", len(t.chains))
		if err != nil {
			return err
		}
		for i, v := range ch {
			if v != 0 && v != 1 {
				return fmt.Errorf("checkpoint state chains[%d] is %v, not 0 or 1", i, v)
			}
			t.chains[i] = uint8(v)
		}
	}
	copy(t.adam.M, am)
	copy(t.adam.S, as)
	t.adam.T = st.AdamT
	copy(t.M.Params(), m.Params())
	t.done, t.Seed = st.Epoch, st.Seed
	if t.chi != nil {
		if err := t.chi.Restore(c.State, c.Bytes); err != nil {
			return err
		}
	}
	return nil
}
