package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// mobSeedInit labels the generator that picks the training examples the
// components start from.
const mobSeedInit = 1

// SignalEMLogLik is the signal of a MoB epoch: the mean training
// log-likelihood at the parameters the EM iteration started from (what
// its E-step computes on the way); EM raises it from one iteration to the
// next, so the value reported after epoch e is that of the model after
// epoch e − 1 (the exact estimator gives the one after epoch e).
const SignalEMLogLik = "em-loglik"

// MoBOptions configures a MoBTrainer.
type MoBOptions struct {
	// Epochs is the number of EM iterations (the trainer's Total).
	Epochs int
	// Smoothing is α > 0, the symmetric Beta pseudo-count of each μ_kd:
	// the M-step takes the mode of its posterior under a Beta(α+1, α+1)
	// prior, μ_kd = (S_kd + α)/(N_k + 2α), so no μ is 0 or 1.
	Smoothing float64
	// WeightSmoothing is β > 0, the symmetric Dirichlet pseudo-count of
	// the mixing weights: π_k = (N_k + β)/(N + Kβ) (Dirichlet(β+1) mode),
	// so no component's weight is 0.
	WeightSmoothing float64
	// InitShrink is λ ∈ (0,1): component k starts at μ_k = (1−λ)·x_{n_k}
	// + λ·x̄, x_{n_k} one of K distinct training examples drawn with the
	// trainer's seed and x̄_d = (Σ_n x_nd + 1)/(N + 2) the data's
	// Laplace-smoothed mean; the weights start uniform.
	InitShrink float64
}

// Check reports options the trainer cannot use.
func (o MoBOptions) Check() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case o.Epochs < 0:
		return fmt.Errorf("mob trainer: epochs %d; expected a non-negative integer", o.Epochs)
	case !(o.Smoothing > 0) || !finite(o.Smoothing):
		return fmt.Errorf("mob trainer: smoothing %v; expected a positive number (the Beta pseudo-count that keeps every μ off 0 and 1)", o.Smoothing)
	case !(o.WeightSmoothing > 0) || !finite(o.WeightSmoothing):
		return fmt.Errorf("mob trainer: weight_smoothing %v; expected a positive number (the Dirichlet pseudo-count that keeps every weight above 0)", o.WeightSmoothing)
	case !(o.InitShrink > 0 && o.InitShrink < 1):
		return fmt.Errorf("mob trainer: init_shrink %v; expected a number in (0,1)", o.InitShrink)
	}
	return nil
}

// MoBTrainer fits a mixture of Bernoullis by EM; one epoch is one EM
// iteration over the whole training set:
//
//	E-step  r_nk = exp(a_nk − logsumexp_j a_nj),  a_nk = log π_k + log p(x_n|k),
//	M-step  N_k = Σ_n r_nk,  S_kd = Σ_n r_nk x_nd,
//	        μ_kd = (S_kd + α)/(N_k + 2α),  π_k = (N_k + β)/(N + Kβ),
//
// the maximum a posteriori step under Beta(α+1, α+1) priors on the μ and a
// Dirichlet(β+1) prior on π (MoBOptions), which never decreases the
// penalised log-likelihood Σ_n log p(x_n) + α Σ_kd log μ_kd(1−μ_kd) +
// β Σ_k log π_k (MoBObjective).
//
// The examples run in blocks of a size set by K and D alone; within a
// block the E-step is parallel over examples (each writes its own row of
// responsibilities) and the statistics are parallel over pixels (S's row
// of pixel d is the sum of the responsibility rows of the block's
// examples with x_d = 1, kernel.AddRows) — every entry of S and N_k, and
// the log-likelihood, is summed in example order, so the result does not
// depend on Workers or GOMAXPROCS. Nothing is random after the
// initialisation, so a checkpoint needs the parameters and the epoch
// count only.
type MoBTrainer struct {
	M    *models.MoB
	Opt  MoBOptions
	Seed uint64
	// Workers is the number of goroutines; 0 = GOMAXPROCS.
	Workers int
	epochs

	tab    *models.MoBTables
	block  int
	s, nk  []float64 // D×K statistics S (transposed), K counts
	r, lp  []float64 // block×K responsibilities, block log p
	on     []int32   // the block's on units, example after example
	onAt   []int     // block+1 offsets into on
	pix    []int32   // the block's examples by pixel: pix[pixAt[d]:pixAt[d+1]]
	pixAt  []int     // D+1 offsets into pix
	all    []int32   // 0 … block−1
	perm   []int
	logLik float64 // Σ_n log p(x_n) of the current E-step
}

// mobBlock is the number of examples per block for K components over D
// units: at most 1024, and at most about 4 Mi responsibilities.
func mobBlock(K, D int) int { return max(1, min(1024, (1<<22)/(K+D))) }

// NewMoBTrainer returns the EM trainer of m; InitFromData sets the
// parameters from the training set.
func NewMoBTrainer(m *models.MoB, opt MoBOptions, seed uint64, workers int) (*MoBTrainer, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := opt.Check(); err != nil {
		return nil, err
	}
	K, D := m.K, m.D
	B := mobBlock(K, D)
	t := &MoBTrainer{M: m, Opt: opt, Seed: seed, Workers: workers, epochs: epochs{total: opt.Epochs},
		tab: m.NewMoBTables(), block: B,
		s: make([]float64, D*K), nk: make([]float64, K), r: make([]float64, B*K), lp: make([]float64, B),
		onAt: make([]int, B+1), pixAt: make([]int, D+1), all: make([]int32, B)}
	for i := range t.all {
		t.all[i] = int32(i)
	}
	return t, nil
}

// checkData reports examples of the wrong size, or none.
func (t *MoBTrainer) checkData(x data.Examples) error {
	if x.Len() == 0 {
		return errors.New("mob trainer: no training examples")
	}
	if d := len(x.Row(0)); d != t.M.D {
		return fmt.Errorf("mob trainer: examples have %d units, the model %d", d, t.M.D)
	}
	return nil
}

// InitFromData sets the weights uniform and component k's means to
// (1−λ)·x_{n_k} + λ·x̄ (MoBOptions.InitShrink), the n_k K distinct
// examples of a shuffle drawn with the generator of (Seed, mobSeedInit).
// It needs at least K examples.
func (t *MoBTrainer) InitFromData(x data.Examples) error {
	if err := t.checkData(x); err != nil {
		return err
	}
	K, D, N := t.M.K, t.M.D, x.Len()
	if K > N {
		return fmt.Errorf("mob trainer: model.components is %d, more than the %d training examples the components start from", K, N)
	}
	mean := make([]float64, D)
	for n := range N {
		for d, v := range x.Row(n) {
			if v != 0 {
				mean[d]++
			}
		}
	}
	for d := range mean {
		mean[d] = (mean[d] + 1) / float64(N+2)
	}
	rng := rand.New(rand.NewPCG(seeds.Derive(t.Seed, mobSeedInit), 0))
	perm := make([]int, N)
	for i := range perm {
		perm[i] = i
	}
	lam := t.Opt.InitShrink
	for k := range K {
		j := k + rng.IntN(N-k)
		perm[k], perm[j] = perm[j], perm[k]
		row := x.Row(perm[k])
		for d := range D {
			on := 0.0
			if row[d] != 0 {
				on = 1
			}
			mu, nu := (1-lam)*on+lam*mean[d], (1-lam)*(1-on)+lam*(1-mean[d])
			t.M.Logits[k*D+d] = math.Log(mu) - math.Log(nu)
		}
		t.M.LogWeights[k] = -math.Log(float64(K))
	}
	return t.M.Validate()
}

// TrainEpoch runs one EM iteration over x.
func (t *MoBTrainer) TrainEpoch(x data.Examples) (EpochSummary, error) {
	if err := t.checkData(x); err != nil {
		return EpochSummary{}, err
	}
	N := x.Len()
	t.estep(x)
	t.mstep(N)
	if err := t.M.Validate(); err != nil {
		return EpochSummary{}, fmt.Errorf("mob trainer: %w at epoch %d: %v", ErrDiverged, t.done+1, err)
	}
	t.done++
	return EpochSummary{Epoch: t.done, ReconError: t.logLik / float64(N), Signal: SignalEMLogLik}, nil
}

// estep computes N_k, S and Σ_n log p(x_n) at the current parameters.
func (t *MoBTrainer) estep(x data.Examples) {
	t.M.FillTables(t.tab)
	clear(t.s)
	clear(t.nk)
	t.logLik = 0
	t.perm = Order(t.perm, x.Len(), false, nil)
	// The step cannot fail: Minibatches is the loop and the progress hook.
	_, _ = Minibatches(t.perm, t.block, t.onBatch, func(_ int, idx []int) error {
		t.blockStats(x, idx)
		return nil
	}, nil)
}

// blockStats adds the statistics of the examples idx (at most a block).
func (t *MoBTrainer) blockStats(x data.Examples, idx []int) {
	K, D, b := t.M.K, t.M.D, len(idx)
	workers := t.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// The on units of each example, and the examples of each pixel, in
	// example order.
	t.on = t.on[:0]
	clear(t.pixAt)
	for i, n := range idx {
		t.onAt[i] = len(t.on)
		for d, v := range x.Row(n) {
			if v != 0 {
				t.on = append(t.on, int32(d))
				t.pixAt[d+1]++
			}
		}
	}
	t.onAt[b] = len(t.on)
	for d := range D {
		t.pixAt[d+1] += t.pixAt[d]
	}
	if cap(t.pix) < len(t.on) {
		t.pix = make([]int32, len(t.on))
	}
	t.pix = t.pix[:len(t.on)]
	fill := t.pixAt[:D] // the next free slot of each pixel, advanced below
	for i := range b {
		for _, d := range t.on[t.onAt[i]:t.onAt[i+1]] {
			t.pix[fill[d]] = int32(i)
			fill[d]++
		}
	}
	// fill[d] now is the end of pixel d's list, the start of pixel d+1's:
	// shift back so that pixAt[d] is the start again.
	copy(t.pixAt[1:], t.pixAt[:D])
	t.pixAt[0] = 0
	// E-step: responsibilities and log p, one example per item.
	workgroup.ForEach(b, workers, func() func(int) {
		return func(i int) {
			a := t.r[i*K : (i+1)*K]
			t.tab.Joint(a, t.on[t.onAt[i]:t.onAt[i+1]])
			m := math.Inf(-1)
			for _, v := range a {
				m = max(m, v)
			}
			s := 0.0
			for k, v := range a {
				e := math.Exp(v - m)
				a[k] = e
				s += e
			}
			for k := range a {
				a[k] /= s
			}
			t.lp[i] = m + math.Log(s)
		}
	})
	for i := range b {
		t.logLik += t.lp[i]
	}
	// Statistics: chunks of pixels, and the counts N_k as the last item.
	const chunk = 16
	chunks := (D + chunk - 1) / chunk
	r := t.r[:b*K]
	workgroup.ForEach(chunks+1, workers, func() func(int) {
		return func(c int) {
			if c == chunks {
				kernel.AddRows(t.nk, r, t.all[:b])
				return
			}
			for d := c * chunk; d < min(D, (c+1)*chunk); d++ {
				kernel.AddRows(t.s[d*K:(d+1)*K], r, t.pix[t.pixAt[d]:t.pixAt[d+1]])
			}
		}
	})
}

// mstep sets the parameters to the smoothed maximum of the expected
// complete-data log-likelihood from S and N_k over N examples.
func (t *MoBTrainer) mstep(N int) {
	K, D := t.M.K, t.M.D
	a, b := t.Opt.Smoothing, t.Opt.WeightSmoothing
	logDen := math.Log(float64(N) + float64(K)*b)
	for k := range K {
		nk := t.nk[k]
		t.M.LogWeights[k] = math.Log(nk+b) - logDen
		row := t.M.Logits[k*D : (k+1)*D]
		for d := range row {
			s := t.s[d*K+k]
			// S_kd ≤ N_k but for rounding (they are summed in different
			// groupings): the count of x_d = 0 is kept non-negative.
			row[d] = math.Log(s+a) - math.Log(max(nk-s, 0)+a)
		}
	}
}

// MoBObjective returns the penalised log-likelihood EM with these options
// never decreases: Σ_n log p(x_n) + α Σ_kd [log μ_kd + log(1−μ_kd)] +
// β Σ_k log π_k (the log posterior up to a constant).
func MoBObjective(m *models.MoB, x data.Examples, o MoBOptions) float64 {
	tab := m.NewMoBTables()
	a := make([]float64, m.K)
	var on []int32
	f := 0.0
	for n := range x.Len() {
		var lp float64
		lp, on = tab.LogProb(x.Row(n), a, on)
		f += lp
	}
	for _, e := range m.Logits {
		f -= o.Smoothing * (nmath.Softplus(-e) + nmath.Softplus(e))
	}
	for _, lw := range m.LogMix() {
		f += o.WeightSmoothing * lw
	}
	return f
}

// Current is the model being trained, M.
func (t *MoBTrainer) Current() models.Model { return t.M }

// EpochSettings are the epoch line's settings, named as the train: keys.
func (t *MoBTrainer) EpochSettings(EpochSummary) string {
	return fmt.Sprintf("em smoothing=%g weight_smoothing=%g", t.Opt.Smoothing, t.Opt.WeightSmoothing)
}

// mobTrainState is the trainer state kept in model.npz meta.
type mobTrainState struct {
	Epoch           int     `json:"epoch"`
	Seed            uint64  `json:"seed"`
	Smoothing       float64 `json:"smoothing"`
	WeightSmoothing float64 `json:"weight_smoothing"`
}

// Checkpoint returns the model with the epoch count, the seed and the
// smoothing in meta (EM has no other state). The arrays alias the model:
// save before training further.
func (t *MoBTrainer) Checkpoint(experiment string) (*models.Checkpoint, error) {
	js, err := json.Marshal(mobTrainState{Epoch: t.done, Seed: t.Seed, Smoothing: t.Opt.Smoothing, WeightSmoothing: t.Opt.WeightSmoothing})
	if err != nil {
		return nil, err
	}
	return &models.Checkpoint{Model: t.M, Meta: models.Meta{Experiment: experiment, Epoch: t.done, Train: js}}, nil
}

// Resume restores the trainer from a checkpoint written by Checkpoint
// (same sizes and smoothing).
func (t *MoBTrainer) Resume(c *models.Checkpoint) error {
	m, ok := c.Model.(*models.MoB)
	if !ok {
		return fmt.Errorf("checkpoint holds a %s, not a mob", c.Model.TypeName())
	}
	if m.K != t.M.K || m.D != t.M.D {
		return fmt.Errorf("checkpoint model is %s, the experiment's %s", m.Label(), t.M.Label())
	}
	if len(c.Meta.Train) == 0 {
		return errors.New("checkpoint has no training state (it cannot be resumed, only evaluated)")
	}
	var st mobTrainState
	if err := json.Unmarshal(c.Meta.Train, &st); err != nil {
		return fmt.Errorf("checkpoint training state: %w", err)
	}
	if st.Smoothing != t.Opt.Smoothing || st.WeightSmoothing != t.Opt.WeightSmoothing {
		return fmt.Errorf("checkpoint was trained with smoothing %g, weight_smoothing %g; the experiment asks for %g, %g", st.Smoothing, st.WeightSmoothing, t.Opt.Smoothing, t.Opt.WeightSmoothing)
	}
	copy(t.M.LogWeights, m.LogWeights)
	copy(t.M.Logits, m.Logits)
	t.done, t.Seed = st.Epoch, st.Seed
	return nil
}
