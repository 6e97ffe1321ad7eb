package train

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/inference"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// The phases of DBM training, as DBMTrainer.Phase names them.
const (
	PhasePretrain = "pretrain"
	PhaseJoint    = "joint"
	PhaseDone     = "done"
)

// DBMOptions configures a DBMTrainer. After NewDBMTrainer, the trainer's Opt
// holds the values in use (defaults filled in).
type DBMOptions struct {
	// Pretrain configures the RBMs of greedy pretraining: one entry for
	// every RBM, or L entries, Pretrain[l] for the RBM between layers l and
	// l+1. Their UpScale and DownScale must be 0: the trainer sets them
	// (Salakhutdinov & Hinton 2009) to 2 for the bottom-up input of every
	// RBM but the top one and for the top-down input of every RBM but the
	// first, so that the first RBM has p(h1|v) = σ(2W1ᵀv + c), the top one
	// p(h_{L−1}|h_L) = σ(2W_L h_L + a), and middle ones both. Workers left
	// unset are taken from this struct, Epochs from PretrainEpochs. Epochs
	// are counted from 1 in each RBM's Schedule. Unused when PretrainEpochs
	// is 0.
	Pretrain []RBMOptions
	// PretrainEpochs is the number of epochs of each pretraining RBM; 0 =
	// no pretraining: joint training then starts from W_l ~ N(0, InitStd²),
	// zero hidden biases and visible biases as BaseRateVBias says.
	PretrainEpochs int
	// PretrainData says what the RBMs above the first are trained on, as
	// for a DBN but through the doubled bottom-up conditionals
	// σ(b + 2Wᵀx) of the RBMs below: SampledData (the zero value; one draw
	// per example, kept), ResampledData (a fresh draw every epoch, as in
	// Salakhutdinov's code) or MeanFieldData (the probabilities).
	PretrainData LayerData

	// BatchSize is the joint-training minibatch size (> 0 when Epochs > 0).
	BatchSize int
	// Chains is the number of persistent chains of the negative phase;
	// 0 means BatchSize.
	Chains int
	// K is the number of Gibbs sweeps of every chain per update; 0 means
	// Schedule.KAt(epoch), and at least 1.
	K int
	// MFIters is the number of mean-field fixed-point iterations of the
	// positive phase (a fixed number, no convergence test); 0 means 10.
	MFIters int
	// WeightDecay is the L2 penalty λ on the weights (biases are not decayed).
	WeightDecay float64
	// Shuffle reshuffles the training set before each joint epoch.
	Shuffle bool
	// Schedule gives the learning rate, momentum and (with K = 0) the sweeps
	// of joint epoch e, counted from 1 at the first joint epoch.
	Schedule Schedule
	// Epochs is the number of joint-training epochs (≥ 0).
	Epochs int

	// InitStd is the standard deviation of initial weights (of the
	// pretraining RBMs, or of the DBM without pretraining); 0 means 0.01.
	InitStd float64
	// BaseRateVBias starts visible biases at the log-odds of the training
	// data's means (see DBNOptions.BaseRateVBias); otherwise at 0.
	BaseRateVBias bool
	// Workers is the number of goroutines; 0 means 2. Results do not
	// depend on it (nor on GOMAXPROCS).
	Workers int
}

// DBMTrainer trains a DBM as Salakhutdinov & Hinton (2009) do.
//
// Pretraining (PretrainEpochs > 0): the L RBMs between adjacent layers
// are trained greedily, bottom up, as a DBNTrainer would, but with doubled
// inputs where the DBM layer has a neighbour the RBM lacks (see
// DBMOptions.Pretrain), and each RBM above the first trains on the data
// propagated up through the doubled bottom-up conditionals of the RBMs
// below (PretrainData). They are then composed into the DBM:
//
//	W_l = the weights of RBM l+1 (0-based W[l], as models.DBM numbers them),
//	b_0 = the visible biases of RBM 1,
//	b_l = (hidden biases of RBM l + visible biases of RBM l+1)/2, 0 < l < L,
//	b_L = the hidden biases of RBM L.
//
// Joint training (Epochs > 0), per minibatch of B examples:
//
//   - positive phase: mean field q(h|v) = Π Bern(μ), started from a
//     bottom-up pass with doubled inputs, μ_l = σ(b_l + 2W_{l−1}ᵀμ_{l−1}) for
//     l < L and μ_L = σ(b_L + W_{L−1}ᵀμ_{L−1}) (μ_0 = v), then MFIters
//     fixed-point iterations μ_l = σ(b_l + W_{l−1}ᵀμ_{l−1} + W_l μ_{l+1}),
//     the odd layers and then the even ones in each iteration;
//   - negative phase: Chains persistent chains x = (x_0, …, x_L), each
//     advanced by K Gibbs sweeps (the odd layers given the even ones, then
//     the even layers, v included, given the odd ones). At the start of
//     joint training every chain is set to a training example drawn
//     uniformly at random, with its hidden layers sampled bottom-up from the
//     same doubled conditionals as the mean-field start;
//   - update, with learning rate ε and momentum m from the Schedule and
//     weight decay λ: Δ ← mΔ + ε(∇ − λW), W ← W + Δ (likewise for biases,
//     without decay), with
//     ∇W_l = (1/B) Σ_n μ_l μ_{l+1}ᵀ − (1/M) Σ_c x_l x_{l+1}ᵀ and
//     ∇b_l = (1/B) Σ_n μ_l − (1/M) Σ_c x_l.
//
// The dense mean-field products over the minibatch use internal/gemm (one
// fused multiply–add chain per entry, the same bits on every path);
// products with binary states are sums of selected rows. Every random draw comes
// from generators derived from the seed in a fixed order, so results depend
// neither on Workers nor on GOMAXPROCS. The data rows are read as binary
// (Row; any non-zero value counts as 1).
//
// Drive it epoch by epoch with TrainEpoch; Total is
// L·PretrainEpochs + Epochs.
type DBMTrainer struct {
	// M is the DBM trained. During pretraining it holds what Current last
	// composed; afterwards it is the model being trained.
	M   *models.DBM
	Opt DBMOptions
	// epochs counts the epochs, pretraining and joint.
	epochs

	seed    uint64
	pre     *DBNTrainer // pretraining, nil once it is over or without it
	preM    *models.DBN // the pretraining RBMs
	j       *dbmJoint
	dataLen int
}

// dbmJoint is the state of joint training.
type dbmJoint struct {
	epoch    int // completed joint epochs
	prepared bool
	src      *rand.PCG // master generator (checkpointed)
	rng      *rand.Rand
	velW     [][]float64 // like M.W
	velB     [][]float64 // like M.B
	chains   [][]float64 // chains[l] is Chains × n_l, binary

	// Scratch, not saved.
	wt     [][]float64 // wt[l] = W_lᵀ, n_{l+1} × n_l, refreshed each minibatch
	mu     [][]float64 // mu[l] is B × n_l; mu[0] the minibatch v
	in0    []float64   // B × n_1: W_0ᵀ v per example
	z      []float64   // B × max n_l
	gpos   [][]float64 // gpos[l], l ≥ 1: (1/B) μ_lᵀ μ_{l+1}
	sq     []float64   // squared reconstruction error per example chunk
	srcs   []rand.PCG  // one generator per chunk of chains
	rngs   []*rand.Rand
	work   []dbmScratch // one per worker
	perm   []int
	nbatch int
}

type dbmScratch struct {
	z, g, neg []float64
	on        []int32
}

// dbmRowChunk is the number of weight rows (or rows of a transpose) one
// task of the update handles.
const dbmRowChunk = 32

// NewDBMTrainer prepares the training of m (whose parameters it
// overwrites: by the composed pretrained RBMs, or at random without
// pretraining); seed determines every random draw. The options are checked
// against the model.
func NewDBMTrainer(m *models.DBM, opt DBMOptions, seed uint64) (*DBMTrainer, error) {
	if m == nil {
		return nil, errors.New("dbm trainer: nil model")
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("dbm trainer: %w", err)
	}
	switch {
	case opt.PretrainEpochs < 0:
		return nil, fmt.Errorf("dbm trainer: pretraining epochs = %d; want ≥ 0 (0 = no pretraining)", opt.PretrainEpochs)
	case opt.Epochs < 0:
		return nil, fmt.Errorf("dbm trainer: joint epochs = %d; want ≥ 0", opt.Epochs)
	case opt.PretrainEpochs == 0 && opt.Epochs == 0:
		return nil, errors.New("dbm trainer: no pretraining epochs and no joint epochs: nothing to train")
	case !(opt.InitStd >= 0) || math.IsInf(opt.InitStd, 0):
		return nil, fmt.Errorf("dbm trainer: initial weight std %v must be a number ≥ 0 (0 means 0.01)", opt.InitStd)
	case opt.Workers < 0:
		return nil, fmt.Errorf("dbm trainer: workers = %d; want ≥ 0 (0 means 2)", opt.Workers)
	}
	if opt.Epochs > 0 {
		switch {
		case opt.BatchSize <= 0:
			return nil, fmt.Errorf("dbm trainer: batch size must be positive, got %d", opt.BatchSize)
		case opt.Schedule == nil:
			return nil, errors.New("dbm trainer: no schedule for joint training")
		case opt.Chains < 0:
			return nil, fmt.Errorf("dbm trainer: chains = %d; want ≥ 0 (0 means the batch size)", opt.Chains)
		case opt.K < 0:
			return nil, fmt.Errorf("dbm trainer: K = %d Gibbs sweeps; want ≥ 0 (0 means the schedule's k)", opt.K)
		case opt.MFIters < 0:
			return nil, fmt.Errorf("dbm trainer: mean-field iterations = %d; want ≥ 0 (0 means 10)", opt.MFIters)
		case !(opt.WeightDecay >= 0) || math.IsInf(opt.WeightDecay, 0):
			return nil, fmt.Errorf("dbm trainer: weight decay %v must be a number ≥ 0", opt.WeightDecay)
		}
	}
	if opt.Chains == 0 {
		opt.Chains = opt.BatchSize
	}
	if opt.MFIters == 0 {
		opt.MFIters = 10
	}
	if opt.Workers == 0 {
		opt.Workers = 2
	}
	if opt.InitStd == 0 {
		opt.InitStd = 0.01
	}
	t := &DBMTrainer{M: m, Opt: opt, seed: seed, epochs: epochs{total: m.NumLayers()*opt.PretrainEpochs + opt.Epochs}}
	if opt.PretrainEpochs > 0 {
		if err := t.newPretrainer(); err != nil {
			return nil, err
		}
	}
	t.j = t.newJoint()
	return t, nil
}

// newPretrainer makes the greedy trainer of the pretraining RBMs.
func (t *DBMTrainer) newPretrainer() error {
	o := t.Opt
	L := t.M.NumLayers()
	if len(o.Pretrain) != 1 && len(o.Pretrain) != L {
		return fmt.Errorf("dbm trainer: %d pretraining option sets for a DBM of %d layers; give one per layer or one for all", len(o.Pretrain), L)
	}
	dopt := DBNOptions{Data: o.PretrainData, InitStd: o.InitStd, BaseRateVBias: o.BaseRateVBias, Workers: o.Workers}
	for l := range L {
		r := o.Pretrain[min(l, len(o.Pretrain)-1)]
		switch {
		case r.UpScale != 0 || r.DownScale != 0:
			return fmt.Errorf("dbm trainer: pretraining RBM %d: up scale %v, down scale %v; leave them 0, the trainer doubles the inputs itself", l+1, r.UpScale, r.DownScale)
		case r.BatchSize <= 0:
			return fmt.Errorf("dbm trainer: pretraining RBM %d: batch size must be positive, got %d", l+1, r.BatchSize)
		case r.Schedule == nil:
			return fmt.Errorf("dbm trainer: pretraining RBM %d: no schedule", l+1)
		}
		if l < L-1 {
			r.UpScale = 2
		}
		if l > 0 {
			r.DownScale = 2
		}
		if r.Workers == 0 {
			r.Workers = o.Workers
		}
		r.Epochs = o.PretrainEpochs
		dopt.Layers = append(dopt.Layers, r)
	}
	pm, err := models.NewDBN(t.M.Sizes...)
	if err != nil {
		return fmt.Errorf("dbm trainer: %w", err)
	}
	pre, err := newGreedyTrainer(pm, dopt, dbnSeed(t.seed, 0x64626d, 1), true)
	if err != nil {
		return fmt.Errorf("dbm trainer: pretraining: %w", err)
	}
	t.pre, t.preM = pre, pm
	return nil
}

// newJoint returns the joint-training state before its start.
func (t *DBMTrainer) newJoint() *dbmJoint {
	src := rand.NewPCG(dbnSeed(t.seed, 0x64626d, 2), 0x6a6f696e)
	return &dbmJoint{src: src, rng: rand.New(src)}
}

// Phase returns PhasePretrain, PhaseJoint or PhaseDone: what the next
// TrainEpoch does.
func (t *DBMTrainer) Phase() string {
	switch {
	case t.pre != nil:
		return PhasePretrain
	case t.j.epoch < t.Opt.Epochs:
		return PhaseJoint
	}
	return PhaseDone
}

// Done reports whether every epoch has been trained.
func (t *DBMTrainer) Done() bool { return t.Phase() == PhaseDone }

// Current returns the DBM to evaluate now, current().
func (t *DBMTrainer) Current() models.Model { return t.current() }

// current returns the DBM to evaluate now: M. During pretraining it first
// writes into M the composition (see DBMTrainer) of the RBMs as they stand:
// those trained so far, the one being trained, and the RBMs not stacked yet
// with their parameters still zero (so the top trained layer's biases are
// halved until the RBM above it is stacked). M shares its parameters with
// the trainer: evaluate it between epochs, do not modify it.
func (t *DBMTrainer) current() *models.DBM {
	if t.pre != nil {
		t.compose()
	}
	return t.M
}

// compose writes the composition of the pretraining RBMs into M.
func (t *DBMTrainer) compose() {
	rs := t.preM.Layers
	L := len(rs)
	for l, r := range rs {
		copy(t.M.W[l], r.W)
	}
	copy(t.M.B[0], rs[0].VBias)
	for l := 1; l < L; l++ {
		for j := range t.M.B[l] {
			t.M.B[l][j] = (rs[l-1].HBias[j] + rs[l].VBias[j]) / 2
		}
	}
	copy(t.M.B[L], rs[L-1].HBias)
}

// Prepare readies the next epoch if that has not been done: during
// pretraining it stacks the next RBM (DBNTrainer.Prepare); at the start of
// joint training it initialises the parameters (without pretraining) and
// the persistent chains from data. TrainEpoch calls it; call it yourself to
// evaluate Current() at that moment. data must be the same every call.
func (t *DBMTrainer) Prepare(data data.Examples) error {
	if t.Done() {
		return errors.New("dbm trainer: every epoch is trained")
	}
	if err := checkEpochData(data, &t.dataLen, t.M.NumVisible(), "dbm"); err != nil {
		return err
	}
	if t.pre != nil {
		if err := t.pre.Prepare(data); err != nil {
			return fmt.Errorf("dbm trainer: pretraining: %w", err)
		}
		return nil
	}
	if !t.j.prepared {
		t.startJoint(data)
	}
	return nil
}

// TrainEpoch runs one epoch of the current phase (preparing it first) and
// moves from pretraining to joint training after the last pretraining
// epoch. The summary's Epoch counts all epochs, pretraining and joint; in
// pretraining it is the pretraining RBM's (Layer 1 is the RBM on the
// data), in joint training Layer is 0 and ReconError the mean over
// examples of Σ_i (v_i − σ(b_0 + W_0 μ_1)_i)², μ_1 the mean-field posterior
// of h1: a cheap signal, not a likelihood. On divergence it returns an
// error wrapping ErrDiverged that names the epoch (overall, and within the
// phase) and the minibatch; the parameters are then unusable and the caller
// keeps its last checkpoint.
func (t *DBMTrainer) TrainEpoch(data data.Examples) (EpochSummary, error) {
	if err := t.Prepare(data); err != nil {
		return EpochSummary{}, err
	}
	if t.pre != nil {
		t.pre.onBatch = t.onBatch
		st, err := t.pre.TrainEpoch(data)
		if err != nil {
			return EpochSummary{}, fmt.Errorf("dbm trainer: epoch %d (pretraining): %w", t.done+1, err)
		}
		t.done++
		if t.pre.Done() {
			t.compose()
			t.pre, t.preM = nil, nil
		}
		st.Epoch = t.done
		return st, nil
	}
	st, err := t.jointEpoch(data)
	if err != nil {
		return EpochSummary{}, err
	}
	t.done++
	st.Epoch = t.done
	return st, nil
}

// EpochSettings are the epoch line's k, learning rate and momentum.
func (t *DBMTrainer) EpochSettings(s EpochSummary) string { return RBMSettings(s) }

// startJoint initialises the parameters if there was no pretraining, the
// momentum buffers, the persistent chains and the scratch space.
func (t *DBMTrainer) startJoint(data data.Examples) {
	m, o, j := t.M, t.Opt, t.j
	L := m.NumLayers()
	rng := j.rng
	if o.PretrainEpochs == 0 {
		for _, w := range m.W {
			for i := range w {
				w[i] = o.InitStd * rng.NormFloat64()
			}
		}
		for l := 1; l <= L; l++ {
			clear(m.B[l])
		}
		if o.BaseRateVBias {
			copy(m.B[0], baseRate(data, m.Sizes[0]))
		} else {
			clear(m.B[0])
		}
	}
	j.velW, j.velB, j.chains = make([][]float64, L), make([][]float64, L+1), make([][]float64, L+1)
	for l := range L {
		j.velW[l] = make([]float64, len(m.W[l]))
	}
	for l := range L + 1 {
		j.velB[l] = make([]float64, m.Sizes[l])
		j.chains[l] = make([]float64, o.Chains*m.Sizes[l])
	}
	// Chains start at random training examples, hidden layers sampled
	// bottom-up with doubled inputs below the top.
	z := make([]float64, maxInt(m.Sizes))
	for c := range o.Chains {
		row := data.Row(rng.IntN(data.Len()))
		x := j.chains[0][c*m.Sizes[0] : (c+1)*m.Sizes[0]]
		for i, b := range row {
			x[i] = 0
			if b != 0 {
				x[i] = 1
			}
		}
		for l := 1; l <= L; l++ {
			n := m.Sizes[l]
			below := x
			x = j.chains[l][c*n : (c+1)*n]
			m.LayerInput(z[:n], l, below, nil)
			s := 2.0
			if l == L {
				s = 1
			}
			for i := range x {
				x[i] = 0
				if rng.Float64() < nmath.Sigmoid(m.B[l][i]+s*z[i]) {
					x[i] = 1
				}
			}
		}
	}
	j.prepared = true
}

func maxInt(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// setup allocates the scratch space of joint training.
func (t *DBMTrainer) setup() {
	j, m, o := t.j, t.M, t.Opt
	if j.wt != nil {
		return
	}
	L := m.NumLayers()
	B, n := o.BatchSize, maxInt(m.Sizes)
	j.wt = make([][]float64, L)
	j.gpos = make([][]float64, L)
	for l := range L {
		j.wt[l] = make([]float64, len(m.W[l]))
		if l > 0 {
			j.gpos[l] = make([]float64, len(m.W[l]))
		}
	}
	j.mu = make([][]float64, L+1)
	for l := range L + 1 {
		j.mu[l] = make([]float64, B*m.Sizes[l])
	}
	j.in0 = make([]float64, B*m.Sizes[1])
	j.z = make([]float64, B*n)
	j.sq = make([]float64, chunks(B, chunkSize))
	nc := chunks(o.Chains, chunkSize)
	j.srcs = make([]rand.PCG, nc)
	j.rngs = make([]*rand.Rand, nc)
	for i := range j.srcs {
		j.rngs[i] = rand.New(&j.srcs[i])
	}
	j.work = make([]dbmScratch, o.Workers)
	for w := range j.work {
		j.work[w] = dbmScratch{z: make([]float64, n), g: make([]float64, n), neg: make([]float64, n), on: make([]int32, 0, max(n, B, o.Chains))}
	}
}

func chunks(n, size int) int { return (n + size - 1) / size }

// jointEpoch runs one epoch of joint training; the summary's Epoch is the
// joint epoch.
func (t *DBMTrainer) jointEpoch(data data.Examples) (EpochSummary, error) {
	t.setup()
	o, j := t.Opt, t.j
	epoch := j.epoch + 1
	k := o.K
	if k == 0 {
		k = max(1, o.Schedule.KAt(epoch))
	}
	lr, mom := o.Schedule.LearningRateAt(epoch), o.Schedule.MomentumAt(epoch)
	n := data.Len()
	j.perm = Order(j.perm, n, o.Shuffle, j.rng)
	sq := 0.0
	b, err := Minibatches(j.perm, o.BatchSize, t.onBatch, func(_ int, idx []int) error {
		sq += t.jointBatch(data, idx, k, lr, mom)
		return nil
	}, t.checkFinite)
	if err != nil {
		return EpochSummary{}, fmt.Errorf("dbm trainer: %w at epoch %d (joint epoch %d), minibatch %d: %v", ErrDiverged, t.done+1, epoch, b, err)
	}
	j.epoch = epoch
	return EpochSummary{Epoch: epoch, K: k, LearningRate: lr, Momentum: mom, ReconError: sq / float64(n)}, nil
}

func (t *DBMTrainer) checkFinite() error {
	s, big := 0.0, 0.0
	for _, w := range t.M.W {
		s, big = sumMaxAbs(w, s, big)
	}
	for _, b := range t.M.B {
		s, big = sumMaxAbs(b, s, big)
	}
	if math.IsNaN(s) || math.IsInf(s, 0) || big > models.MaxAbsParam {
		if err := t.M.Validate(); err != nil {
			return err
		}
		return errors.New("the parameters sum to a non-finite number")
	}
	return nil
}

// jointBatch performs one update from the examples idx and returns their
// summed squared mean-field reconstruction error.
func (t *DBMTrainer) jointBatch(data data.Examples, idx []int, k int, lr, mom float64) float64 {
	m, o, j := t.M, t.Opt, t.j
	L := m.NumLayers()
	B := len(idx)
	t.transposeWeights()
	t.visibleInput(data, idx)
	t.meanField(B)
	sq := t.reconError(B)
	// Negative phase: fixed chunks of chains, each with its own generator
	// seeded from the master in order.
	for i := range j.srcs {
		j.srcs[i].Seed(j.rng.Uint64(), j.rng.Uint64())
	}
	parallel(len(j.srcs), o.Workers, func(w, c int) {
		s := &j.work[w]
		for ch := c * chunkSize; ch < min((c+1)*chunkSize, o.Chains); ch++ {
			for range k {
				t.sweep(s, ch, j.rngs[c])
			}
		}
	})
	// Dense positive statistics of the hidden-hidden weights,
	// (1/B) μ_lᵀ μ_{l+1}, with μ_l transposed first into z.
	for l := 1; l < L; l++ {
		n, n1 := m.Sizes[l], m.Sizes[l+1]
		mt := j.z[:n*B]
		for r := range B {
			for i, x := range j.mu[l][r*n : (r+1)*n] {
				mt[i*B+r] = x
			}
		}
		t.product(kernel.GemmSet, 1/float64(B), n, n1, B, mt, j.mu[l+1], j.gpos[l])
	}
	// Weight updates, a chunk of rows of one W_l per task.
	var offs [16]int
	tasks := rowTasks(m.Sizes[:L], offs[:0])
	parallel(tasks[len(tasks)-1], o.Workers, func(w, task int) {
		l := 0
		for task >= tasks[l] {
			l++
		}
		lo := (task - (tasks[l] - chunks(m.Sizes[l], dbmRowChunk))) * dbmRowChunk
		t.updateRows(&j.work[w], l, lo, min(lo+dbmRowChunk, m.Sizes[l]), B, lr, mom)
	})
	// Biases.
	invB, invM := 1/float64(B), 1/float64(o.Chains)
	for l := range L + 1 {
		n := m.Sizes[l]
		g := j.work[0].g[:n]
		clear(g)
		for r := range B {
			axpy(g, invB, j.mu[l][r*n:(r+1)*n])
		}
		for c := range o.Chains {
			axpy(g, -invM, j.chains[l][c*n:(c+1)*n])
		}
		vel := j.velB[l]
		for i, d := range g {
			vel[i] = mom*vel[i] + lr*d
			m.B[l][i] += vel[i]
		}
	}
	return sq
}

// rowTasks returns, for layers of sizes ns, the cumulative numbers of
// row-chunk tasks (appended to dst): layer l's tasks are
// [out[l−1], out[l]).
func rowTasks(ns []int, dst []int) []int {
	s := 0
	for _, n := range ns {
		s += chunks(n, dbmRowChunk)
		dst = append(dst, s)
	}
	return dst
}

// transposeWeights refreshes wt[l] = W_lᵀ, a chunk of rows per task.
func (t *DBMTrainer) transposeWeights() {
	m, j := t.M, t.j
	L := m.NumLayers()
	var offs [16]int
	tasks := rowTasks(m.Sizes[1:L+1], offs[:0])
	parallel(tasks[len(tasks)-1], t.Opt.Workers, func(_, task int) {
		l := 0
		for task >= tasks[l] {
			l++
		}
		n, n1 := m.Sizes[l], m.Sizes[l+1]
		lo := (task - (tasks[l] - chunks(n1, dbmRowChunk))) * dbmRowChunk
		w, wt := m.W[l], j.wt[l]
		for c := lo; c < min(lo+dbmRowChunk, n1); c++ {
			row := wt[c*n : (c+1)*n]
			for i := range row {
				row[i] = w[i*n1+c]
			}
		}
	})
}

// visibleInput reads the minibatch into mu[0] (binary) and sets in0 to
// W_0ᵀ v for every example: sums of the rows of W_0 selected by v.
func (t *DBMTrainer) visibleInput(data data.Examples, idx []int) {
	m, j := t.M, t.j
	D, n1 := m.Sizes[0], m.Sizes[1]
	parallel(chunks(len(idx), chunkSize), t.Opt.Workers, func(w, c int) {
		on := j.work[w].on
		for r := c * chunkSize; r < min((c+1)*chunkSize, len(idx)); r++ {
			v := j.mu[0][r*D : (r+1)*D]
			on = on[:0]
			for i, b := range data.Row(idx[r])[:D] {
				v[i] = 0
				if b != 0 {
					v[i] = 1
					on = append(on, int32(i))
				}
			}
			in := j.in0[r*n1 : (r+1)*n1]
			clear(in)
			kernel.AddRows(in, m.W[0], on)
		}
	})
}

// meanField sets mu[1…L] to the mean-field posteriors of the B examples
// of mu[0] (see DBMTrainer). Layer l's input is built in mu[l] itself (its
// own mean field is not an input of its update): W_0ᵀv from in0 (computed
// once per minibatch: v does not change across iterations), dense products
// μ_{l−1}W_{l−1} and μ_{l+1}W_lᵀ (from wt[l]) otherwise, each entry one
// fused multiply–add chain (internal/gemm), and then
// μ_l = σ(b_l + s·input), column block by column block.
func (t *DBMTrainer) meanField(B int) {
	m, j := t.M, t.j
	L := m.NumLayers()
	update := func(l int, above bool, s float64) {
		n := m.Sizes[l]
		mu := j.mu[l][:B*n]
		var below []float64
		if l > 1 {
			below = j.mu[l-1]
		}
		var up, wt []float64
		q := 0
		if above && l < L {
			up, wt, q = j.mu[l+1], j.wt[l], m.Sizes[l+1]
		}
		parallel(chunks(n, dbmColChunk), t.Opt.Workers, func(_, c int) {
			lo, hi := c*dbmColChunk, min((c+1)*dbmColChunk, n)
			if below == nil {
				for r := range B {
					copy(mu[r*n+lo:r*n+hi], j.in0[r*n+lo:r*n+hi])
				}
			} else {
				p := m.Sizes[l-1]
				kernel.GemmCols(kernel.GemmSet, 1, B, lo, hi, p, below, p, m.W[l-1], n, mu, n)
			}
			if up != nil {
				kernel.GemmCols(kernel.GemmAdd, 1, B, lo, hi, q, up, q, wt, n, mu, n)
			}
			b := m.B[l][lo:hi]
			for r := range B {
				mr := mu[r*n+lo : r*n+hi]
				for i, x := range mr {
					mr[i] = b[i] + s*x
				}
				// One vectorised exp per entry (relative error < 1e-15
				// against math.Exp): a fifth of the update was σ here.
				inference.Sigmoids(mr, mr)
			}
		})
	}
	for l := 1; l <= L; l++ {
		s := 2.0
		if l == L {
			s = 1
		}
		update(l, false, s)
	}
	for range t.Opt.MFIters {
		for _, start := range [2]int{1, 2} {
			for l := start; l <= L; l += 2 {
				update(l, true, 1)
			}
		}
	}
}

// dbmColChunk is the number of columns of a dense product one task computes.
const dbmColChunk = 64

// product sets c (m×n) to α·a·b, a m×k and b k×n (row-major, packed), or
// adds α·a·b to it (op), column blocks in parallel.
func (t *DBMTrainer) product(op kernel.GemmOp, alpha float64, m, n, k int, a, b, c []float64) {
	parallel(chunks(n, dbmColChunk), t.Opt.Workers, func(_, ch int) {
		kernel.GemmCols(op, alpha, m, ch*dbmColChunk, min((ch+1)*dbmColChunk, n), k, a, k, b, n, c, n)
	})
}

// reconError returns Σ_n Σ_i (v_i − σ(b_0 + W_0 μ_1)_i)² over the minibatch.
func (t *DBMTrainer) reconError(B int) float64 {
	m, j := t.M, t.j
	D, n1 := m.Sizes[0], m.Sizes[1]
	z := j.z[:B*D]
	t.product(kernel.GemmSet, 1, B, D, n1, j.mu[1], j.wt[0], z)
	nc := chunks(B, chunkSize)
	parallel(nc, t.Opt.Workers, func(_, c int) {
		s := 0.0
		for r := c * chunkSize; r < min((c+1)*chunkSize, B); r++ {
			v := j.mu[0][r*D : (r+1)*D]
			for i, x := range z[r*D : (r+1)*D] {
				d := v[i] - nmath.Sigmoid(m.B[0][i]+x)
				s += d * d
			}
		}
		j.sq[c] = s
	})
	s := 0.0
	for _, x := range j.sq[:nc] {
		s += x
	}
	return s
}

// onUnits returns the indices of the non-zero entries of x, in on's storage.
func onUnits(on []int32, x []float64) []int32 {
	on = on[:0]
	for i, v := range x {
		if v != 0 {
			on = append(on, int32(i))
		}
	}
	return on
}

// sweep advances chain c by one Gibbs sweep: the odd layers given the even
// ones, then the even layers given the odd ones.
func (t *DBMTrainer) sweep(s *dbmScratch, c int, rng *rand.Rand) {
	m, j := t.M, t.j
	L := m.NumLayers()
	for _, start := range [2]int{1, 0} {
		for l := start; l <= L; l += 2 {
			n := m.Sizes[l]
			z := s.z[:n]
			copy(z, m.B[l])
			if l > 0 {
				p := m.Sizes[l-1]
				kernel.AddRows(z, m.W[l-1], onUnits(s.on, j.chains[l-1][c*p:(c+1)*p]))
			}
			if l < L {
				q := m.Sizes[l+1]
				kernel.AddRows(z, j.wt[l], onUnits(s.on, j.chains[l+1][c*q:(c+1)*q]))
			}
			x := j.chains[l][c*n : (c+1)*n]
			for i, zi := range z {
				x[i] = 0
				if rng.Float64() < nmath.Sigmoid(zi) {
					x[i] = 1
				}
			}
		}
	}
}

// updateRows applies the update to rows lo…hi−1 of W_l: the positive
// statistics (1/B) Σ_n μ_l μ_{l+1}ᵀ (for l = 0 a sum of the rows of μ_1
// selected by the examples with v_i = 1, otherwise from gpos) minus the
// negative ones (1/M) Σ_c x_l x_{l+1}ᵀ (a sum of the chains' x_{l+1} rows
// selected by x_{l,i} = 1).
func (t *DBMTrainer) updateRows(s *dbmScratch, l, lo, hi, B int, lr, mom float64) {
	m, j, o := t.M, t.j, t.Opt
	n, n1 := m.Sizes[l], m.Sizes[l+1]
	invB, invM, wd := 1/float64(B), 1/float64(o.Chains), o.WeightDecay
	g, neg := s.g[:n1], s.neg[:n1]
	for i := lo; i < hi; i++ {
		if l == 0 {
			clear(g)
			on := s.on[:0]
			for r := range B {
				if j.mu[0][r*n+i] != 0 {
					on = append(on, int32(r))
				}
			}
			kernel.AddRows(g, j.mu[1], on)
			for c := range g {
				g[c] *= invB
			}
		} else {
			copy(g, j.gpos[l][i*n1:(i+1)*n1])
		}
		clear(neg)
		on := s.on[:0]
		for c := range o.Chains {
			if j.chains[l][c*n+i] != 0 {
				on = append(on, int32(c))
			}
		}
		kernel.AddRows(neg, j.chains[l+1], on)
		w, vel := m.W[l][i*n1:(i+1)*n1], j.velW[l][i*n1:(i+1)*n1]
		for c, x := range w {
			vel[c] = mom*vel[c] + lr*(g[c]-invM*neg[c]-wd*x)
			w[c] = x + vel[c]
		}
	}
}
