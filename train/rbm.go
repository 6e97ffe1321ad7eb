package train

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// Schedule gives the per-epoch settings (epochs are 1-based).
type Schedule interface {
	KAt(epoch int) int
	LearningRateAt(epoch int) float64
	MomentumAt(epoch int) float64
}

// ErrDiverged is models.ErrDiverged, wrapped by the error returned when a
// parameter becomes NaN or ±Inf.
var ErrDiverged = models.ErrDiverged

// chunkSize is the number of examples of a minibatch handled by one goroutine
// with its own generator. It is fixed, so results do not depend on GOMAXPROCS.
const chunkSize = 25

// RBMOptions configures an RBMTrainer.
type RBMOptions struct {
	// Persistent selects PCD (persistent chains) instead of CD-k.
	Persistent bool
	// Chains is the number of persistent chains (PCD); default BatchSize.
	Chains      int
	BatchSize   int
	WeightDecay float64 // L2 penalty λ on W
	Shuffle     bool
	Schedule    Schedule
	Workers     int // goroutines; 0 = 2. Results do not depend on it.
	// UpScale and DownScale multiply the bottom-up input of the hidden units
	// and the top-down input of the visible units in the conditionals,
	//
	//	p(h|v) = σ(b + UpScale·Wᵀv),  p(v|h) = σ(a + DownScale·W h);
	//
	// 0 means 1, an ordinary RBM. The gradient statistics stay
	// E_data[v hᵀ] − E_model[v hᵀ] with these conditionals. They make the
	// modified RBMs with which Salakhutdinov & Hinton (2009) pretrain a DBM
	// (2 in the direction of the layer's missing neighbour); DBMTrainer sets
	// them, and DBNTrainer refuses them.
	UpScale, DownScale float64
	// Epochs is the number of epochs to train (the trainer's Total).
	Epochs int
	// Precision kernel.Float32 makes the Gibbs sweeps and the gradient's
	// sums read float32 copies of W, Wᵀ and the biases and keep the hidden
	// probabilities and row sums in float32 (half the bytes, twice the SIMD
	// lanes), with cheaper Bernoulli draws; the parameters, their
	// velocities and the update stay float64 (see rbm_fast.go).
	// kernel.Float64 (or unset) keeps every number of the float64 trainer.
	// The checkpoint records it, and a resume in the other precision is
	// refused (kernel.Check).
	Precision kernel.Precision
}

// RBMTrainer trains an RBM by stochastic gradient ascent on the
// log-likelihood with the CD-k or PCD approximation of its gradient,
//
//	∂ log p(v)/∂W = E_data[v hᵀ] − E_model[v hᵀ],
//
// where the data term uses p(h|v) for the minibatch and the model term the
// state of k block-Gibbs steps started at the data (CD-k) or at persistent
// chains (PCD), with p(h|v_k) in place of h_k. The update with momentum μ,
// learning rate ε and weight decay λ is Δ ← μΔ + ε(∇ − λW), W ← W + Δ
// (biases are not decayed).
type RBMTrainer struct {
	M   *models.RBM
	Opt RBMOptions
	epochs

	src              *rand.PCG // master generator (checkpointed)
	rng              *rand.Rand
	velW, velA, velB []float64
	chains           []float64 // Chains×D persistent visible states (PCD)
	wt               []float64 // Wᵀ (H×D), refreshed each batch
	up, down         float64   // UpScale and DownScale, 0 resolved to 1
	tasks            []*task
	perm             []int
	ready            bool
	fast             fastBuffers // states of the binary fast path (rbm_fast.go)
	// f64 or (Opt.Precision float32) f32 are the fast path's reads in its
	// precision.
	f64  *fastMats[float64]
	f32  *fastMats[float32]
	wtOK bool // f64/f32 hold the parameters (kept by the fast path's update)
	// wChecked: the last update measured max |W_ij| (wBig) and whether W is
	// finite (wFinite), so checkFinite need not read W again.
	wChecked, wFinite bool
	wBig              float64
}

// task is one fixed-size piece of a minibatch update: either the positive
// phase of up to chunkSize examples (with, for CD, their negative phase), or
// the negative phase of up to chunkSize persistent chains. Each task has its
// own generator, seeded from the master in a fixed order.
type task struct {
	src      rand.PCG
	rng      *rand.Rand
	v, vk    []float64 // D
	p, pk, h []float64 // H
	vpre     []float64 // D
	on       []int32   // indices of the units at 1 (scratch, max(D,H))
	pd       []float64 // H: p − p_k (scratch)
	gW       []float64 // D×H statistics, summed over the task's rows
	gA, gB   []float64
	scale    float64 // weight of this task's statistics in the gradient
	sqErr    float64
	id       int   // index in RBMTrainer.tasks
	rows     []int // examples (positive tasks)
	slot     int   // row of rows[0] in the fast path's minibatch buffers
	chainLo  int   // first chain (negative tasks)
	chainHi  int
	negative bool
}

// NewRBMTrainer prepares a trainer; seed determines every random draw.
func NewRBMTrainer(m *models.RBM, opt RBMOptions, seed uint64) (*RBMTrainer, error) {
	if opt.BatchSize <= 0 {
		return nil, fmt.Errorf("batch size must be positive, got %d", opt.BatchSize)
	}
	if opt.Schedule == nil {
		return nil, errors.New("no schedule")
	}
	prec, err := kernel.Parse(string(opt.Precision), kernel.Float64)
	if err != nil {
		return nil, err
	}
	opt.Precision = prec
	if opt.Persistent && opt.Chains <= 0 {
		opt.Chains = opt.BatchSize
	}
	if opt.Workers <= 0 {
		opt.Workers = 2
	}
	for _, s := range []struct {
		name string
		v    float64
	}{{"up", opt.UpScale}, {"down", opt.DownScale}} {
		if !(s.v >= 0) || math.IsInf(s.v, 0) {
			return nil, fmt.Errorf("%s scale %v must be a positive number (0 means 1)", s.name, s.v)
		}
	}
	t := &RBMTrainer{M: m, Opt: opt, epochs: epochs{total: opt.Epochs}, src: rand.NewPCG(seed, 0x6c6f677a), up: scaleOrOne(opt.UpScale), down: scaleOrOne(opt.DownScale)}
	t.rng = rand.New(t.src)
	t.velW = make([]float64, len(m.W))
	t.velA = make([]float64, m.NVis)
	t.velB = make([]float64, m.NHid)
	return t, nil
}

// InitParams sets the initial parameters as is usual in the literature:
// W_ij ~ N(0, std²), hidden biases 0, visible biases vbias (e.g. the
// smoothed data log-odds; nil means 0). PCD chains start at random states
// drawn from the visible biases' Bernoulli distribution.
func (t *RBMTrainer) InitParams(std float64, vbias []float64) {
	initRBM(t.M, std, vbias, t.rng)
}

// initRBM sets W_ij ~ N(0, std²) drawn from rng, hidden biases 0 and
// visible biases vbias (nil: 0).
func initRBM(m *models.RBM, std float64, vbias []float64, rng *rand.Rand) {
	for i := range m.W {
		m.W[i] = std * rng.NormFloat64()
	}
	clear(m.HBias)
	if vbias != nil {
		copy(m.VBias, vbias)
	} else {
		clear(m.VBias)
	}
}

// scaleOrOne resolves an input scale: 0 means 1.
func scaleOrOne(s float64) float64 {
	if s == 0 {
		return 1
	}
	return s
}

func (t *RBMTrainer) setup() {
	if t.ready {
		return
	}
	m, o := t.M, t.Opt
	D, H := m.NVis, m.NHid
	n := (o.BatchSize + chunkSize - 1) / chunkSize
	if o.Persistent {
		n += (o.Chains + chunkSize - 1) / chunkSize
	}
	for range n {
		w := &task{
			v: make([]float64, D), vk: make([]float64, D), vpre: make([]float64, D), on: make([]int32, 0, max(D, H)), pd: make([]float64, H),
			p: make([]float64, H), pk: make([]float64, H), h: make([]float64, H),
		}
		w.rng = rand.New(&w.src)
		w.id = len(t.tasks)
		t.tasks = append(t.tasks, w)
	}
	R := o.BatchSize
	if o.Persistent {
		R = max(R, o.Chains)
	}
	t.fast = fastBuffers{
		v: make([]uint8, o.BatchSize*D), vr: make([]float64, o.BatchSize*D),
		vk: make([]uint8, R*D),
	}
	if o.Precision == kernel.Float32 {
		t.f32 = newFastMats32(t, n, o.BatchSize, R)
	} else {
		t.wt = make([]float64, D*H)
		t.f64 = newFastMats64(t, n, o.BatchSize, R)
	}
	if o.Persistent && t.chains == nil {
		t.chains = make([]float64, o.Chains*D)
		for i := range t.chains {
			if t.rng.Float64() < nmath.Sigmoid(m.VBias[i%D]) {
				t.chains[i] = 1
			}
		}
	}
	t.ready = true
}

// pcdReconEvery: PCD reconstructs (h ~ p(h|v), then p(v|h)) only the
// examples at positions 0, pcdReconEvery, 2·pcdReconEvery, … of each
// minibatch and scales their summed error to the minibatch. The
// reconstruction is a monitor that no PCD update uses, and a pass h→v for
// every example costs as much as the negative phase's own. With shuffling
// the measured examples are a uniform random tenth of the epoch, so the
// epoch's figure is an unbiased estimate of the mean over all examples.
const pcdReconEvery = 10

// reconScale is the factor from the summed error of the reconstructed
// examples of a minibatch of b examples to the minibatch: b over their
// number ⌈b/every⌉.
func reconScale(b, every int) float64 {
	return float64(b) / float64((b+every-1)/every)
}

// TrainEpoch runs one pass over data in minibatches. Data that implement
// RealData are read with RealRow: the positive phase then uses the real
// values (e.g. mean-field probabilities) and CD chains start from them;
// binary data give the same numbers as before. The summary's ReconError is
// the mean over examples of Σ_i (v_i − p(v_i|h))² after one Gibbs step from
// the data: a cheap signal, not a likelihood; for PCD it is measured on
// every pcdReconEvery-th example of each minibatch only (Signal
// "recon-1in10"). On divergence it returns an error wrapping ErrDiverged
// that names the epoch and batch; the model's parameters are then unusable
// and the caller keeps its last checkpoint.
func (t *RBMTrainer) TrainEpoch(data data.Examples) (EpochSummary, error) {
	t.setup()
	m, o := t.M, t.Opt
	if len(data.Row(0)) != m.NVis {
		return EpochSummary{}, fmt.Errorf("data has %d units per example, the model %d visible units", len(data.Row(0)), m.NVis)
	}
	epoch := t.done + 1
	k := o.Schedule.KAt(epoch)
	lr := o.Schedule.LearningRateAt(epoch)
	mom := o.Schedule.MomentumAt(epoch)
	n := data.Len()
	t.wtOK = false // the parameters may have been set since the last epoch
	t.perm = Order(t.perm, n, o.Shuffle, t.rng)
	sqErr := 0.0
	if err := t.run(t.perm, o.BatchSize, func(_ int, idx []int) error {
		sqErr += t.batch(data, idx, k, lr, mom)
		return nil
	}, t.checkFinite); err != nil {
		return EpochSummary{}, err
	}
	return EpochSummary{Epoch: epoch, K: k, LearningRate: lr, Momentum: mom, ReconError: sqErr / float64(n), Signal: t.reconSignal()}, nil
}

// Current is the model being trained, M.
func (t *RBMTrainer) Current() models.Model { return t.M }

// EpochSettings are the epoch line's k, learning rate and momentum.
func (t *RBMTrainer) EpochSettings(s EpochSummary) string { return RBMSettings(s) }

// reconEvery is every how many examples of a minibatch the reconstruction
// error is measured: 1 for CD-k (whose negative phase does it anyway),
// pcdReconEvery for PCD.
func (t *RBMTrainer) reconEvery() int {
	if t.Opt.Persistent {
		return pcdReconEvery
	}
	return 1
}

// reconSignal names the epoch's ReconError: "" when every example is
// reconstructed, "recon-1in10" when every tenth is (PCD).
func (t *RBMTrainer) reconSignal() string {
	if e := t.reconEvery(); e > 1 {
		return fmt.Sprintf("recon-1in%d", e)
	}
	return ""
}

// checkFinite reports a model whose parameters are not finite or exceed
// models.MaxAbsParam in magnitude (such a model could be saved but not
// loaded again: training has diverged).
func (t *RBMTrainer) checkFinite() error {
	var s, big float64
	if t.wChecked {
		if !t.wFinite {
			return t.M.Validate()
		}
		big = t.wBig
	} else {
		s, big = sumMaxAbs(t.M.W, 0, 0)
	}
	s, big = sumMaxAbs(t.M.VBias, s, big)
	s, big = sumMaxAbs(t.M.HBias, s, big)
	if math.IsNaN(s) || math.IsInf(s, 0) || big > models.MaxAbsParam {
		return t.M.Validate()
	}
	return nil
}

// sumMaxAbs adds the sum of xs to s and returns it with the larger of big
// and the largest |x|.
func sumMaxAbs(xs []float64, s, big float64) (float64, float64) {
	for _, x := range xs {
		s += x
		big = max(big, math.Abs(x))
	}
	return s, big
}

// batch performs one parameter update from the examples idx and returns the
// summed squared reconstruction error (for PCD estimated from every
// pcdReconEvery-th example; the phases are in rbm_fast.go).
func (t *RBMTrainer) batch(data data.Examples, idx []int, k int, lr, mom float64) float64 {
	var sq float64
	if t.f32 != nil {
		sq = runBatch(t, t.f32, data, idx, k, lr, mom)
	} else {
		sq = runBatch(t, t.f64, data, idx, k, lr, mom)
	}
	return sq * reconScale(len(idx), t.reconEvery())
}

// axpy adds a·x to dst.
func axpy[F fastFloat](dst []F, a F, x []F) {
	dst = dst[:len(x)]
	for i, v := range x {
		dst[i] += a * v
	}
}

// accumulate adds sign·v pᵀ to gW (a sum of selected rows for binary v,
// weighted by v_i for real-valued v), sign·v to gA and sign·p to gB.
func accumulate(w *task, v, p []float64, sign float64) {
	H := len(p)
	for i, x := range v {
		if x == 0 {
			continue
		}
		row := w.gW[i*H : (i+1)*H]
		s := sign * x
		for j, q := range p {
			row[j] += s * q
		}
		w.gA[i] += s
	}
	for j, q := range p {
		w.gB[j] += sign * q
	}
}

// hiddenProbs sets p_j = σ(b_j + s·Σ_i v_i W_ij) with s = up (the RBM's
// UpScale): a sum of the rows of W selected by the units at 1 (rowsum, four
// rows per pass), plus weighted rows for real-valued entries (mean-field
// data). on is scratch of length ≥ D. With s = 1 the bias is the starting
// value of the sum.
func hiddenProbs(p []float64, m *models.RBM, v []float64, on []int32, up float64) {
	H := m.NHid
	if up == 1 {
		copy(p, m.HBias)
	} else {
		clear(p[:H])
	}
	on = on[:0]
	for i, x := range v {
		switch x {
		case 0:
		case 1:
			on = append(on, int32(i))
		default:
			row := m.W[i*H : (i+1)*H]
			for j, w := range row {
				p[j] += x * w
			}
		}
	}
	kernel.AddRows(p[:H], m.W, on)
	if up != 1 {
		for j, x := range p[:H] {
			p[j] = m.HBias[j] + up*x
		}
	}
	for j, x := range p {
		p[j] = nmath.Sigmoid(x)
	}
}

// visiblePre sets pre_i = a_i + s·Σ_{j: h_j=1} W_ij for a binary h with
// s = down (the RBM's DownScale), a sum of rows of Wᵀ. on is scratch of
// length ≥ H.
func visiblePre(pre []float64, m *models.RBM, wt []float64, h []float64, on []int32, down float64) {
	if down == 1 {
		copy(pre, m.VBias)
	} else {
		clear(pre[:m.NVis])
	}
	on = on[:0]
	for j, x := range h {
		if x != 0 {
			on = append(on, int32(j))
		}
	}
	kernel.AddRows(pre[:m.NVis], wt, on)
	if down != 1 {
		for i, x := range pre[:m.NVis] {
			pre[i] = m.VBias[i] + down*x
		}
	}
}

// sample sets dst_i ~ Bernoulli(p_i).
func sample(dst, p []float64, rng *rand.Rand) {
	for i, x := range p {
		if rng.Float64() < x {
			dst[i] = 1
		} else {
			dst[i] = 0
		}
	}
}
