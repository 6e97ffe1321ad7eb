package train

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/optim"
	"github.com/logz-ml/logz/models"
)

// MRF is a fully visible model trained by the χ² objective: its
// unnormalised log-probability (a chi2.Target), its parameters as one flat
// slice and the gradient of log p̃_θ(x) with respect to them.
type MRF interface {
	chi2.Target
	// Params is the live parameter vector; call Changed after changing it.
	Params() []float64
	Changed()
	// AddGradLogP adds scale·∇_θ log p̃_θ(x) to g.
	AddGradLogP(x []uint8, scale float64, g []float64)
}

// MRFChi2Options configures a Chi2Learner.
type MRFChi2Options struct {
	BatchSize    int
	LearningRate float64 // Adam's (or SGD's) step on θ
	// SGD takes plain gradient-ascent steps θ ← θ + LearningRate·∇L
	// instead of Adam's.
	SGD bool
	// QSteps is the number of fitter steps on q per step on θ.
	QSteps int
	// Fit configures the fitter of q (its Samples are the draws per step,
	// also used for the θ step).
	Fit chi2.FitOptions
	// SelfNormalised weighs the θ step's draws by w_i²/Σw_j² instead of the
	// linearised w_i²/(nγ) (eq. 6 of the paper, the default).
	SelfNormalised bool
	Shuffle        bool
	OnBatch        func(examples int)
}

// Chi2Learner maximises the lower bound on the log-likelihood
//
//	L(θ, q) = (1/n) Σ_i log p̃_θ(x_i) − ½ log E_q[(p̃_θ(x)/q(x))²]
//
// (Kuleshov & Ermon 2017, eq. 5–6) by alternating QSteps fitter steps on q
// (which lower the bound on log Z_θ towards log Z_θ) with one Adam ascent
// step on θ along
//
//	∇_θ L = (1/B) Σ_b ∇ log p̃_θ(x_b) − Σ_i ω_i ∇ log p̃_θ(x̃_i),
//
// x̃_i fresh draws from q and ω_i their weights w_i²/(nγ) (linearised at
// the fitter's running γ ≈ E_q[w²]; unbiased for fixed γ) or w_i²/Σ_j w_j².
// The batch's bound estimate ½ log mean w² before each θ step is the
// tracked log Z.
type Chi2Learner struct {
	M     MRF
	Opt   MRFChi2Options
	Fit   *chi2.Fitter
	Adam  optim.Adam
	Epoch int

	src       *rand.PCG
	rng       *rand.Rand
	grad, wts []float64
	perm      []int
	lastLogZ  float64
	sumLogZ   float64
	nLogZ     int
	logp      func([]uint8) float64
}

// NewChi2Learner returns a learner of m with proposal q, its generator
// seeded by seed.
func NewChi2Learner(m MRF, q chi2.Proposal, opt MRFChi2Options, seed uint64) (*Chi2Learner, error) {
	if opt.BatchSize < 1 || opt.QSteps < 0 || !(opt.LearningRate > 0) {
		return nil, fmt.Errorf("chi2 learner: batch size %d, q steps %d, learning rate %g: want ≥ 1, ≥ 0, > 0", opt.BatchSize, opt.QSteps, opt.LearningRate)
	}
	if q.Dim() != m.Dim() {
		return nil, fmt.Errorf("chi2 learner: the proposal has %d units, the model %d", q.Dim(), m.Dim())
	}
	f, err := chi2.NewFitter(q, opt.Fit)
	if err != nil {
		return nil, err
	}
	src := rand.NewPCG(seed, 0x6368693221)
	return &Chi2Learner{M: m, Opt: opt, Fit: f, Adam: optim.NewAdam(opt.LearningRate, len(m.Params())),
		src: src, rng: rand.New(src), grad: make([]float64, len(m.Params())),
		wts: make([]float64, 0, opt.Fit.Samples), logp: m.NewLogP()}, nil
}

// Chi2Epoch is what an epoch of χ² learning reports.
type Chi2Epoch struct {
	Epoch int
	// TrackedLogZ is the mean over the epoch's θ steps of the bound
	// estimate ½ log mean w² on the draws of each step (each taken before
	// its θ step); LastLogZ the last; EndLogZ the estimate at the epoch's
	// final θ, on fresh draws of q (q is not refitted for them).
	TrackedLogZ, LastLogZ, EndLogZ float64
}

// TrainEpoch makes one pass over x in minibatches.
func (l *Chi2Learner) TrainEpoch(x data.Examples) (Chi2Epoch, error) {
	l.perm = Order(l.perm, x.Len(), l.Opt.Shuffle, l.rng)
	l.sumLogZ, l.nLogZ = 0, 0
	if _, err := Minibatches(l.perm, l.Opt.BatchSize, l.Opt.OnBatch, func(_ int, idx []int) error { return l.step(x, idx) }, nil); err != nil {
		return Chi2Epoch{}, fmt.Errorf("epoch %d: %w", l.Epoch+1, err)
	}
	l.Epoch++
	// The bound at the epoch's final θ, on fresh draws of the current q.
	after, err := l.Fit.Draw(l.logp, l.rng)
	if err != nil {
		return Chi2Epoch{}, fmt.Errorf("epoch %d: %w", l.Epoch, err)
	}
	return Chi2Epoch{Epoch: l.Epoch, TrackedLogZ: l.sumLogZ / float64(l.nLogZ), LastLogZ: l.lastLogZ, EndLogZ: after}, nil
}

func (l *Chi2Learner) step(x data.Examples, idx []int) error {
	for range l.Opt.QSteps {
		if _, err := l.Fit.Step(l.logp, l.rng); err != nil {
			return err
		}
	}
	half, err := l.Fit.Draw(l.logp, l.rng)
	if err != nil {
		return err
	}
	l.lastLogZ = half
	l.sumLogZ += half
	l.nLogZ++
	if l.Opt.SelfNormalised {
		l.wts = l.Fit.NormalisedSquares(l.wts)
	} else {
		l.wts = l.Fit.Linearised(l.wts)
	}
	clear(l.grad)
	inv := 1 / float64(len(idx))
	for _, i := range idx {
		l.M.AddGradLogP(x.Row(i), inv, l.grad)
	}
	for i, d := range l.Fit.Draws {
		l.M.AddGradLogP(d.X, -l.wts[i], l.grad)
	}
	if l.Opt.SGD {
		p := l.M.Params()
		for k, g := range l.grad {
			p[k] += l.Opt.LearningRate * g
		}
	} else {
		l.Adam.Step(l.M.Params(), l.grad, -1)
	}
	for _, v := range l.M.Params() {
		if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > models.MaxAbsParam {
			return fmt.Errorf("%w: a parameter is %g", ErrDiverged, v)
		}
	}
	l.M.Changed()
	return nil
}

// State returns the learner's state for a checkpoint, every key starting
// with "chi2_" so that it merges with a trainer's own state: θ's Adam
// moments and step (chi2_adam_m, chi2_adam_s, chi2_scalars), the proposal
// and its fitter (chi2_q_…, chi2.PutState) and the generator (chi2_rng).
func (l *Chi2Learner) State() (map[string]models.Array, map[string][]byte, error) {
	arrays := map[string]models.Array{
		"chi2_adam_m":  {Shape: []int{len(l.Adam.M)}, Data: l.Adam.M},
		"chi2_adam_s":  {Shape: []int{len(l.Adam.S)}, Data: l.Adam.S},
		"chi2_scalars": {Shape: []int{2}, Data: []float64{float64(l.Adam.T), float64(l.Epoch)}},
	}
	rng, err := l.src.MarshalBinary()
	if err != nil {
		return nil, nil, err
	}
	bytes := map[string][]byte{"chi2_rng": rng}
	chi2.PutState("chi2_q_", l.Fit, arrays, bytes)
	return arrays, bytes, nil
}

// Restore sets the learner's state from State's output (θ itself is the
// checkpoint's model and is restored by the caller).
func (l *Chi2Learner) Restore(arrays map[string]models.Array, bytes map[string][]byte) error {
	n := len(l.M.Params())
	m, s, sc := arrays["chi2_adam_m"], arrays["chi2_adam_s"], arrays["chi2_scalars"]
	if len(m.Data) != n || len(s.Data) != n || len(sc.Data) != 2 {
		return fmt.Errorf("checkpoint: χ² learner state has %d/%d Adam moments for %d parameters", len(m.Data), len(s.Data), n)
	}
	f, err := chi2.LoadState("chi2_q_", l.Opt.Fit, arrays, bytes)
	if err != nil {
		return err
	}
	if err := l.src.UnmarshalBinary(bytes["chi2_rng"]); err != nil {
		return fmt.Errorf("checkpoint: χ² learner generator: %w", err)
	}
	copy(l.Adam.M, m.Data)
	copy(l.Adam.S, s.Data)
	l.Adam.T, l.Epoch = int(sc.Data[0]), int(sc.Data[1])
	l.Fit = f
	l.M.Changed()
	return nil
}
