package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/mlp"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/optim"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// Prior training methods of a VAE with an RBM prior: how the gradient of
// its log-partition function is estimated.
const (
	PriorTrainingChi2 = "chi2" // the χ² bound's weighted draws from q
	PriorTrainingPCD  = "pcd"  // persistent Gibbs chains over z
)

// VAEOptions configures a VAETrainer.
type VAEOptions struct {
	BatchSize int
	// LearningRate is Adam's step size for the decoder, the encoder, the
	// prior and the NVIL baseline network.
	LearningRate float64
	// Samples is the number of draws z ~ q(z|x) per example and step.
	Samples int
	Shuffle bool
	Workers int // goroutines; 0 = 2. Results do not depend on it.
	// PriorTraining is PriorTrainingChi2 or PriorTrainingPCD (RBM prior).
	PriorTraining string
	// QSteps, QSamples, QComponents, QLearningRate, QDecay, QInitStd and
	// Linearise are the χ² fitter's settings, as in Chi2Options. The
	// fitter tracks log Z for either PriorTraining.
	QSteps, QSamples, QComponents int
	QLearningRate, QDecay         float64
	QInitStd                      float64
	Linearise                     bool
	// Chains and GibbsSteps are the persistent chains and the block-Gibbs
	// steps per parameter step of PriorTrainingPCD.
	Chains, GibbsSteps int
	// BaselineHidden is the number of tanh units of the NVIL baseline
	// network b(x) (0: no input-dependent baseline, the running mean only).
	BaselineHidden int
	// SignalDecay is the weight of the past in the running mean and
	// variance of the learning signal.
	SignalDecay float64
	// SignalClip clips the normalised learning signal to ±SignalClip
	// (0: no clipping).
	SignalClip float64
	// Epochs is the number of epochs to train (the trainer's Total).
	Epochs int
	// Precision is the arithmetic of the gradient's products and
	// activations (vaeEngine): kernel.Float32 or kernel.Float64 ("" too).
	Precision kernel.Precision
}

// Check reports impossible options.
func (o VAEOptions) Check() error {
	switch {
	case o.BatchSize <= 0:
		return fmt.Errorf("batch size must be positive, got %d", o.BatchSize)
	case !(o.LearningRate > 0) || math.IsInf(o.LearningRate, 0):
		return fmt.Errorf("learning rate must be a positive number, got %g", o.LearningRate)
	case o.Samples < 1:
		return fmt.Errorf("latent samples per example must be ≥ 1, got %d", o.Samples)
	case o.PriorTraining != PriorTrainingChi2 && o.PriorTraining != PriorTrainingPCD:
		return fmt.Errorf("prior training %q: expected %s or %s", o.PriorTraining, PriorTrainingChi2, PriorTrainingPCD)
	case o.QSteps < 1:
		return fmt.Errorf("chi2: q steps per parameter step must be ≥ 1, got %d", o.QSteps)
	case o.QComponents < 1:
		return fmt.Errorf("chi2: q needs ≥ 1 component, got %d", o.QComponents)
	case !(o.QInitStd >= 0) || math.IsInf(o.QInitStd, 0):
		return fmt.Errorf("chi2: q's initial noise std must be a non-negative number, got %g", o.QInitStd)
	case o.PriorTraining == PriorTrainingPCD && (o.Chains < 1 || o.GibbsSteps < 1):
		return fmt.Errorf("pcd: needs chains ≥ 1 and Gibbs steps ≥ 1, got %d and %d", o.Chains, o.GibbsSteps)
	case o.BaselineHidden < 0:
		return fmt.Errorf("baseline hidden units must be ≥ 0, got %d", o.BaselineHidden)
	case !(o.SignalDecay >= 0 && o.SignalDecay < 1):
		return fmt.Errorf("signal decay must be in [0, 1), got %g", o.SignalDecay)
	case !(o.SignalClip >= 0) || math.IsInf(o.SignalClip, 0):
		return fmt.Errorf("signal clip must be a non-negative number, got %g", o.SignalClip)
	}
	if _, err := kernel.Parse(string(o.Precision), kernel.Float64); err != nil {
		return err
	}
	return o.fitOptions().Check()
}

func (o VAEOptions) fitOptions() chi2.FitOptions {
	return chi2.FitOptions{Samples: o.QSamples, LearningRate: o.QLearningRate, Decay: o.QDecay}
}

// Purposes of the VAE trainer's random streams (seeds.Derive labels).
// Every stream is derived afresh from (purpose, epoch, minibatch, …), so
// no generator state needs to be checkpointed.
const (
	vaeSeedInit    = 1 // (net): initial parameters
	vaeSeedShuffle = 2 // (epoch): the order of the examples
	vaeSeedLatent  = 3 // (epoch, batch, position): an example's draws z ~ q(z|x)
	vaeSeedQ       = 4 // (epoch, batch): the fitter's draws of one step
	vaeSeedChain   = 5 // (epoch, batch, chunk): Gibbs steps of a chunk of chains
	vaeSeedQInit   = 6 // the noise on q's initial logits
)

// VAETrainer trains a models.VAE with binary latents (Kuleshov & Ermon
// 2017 §4.1; docs/methods.md#vae) by maximising, per example x,
//
//	L(x) = E_q(z|x)[f(x,z)] − log Z,   f(x,z) = log p(x|z) + log p̃(z) − log q(z|x),
//
// with, for an RBM prior p̃(z) = exp(−F(z)), log Z replaced by the χ²
// upper bound ½ log E_r[(p̃(z)/r(z))²] of a mixture r fitted alternately
// (QSteps fitter steps per parameter step), so that L is a lower bound on
// log p(x) in expectation; a Bernoulli prior is normalised (log Z = 0).
// Each step draws Samples z_s ~ q(z|x) per example and ascends, averaged
// over the minibatch and the draws, by Adam (internal/optim):
//
//	decoder:  ∇ log p(x|z_s)    (backprop of dℓ = x − σ(ℓ))
//	prior:    ∇ log p̃(z_s) − ∇̂ log Z, with for an RBM
//	          ∇_W log p̃(z) = z σ(c + Wᵀz)ᵀ, ∇_a = z, ∇_c = σ(c + Wᵀz),
//	          ∇̂ log Z = Σ_i ω_i ∇ log p̃(z̃_i), z̃_i ~ r (chi2: ω_i = w_i²/(nγ)
//	          or w_i²/Σ_j w_j², as RBMChi2Trainer), or the mean of
//	          ∇ log p̃ over persistent Gibbs chains (pcd); for a Bernoulli
//	          prior with logits λ, ∇_λ log p(z) = z − σ(λ) exactly.
//	encoder:  NVIL (Mnih & Gregor 2014): s · ∇ log q(z_s|x), with
//	          ∇_κ log q = z − σ(κ), the learning signal
//	          r = f(x,z_s) − b(x),  s = clip((r − μ)/max(1, √v)),
//	          b(x) a tanh MLP (BaselineHidden units) and μ, v running
//	          averages (decay SignalDecay) of r's mean and variance over
//	          the previous steps. Since E_q[∇ log q] = 0 and b, μ, v do
//	          not depend on z_s, s·max(1, √v) has the expectation of
//	          f ∇ log q, the encoder's gradient of E_q[f] (unclipped).
//	baseline: b descends ½(r − μ)² (gradient (r − μ)∇b, ascent form).
//
// Each minibatch is cut into fixed chunks of chunkSize examples (and of
// draws or chains); an example's draws come from a generator keyed by
// (epoch, minibatch, position), chains by (epoch, minibatch, chunk), and
// the chunks' gradients are summed in a fixed order, so results do not
// depend on Workers or GOMAXPROCS.
type VAETrainer struct {
	M    *models.VAE
	Opt  VAEOptions
	Seed uint64
	epochs
	// Fit is the prior's χ² fitter (nil for a Bernoulli prior).
	Fit *chi2.Fitter
	// Base is the NVIL baseline network b(x) (nil if BaselineHidden = 0).
	Base *mlp.Net
	// SignalMean, SignalVar and SignalSteps are the running statistics of
	// the learning signal r = f − b(x).
	SignalMean, SignalVar float64
	SignalSteps           int
	// LogZ is the mean tracked bound ½ log mean_i w_i² of the last epoch's
	// steps on fresh draws of q (0 for a Bernoulli prior; after a resume,
	// the checkpoint's value): biased low as a Monte-Carlo estimate
	// (docs/methods.md#chi2-bias), high by q's χ² gap.
	LogZ float64

	adamDec, adamEnc, adamBase   optim.Adam
	adamW, adamA, adamC, adamLog optim.Adam
	chains                       []float64 // Chains × Z persistent states (pcd)
	wt                           []float64 // prior Wᵀ (H×Z), refreshed per step (pcd)
	logp                         func([]uint8) float64
	qsrc                         *rand.PCG
	qrng                         *rand.Rand
	omega                        []float64
	// The step's fitting of q (Step): with two or more workers it runs on
	// its own goroutine (fitRun) beside the engine's first phases, which do
	// not read q, until priorReady waits for it; fitting says it was
	// started, fitBound and fitErr are its result.
	fitGroup      workgroup.Group
	fitRun        func()
	fitting       bool
	fitBound      float64
	fitErr        error
	tasks, active []*vaeTask
	perm          []int
	data          data.Examples
	epoch, batch  int // keys of the current step's streams
	scale         float64
	eng           vaeGradEngine // the gradient in Opt.Precision
	// inEpoch: TrainEpoch is running its steps, so that without a fitting
	// of q (a Bernoulli prior) the engine's helpers live from one step to
	// the next (engine.keepPool) and TrainEpoch stops them at its end.
	inEpoch bool
	// mom32: the float32 engine's Adam moments of the nets' weights (vae_adam32.go).
	mom32 map[*optim.Adam]*moments32
	// adamAux are the Adam states of the auxiliary nets (Q, Enc, P of
	// models.VAEAux).
	adamAux []optim.Adam
}

// vaeTask is a fixed chunk of a step: examples (kind vaeData), the χ²
// draws (vaeDraws) or persistent chains (vaeChains), with its own scratch
// and gradient buffers.
type vaeTask struct {
	kind   int
	pos    int   // position in the minibatch of rows[0] (data)
	rows   []int // examples (data)
	lo, hi int   // draws or chains

	prior         task // RBM prior: v = z as floats, p, on, gW, gA, gB
	s             *models.VAEScratch
	sb            []float64 // baseline scratch
	z, zs         []uint8   // one draw; Samples draws of an example
	dyDec, dyEnc  []float64
	dyBase        [1]float64
	h             []float64 // hidden state of a chain
	gDec, gEnc    []float64
	gBase, gLog   []float64
	ax            *vaeAuxTask // auxiliary variables (nil without)
	src           rand.PCG
	rng           *rand.Rand
	sumF, sumD    float64 // Σ f, Σ (r − μ)
	sumD2, sumLog float64 // Σ (r − μ)², Σ log p(x|z)
}

const (
	vaeData = iota
	vaeDraws
	vaeChains
)

// NewVAETrainer prepares a trainer of m; seed determines every random
// draw. Call InitParams to start from the usual initial parameters.
func NewVAETrainer(m *models.VAE, opt VAEOptions, seed uint64) (*VAETrainer, error) {
	if opt.Workers <= 0 {
		opt.Workers = 2
	}
	if m.Prior == nil {
		opt.PriorTraining = PriorTrainingChi2 // unused: no log Z
	}
	if err := opt.Check(); err != nil {
		return nil, err
	}
	t := &VAETrainer{M: m, Opt: opt, Seed: seed, epochs: epochs{total: opt.Epochs}}
	if m.Aux != nil {
		t.newAuxAdams()
	}
	t.adamDec = optim.NewAdam(opt.LearningRate, m.Dec.NumParams())
	t.adamEnc = optim.NewAdam(opt.LearningRate, m.Enc.NumParams())
	if opt.BaselineHidden > 0 {
		sizes := []int{m.NumVisible(), opt.BaselineHidden, 1}
		t.Base = mlp.MustNew(sizes, make([]float64, mlp.NumParams(sizes)))
		t.adamBase = optim.NewAdam(opt.LearningRate, t.Base.NumParams())
	}
	Z := m.NumLatent()
	if r := m.Prior; r != nil {
		t.adamW = optim.NewAdam(opt.LearningRate, len(r.W))
		t.adamA = optim.NewAdam(opt.LearningRate, r.NVis)
		t.adamC = optim.NewAdam(opt.LearningRate, r.NHid)
		q, err := chi2.NewMixture(Z, opt.QComponents, nil, opt.QInitStd, rand.New(rand.NewPCG(seeds.Derive(seed, vaeSeedQInit), 0)))
		if err != nil {
			return nil, err
		}
		if t.Fit, err = chi2.NewFitter(q, opt.fitOptions()); err != nil {
			return nil, err
		}
		t.logp = chi2.RBMTarget{M: r}.NewLogP()
		t.fitRun = func() { t.fitBound, t.fitErr = t.fitQ() }
		t.qsrc = rand.NewPCG(1, 0)
		t.qrng = rand.New(t.qsrc)
		t.omega = make([]float64, 0, opt.QSamples)
		if opt.PriorTraining == PriorTrainingPCD {
			t.chains = make([]float64, opt.Chains*Z)
			t.wt = make([]float64, len(r.W))
		}
	} else {
		t.adamLog = optim.NewAdam(opt.LearningRate, Z)
	}
	return t, nil
}

// InitParams draws the decoder's and encoder's weights by mlp.Init (biases
// 0), sets the decoder's output bias to base (the data's base-rate logits;
// nil: 0), the prior to zero plus N(0, priorStd²) on the RBM's W (model.init_prior_std), the NVIL
// baseline by mlp.Init and the persistent chains uniformly at random (the
// zero prior's distribution).
func (t *VAETrainer) InitParams(base []float64, priorStd float64) error {
	m := t.M
	if base != nil && len(base) != m.NumVisible() {
		return fmt.Errorf("vae trainer: %d base-rate logits for %d visible units", len(base), m.NumVisible())
	}
	t.eng = nil // its copies of the parameters are stale
	t.dropMoments32(true)
	rng := func(net uint64) *rand.Rand { return rand.New(rand.NewPCG(seeds.Derive(t.Seed, vaeSeedInit, net), 0)) }
	m.Dec.Init(rng(1))
	m.Enc.Init(rng(2))
	if base != nil {
		copy(m.Dec.B[len(m.Dec.B)-1], base)
	}
	if t.Base != nil {
		t.Base.Init(rng(3))
	}
	if m.Aux != nil {
		for i, n := range m.Aux.Nets() {
			n.Init(rng(6 + uint64(i)))
		}
	}
	if r := m.Prior; r != nil {
		initRBM(r, priorStd, nil, rng(4))
		g := rng(5)
		for i := range t.chains {
			t.chains[i] = float64(g.IntN(2))
		}
	} else {
		clear(m.PriorLogits)
	}
	return nil
}

// growTasks makes sure there are tasks for a minibatch of size examples.
func (t *VAETrainer) growTasks(size int) {
	m, o := t.M, t.Opt
	n := chunks(size, chunkSize)
	if m.Prior != nil {
		if o.PriorTraining == PriorTrainingPCD {
			n += chunks(o.Chains, chunkSize)
		} else {
			n += chunks(o.QSamples, chunkSize)
		}
	}
	X, Z := m.NumVisible(), m.NumLatent()
	for len(t.tasks) < n {
		w := &vaeTask{
			s: m.NewScratch(), z: make([]uint8, Z), zs: make([]uint8, o.Samples*Z),
			dyDec: make([]float64, X), dyEnc: make([]float64, Z),
			gDec: make([]float64, m.Dec.NumParams()), gEnc: make([]float64, m.Enc.NumParams()),
		}
		if t.Base != nil {
			w.sb = make([]float64, t.Base.ScratchLen())
			w.gBase = make([]float64, t.Base.NumParams())
		}
		if m.Aux != nil {
			w.ax = newVAEAuxTask(m)
		}
		if r := m.Prior; r != nil {
			w.prior = task{v: make([]float64, Z), p: make([]float64, r.NHid), on: make([]int32, 0, max(Z, r.NHid)),
				gW: make([]float64, len(r.W)), gA: make([]float64, Z), gB: make([]float64, r.NHid)}
			w.h = make([]float64, r.NHid)
		} else {
			w.gLog = make([]float64, Z)
		}
		w.rng = rand.New(&w.src)
		t.tasks = append(t.tasks, w)
	}
	if cap(t.active) < n {
		t.active = make([]*vaeTask, 0, n)
	}
}

// Signals of the epoch summary: the mean training ELBO with log Z from
// the tracked χ² bound (RBM prior) or exact (Bernoulli prior, log Z = 0).
const (
	SignalELBOChi2 = "elbo-chi2"
	SignalELBO     = "elbo"
)

// TrainEpoch runs one pass over data in minibatches. The summary's
// ReconError is the training ELBO, the mean over the epoch's examples and
// draws of f(x,z) minus each step's tracked log Z (a Monte-Carlo estimate,
// taken before each step's update; Signal SignalELBOChi2, or SignalELBO
// for a Bernoulli prior); LogZ becomes the mean of the steps' tracked
// bounds. On divergence (a non-finite objective, log weight or parameter)
// it returns an error wrapping ErrDiverged that names the epoch and
// minibatch.
func (t *VAETrainer) TrainEpoch(data data.Examples) (EpochSummary, error) {
	m, o := t.M, t.Opt
	if data.Len() == 0 {
		return EpochSummary{}, errors.New("no training data")
	}
	if len(data.Row(0)) != m.NumVisible() {
		return EpochSummary{}, fmt.Errorf("data has %d units per example, the model %d visible units", len(data.Row(0)), m.NumVisible())
	}
	epoch := t.done + 1
	n := data.Len()
	t.perm = Order(t.perm, n, o.Shuffle, rand.New(rand.NewPCG(seeds.Derive(t.Seed, vaeSeedShuffle, uint64(epoch)), 0)))
	var elbo, logZ float64
	t.inEpoch = true
	defer func() {
		t.inEpoch = false
		if t.eng != nil {
			t.eng.release()
		}
	}()
	if err := t.run(t.perm, o.BatchSize, func(b int, idx []int) error {
		s, err := t.Step(data, idx, epoch, b)
		elbo += s.ELBO * float64(len(idx))
		logZ += s.LogZ
		return err
	}, t.checkFinite); err != nil {
		return EpochSummary{}, err
	}
	batches := (n + o.BatchSize - 1) / o.BatchSize
	t.LogZ = logZ / float64(batches)
	sig := SignalELBO
	if m.Prior != nil {
		sig = SignalELBOChi2
	}
	return EpochSummary{Epoch: epoch, LearningRate: o.LearningRate, ReconError: elbo / float64(n), Signal: sig}, nil
}

// Current is the model being trained, M.
func (t *VAETrainer) Current() models.Model { return t.M }

// EpochSettings are the epoch line's settings, named as the train: keys:
// nvil, Adam's learning rate and the draws per example, and for an RBM
// prior how its log Z gradient is trained (chi2, or pcd's chains and k).
func (t *VAETrainer) EpochSettings(s EpochSummary) string {
	o := t.Opt
	line := fmt.Sprintf("nvil lr=%.4g samples=%d", s.LearningRate, o.Samples)
	switch {
	case t.M.Prior == nil:
	case o.PriorTraining == PriorTrainingPCD:
		line += fmt.Sprintf(" prior_training=pcd chains=%d k=%d", o.Chains, o.GibbsSteps)
	default:
		line += " prior_training=" + o.PriorTraining
	}
	return line
}

// VAEStepStats is what one step reports: the minibatch's mean f(x,z) minus
// the tracked log Z, the tracked bound, and the mean log p(x|z).
type VAEStepStats struct{ ELBO, LogZ, LogLik float64 }

// Step is one parameter step on the examples idx of data, the streams
// keyed by (epoch, batch): QSteps fitter steps on the prior's q, fresh
// draws of q for the tracked bound (and the chi2 gradient), the gradient
// and the Adam steps (the nets' within the gradient's jobs, block by block
// as each block's gradient is ready: the same arithmetic as one Adam step
// on the whole gradient).
func (t *VAETrainer) Step(data data.Examples, idx []int, epoch, batch int) (VAEStepStats, error) {
	var st VAEStepStats
	m := t.M
	if m.Prior != nil {
		t.qsrc.Seed(seeds.Derive(t.Seed, vaeSeedQ, uint64(epoch), uint64(batch)), 0)
		t.fitErr = nil
		if t.Opt.Workers > 1 {
			t.fitting = true
			t.fitGroup.Go(t.fitRun)
		} else if t.fitBound, t.fitErr = t.fitQ(); t.fitErr != nil {
			return st, t.fitErr
		}
	}
	sumF, sumLog, err := t.gradient(data, idx, epoch, batch, true)
	if e := t.awaitFit(); e != nil {
		return st, e
	}
	if err != nil {
		return st, err
	}
	st.LogZ = t.fitBound
	k := float64(len(idx) * t.Opt.Samples)
	st.ELBO = sumF/k - st.LogZ
	st.LogLik = sumLog / k
	a := t.active[0]
	if r := m.Prior; r != nil {
		t.adamW.Step(r.W, a.prior.gW, -1)
		t.adamA.Step(r.VBias, a.prior.gA, -1)
		t.adamC.Step(r.HBias, a.prior.gB, -1)
	} else {
		t.adamLog.Step(m.PriorLogits, a.gLog, -1)
	}
	return st, nil
}

// fitQ is the step's fitting of q: QSteps fitter steps, then fresh draws
// for the tracked bound (returned) and the chi2 gradient.
func (t *VAETrainer) fitQ() (float64, error) {
	for range t.Opt.QSteps {
		if _, err := t.Fit.Step(t.logp, t.qrng); err != nil {
			return 0, err
		}
	}
	return t.Fit.Draw(t.logp, t.qrng)
}

// awaitFit waits for the step's fitting of q if it runs beside the
// engine and returns its error.
func (t *VAETrainer) awaitFit() error {
	if t.fitting {
		t.fitGroup.Wait()
		t.fitting = false
	}
	return t.fitErr
}

// priorReady is called by the engine before the phase that reads q's
// draws (the prior's chi2 negative phase): it waits for the fitting and
// sets the draws' weights ω. On an error the engine stops before any
// parameter changes.
func (t *VAETrainer) priorReady() error {
	if err := t.awaitFit(); err != nil {
		return err
	}
	t.setOmega()
	return nil
}

// setOmega sets the chi2 draws' weights ω from the fitter's current draws.
func (t *VAETrainer) setOmega() {
	if t.M.Prior != nil && t.Opt.PriorTraining == PriorTrainingChi2 {
		if t.Opt.Linearise {
			t.omega = t.Fit.Linearised(t.omega)
		} else {
			t.omega = t.Fit.NormalisedSquares(t.omega)
		}
	}
}

// Gradient computes the ascent direction of the minibatch's objective at
// the current parameters (see the type's doc) into the first active
// task's buffers (gDec, gEnc, gBase, prior.gW/gA/gB or gLog), updates the
// learning signal's running statistics, and returns Σ f(x,z) and
// Σ log p(x|z) over the examples and draws. The chi2 negative phase uses
// the fitter's current draws.
func (t *VAETrainer) Gradient(data data.Examples, idx []int, epoch, batch int) (sumF, sumLog float64, err error) {
	t.fitErr = nil
	return t.gradient(data, idx, epoch, batch, false)
}

// gradient is Gradient; fused (Step): the nets' Adam steps are taken as
// their gradients are computed (the engine's jobs), and only the prior's
// gradient is stored.
func (t *VAETrainer) gradient(data data.Examples, idx []int, epoch, batch int, fused bool) (sumF, sumLog float64, err error) {
	t.layout(idx)
	t.data, t.epoch, t.batch = data, epoch, batch
	sumF, sumLog, sumD, sumD2 := t.engineGradient(idx, fused)
	t.data = nil
	if t.fitErr != nil {
		return 0, 0, t.fitErr
	}
	if math.IsNaN(sumF) || math.IsInf(sumF, 0) {
		return sumF, sumLog, fmt.Errorf("the objective f(x,z) summed over the minibatch is %g", sumF)
	}
	t.updateSignal(sumD, sumD2, float64(len(idx)*t.Opt.Samples))
	return sumF, sumLog, nil
}

// layout cuts a step of the examples idx into the active tasks: chunks of
// examples, then the prior's χ² draws (with their weights ω) or persistent
// chains (with the prior's Wᵀ).
func (t *VAETrainer) layout(idx []int) {
	m, o := t.M, t.Opt
	t.growTasks(len(idx))
	t.active = t.active[:0]
	t.scale = 1 / float64(len(idx)*o.Samples)
	for lo := 0; lo < len(idx); lo += chunkSize {
		w := t.tasks[len(t.active)]
		w.kind, w.pos, w.rows = vaeData, lo, idx[lo:min(lo+chunkSize, len(idx))]
		t.active = append(t.active, w)
	}
	if r := m.Prior; r != nil {
		n := o.Chains
		kind := vaeChains
		if o.PriorTraining == PriorTrainingChi2 {
			// One weight ω per draw of q: set now unless q is still being
			// fitted (Step), then by priorReady.
			if !t.fitting {
				t.setOmega()
			}
			n, kind = len(t.Fit.Draws), vaeDraws
		} else {
			Z, H := r.NVis, r.NHid
			for i := range Z {
				for j := range H {
					t.wt[j*Z+i] = r.W[i*H+j]
				}
			}
		}
		for lo := 0; lo < n; lo += chunkSize {
			w := t.tasks[len(t.active)]
			w.kind, w.lo, w.hi = kind, lo, min(lo+chunkSize, n)
			t.active = append(t.active, w)
		}
	}
}

// addPriorGrad adds w's prior gradient (W, a, c of an RBM prior) to a0's.
func addPriorGrad(a0, w *vaeTask) {
	axpy(a0.prior.gW, 1, w.prior.gW)
	axpy(a0.prior.gA, 1, w.prior.gA)
	axpy(a0.prior.gB, 1, w.prior.gB)
}

// updateSignal folds one step's mean and variance of r (given as the sums
// of d = r − μ and d² over k terms, μ the mean before the step) into the
// running averages: μ ← αμ + (1−α)·mean r, v ← αv + (1−α)·var r; the
// first step sets them.
func (t *VAETrainer) updateSignal(sumD, sumD2, k float64) {
	md := sumD / k
	mean := t.SignalMean + md
	vr := max(0, sumD2/k-md*md)
	if a := t.Opt.SignalDecay; t.SignalSteps > 0 {
		t.SignalMean = a*t.SignalMean + (1-a)*mean
		t.SignalVar = a*t.SignalVar + (1-a)*vr
	} else {
		t.SignalMean, t.SignalVar = mean, vr
	}
	t.SignalSteps++
}

// clearTask zeroes a task's gradients and sums (of a draws or chains
// task only the prior's: the others are not summed).
func clearTask(w *vaeTask) {
	if w.kind == vaeData {
		clear(w.gDec)
		clear(w.gEnc)
		clear(w.gBase)
		if w.ax != nil {
			for _, g := range w.ax.g {
				clear(g)
			}
		}
	}
	clear(w.gLog)
	clear(w.prior.gW)
	clear(w.prior.gA)
	clear(w.prior.gB)
	w.sumF, w.sumD, w.sumD2, w.sumLog = 0, 0, 0, 0
}

// priorGrad adds c·∇ log p̃(z) to w's prior gradient.
func (t *VAETrainer) priorGrad(w *vaeTask, z []uint8, c float64) {
	if r := t.M.Prior; r != nil {
		for i, v := range z {
			w.prior.v[i] = float64(v)
		}
		hiddenProbs(w.prior.p, r, w.prior.v, w.prior.on, 1)
		accumulate(&w.prior, w.prior.v, w.prior.p, c)
		return
	}
	for j, l := range t.M.PriorLogits {
		w.gLog[j] += c * (float64(z[j]) - nmath.Sigmoid(l))
	}
}

// runDraws adds −Σ_i ω_i ∇ log p̃(z̃_i) over the task's draws of q.
func (t *VAETrainer) runDraws(w *vaeTask) {
	clearTask(w)
	r := t.M.Prior
	for i := w.lo; i < w.hi; i++ {
		for d, x := range t.Fit.Draws[i].X {
			w.prior.v[d] = float64(x)
		}
		hiddenProbs(w.prior.p, r, w.prior.v, w.prior.on, 1)
		accumulate(&w.prior, w.prior.v, w.prior.p, -t.omega[i])
	}
}

// runChains advances the task's persistent chains GibbsSteps block-Gibbs
// steps (h ~ p(h|z), z ~ p(z|h)) with the generator keyed by (epoch,
// batch, chunk) and adds −(1/C) Σ_c ∇ log p̃(z_c) (with p(h|z_c)).
func (t *VAETrainer) runChains(w *vaeTask) {
	clearTask(w)
	r := t.M.Prior
	Z := r.NVis
	w.src.Seed(seeds.Derive(t.Seed, vaeSeedChain, uint64(t.epoch), uint64(t.batch), uint64(w.lo/chunkSize)), 0)
	c := -1 / float64(t.Opt.Chains)
	pre := w.prior.v // reused as p(z|h) pre-activations before the state is copied in
	for ch := w.lo; ch < w.hi; ch++ {
		z := t.chains[ch*Z : (ch+1)*Z]
		hiddenProbs(w.prior.p, r, z, w.prior.on, 1)
		for range t.Opt.GibbsSteps {
			sample(w.h, w.prior.p, w.rng)
			visiblePre(pre, r, t.wt, w.h, w.prior.on, 1)
			for i, a := range pre {
				if w.rng.Float64() < nmath.Sigmoid(a) {
					z[i] = 1
				} else {
					z[i] = 0
				}
			}
			hiddenProbs(w.prior.p, r, z, w.prior.on, 1)
		}
		accumulate(&w.prior, z, w.prior.p, c)
	}
}

// checkFinite reports parameters that are not finite or exceed
// models.MaxAbsParam (training has diverged).
func (t *VAETrainer) checkFinite() error {
	m := t.M
	if t.eng != nil {
		// The engine checked the nets' parameters as it updated them.
		if ok, known := t.eng.netsFinite(); ok && known {
			s, big := sumMaxAbs(m.PriorLogits, 0, 0)
			if r := m.Prior; r != nil {
				s, big = sumMaxAbs(r.W, s, big)
				s, big = sumMaxAbs(r.VBias, s, big)
				s, big = sumMaxAbs(r.HBias, s, big)
			}
			if !math.IsNaN(s) && !math.IsInf(s, 0) && big <= models.MaxAbsParam {
				return nil
			}
		}
	}
	s, big := sumMaxAbs(m.Dec.Params(), 0, 0)
	s, big = sumMaxAbs(m.Enc.Params(), s, big)
	s, big = sumMaxAbs(m.PriorLogits, s, big)
	if r := m.Prior; r != nil {
		s, big = sumMaxAbs(r.W, s, big)
		s, big = sumMaxAbs(r.VBias, s, big)
		s, big = sumMaxAbs(r.HBias, s, big)
	}
	if t.Base != nil {
		s, big = sumMaxAbs(t.Base.Params(), s, big)
	}
	if m.Aux != nil {
		for _, n := range m.Aux.Nets() {
			s, big = sumMaxAbs(n.Params(), s, big)
		}
	}
	if math.IsNaN(s) || math.IsInf(s, 0) || big > models.MaxAbsParam {
		if err := m.Validate(); err != nil {
			return err
		}
		return fmt.Errorf("the NVIL baseline's parameters are not finite or exceed %g", models.MaxAbsParam)
	}
	return nil
}

// vaeTrainState is the non-array trainer state kept in model.npz meta.
type vaeTrainState struct {
	Epoch         int     `json:"epoch"`
	Method        string  `json:"method"`
	PriorTraining string  `json:"prior_training,omitempty"`
	Seed          uint64  `json:"seed"`
	LogZ          float64 `json:"tracked_log_z"`
	// Precision is the engine's (written since the engine became generic;
	// "" in older files: legacyVAEPrecision).
	Precision kernel.Precision `json:"precision,omitempty"`
	// AdamMoments "float32": the nets' weights' Adam moments were kept in
	// float32 (vae_adam32.go) and their float64 arrays hold those values;
	// "" (float64, and files before): as computed. Resume reads either.
	AdamMoments string `json:"adam_moments,omitempty"`
}

// legacyVAEPrecision is the precision a checkpoint without the field was
// trained in: the train: section's precision of the resolved config that a
// logz run records in the file (float32, the family's default since the
// key exists, or float64); float64 when the config has no precision key
// (written before the key existed, when the per-example float64 gradient
// was the only one) or the file records no run (the trainer's default,
// Precision "").
func legacyVAEPrecision(c *models.Checkpoint) kernel.Precision {
	if c.Meta.Run == nil {
		return kernel.Float64
	}
	in := -1 // the train: key's indentation while inside its section
	for _, line := range strings.Split(c.Meta.Run.Config, "\n") {
		body := strings.TrimLeft(line, " ")
		ind := len(line) - len(body)
		switch {
		case body == "" || strings.HasPrefix(body, "#"):
		case body == "train:":
			in = ind
		case in >= 0 && ind <= in:
			in = -1
		case in >= 0 && strings.HasPrefix(body, "precision:"):
			if p, err := kernel.Parse(strings.TrimSpace(strings.TrimPrefix(body, "precision:")), kernel.Float64); err == nil {
				return p
			}
		}
	}
	return kernel.Float64
}

// Checkpoint returns the model with everything needed to resume exactly:
// the Adam states of every net and of the prior, the NVIL baseline and
// the signal's running statistics, the prior's q with its fitter
// (chi2.PutState under Chi2StatePrefix) and the persistent chains. The
// generators are keyed by (epoch, minibatch, …) and need no state. Arrays
// alias the trainer's buffers: save the checkpoint before training further.
func (t *VAETrainer) Checkpoint(experiment string) (*models.Checkpoint, error) {
	st := vaeTrainState{Epoch: t.done, Method: "nvil", Seed: t.Seed, LogZ: t.LogZ, Precision: t.Opt.Precision.Or(kernel.Float64)}
	if t.mom32 != nil {
		t.widenMoments32()
		st.AdamMoments = "float32"
	}
	m := t.M
	c := &models.Checkpoint{
		Model: m,
		State: map[string]models.Array{
			"nvil_signal": {Shape: []int{3}, Data: []float64{t.SignalMean, t.SignalVar, float64(t.SignalSteps)}},
		},
		Bytes: map[string][]byte{},
	}
	steps := []float64{}
	put := func(name string, a *optim.Adam) {
		c.State[name+"_m"] = models.Array{Shape: []int{len(a.M)}, Data: a.M}
		c.State[name+"_s"] = models.Array{Shape: []int{len(a.S)}, Data: a.S}
		steps = append(steps, float64(a.T))
	}
	put("adam_dec", &t.adamDec)
	put("adam_enc", &t.adamEnc)
	if t.Base != nil {
		c.State["nvil_baseline"] = models.Array{Shape: []int{t.Base.NumParams()}, Data: t.Base.Params()}
		put("adam_baseline", &t.adamBase)
	}
	if r := m.Prior; r != nil {
		st.PriorTraining = t.Opt.PriorTraining
		put("adam_prior_W", &t.adamW)
		put("adam_prior_vbias", &t.adamA)
		put("adam_prior_hbias", &t.adamC)
		chi2.PutState(Chi2StatePrefix, t.Fit, c.State, c.Bytes)
		if t.chains != nil {
			c.State["chains"] = models.Array{Shape: []int{t.Opt.Chains, r.NVis}, Data: t.chains}
		}
	} else {
		put("adam_prior_logits", &t.adamLog)
	}
	for i, name := range vaeAuxAdamNames(m) {
		put(name, &t.adamAux[i])
	}
	c.State["adam_steps"] = models.Array{Shape: []int{len(steps)}, Data: steps}
	js, err := json.Marshal(st)
	if err != nil {
		return nil, err
	}
	c.Meta = models.Meta{Experiment: experiment, Epoch: t.done, Train: js}
	return c, nil
}

// Resume restores a trainer from a checkpoint written by Checkpoint; the
// model's sizes, the prior training, the baseline, q's shape and the
// precision (legacyVAEPrecision for files without it) must match the
// options.
func (t *VAETrainer) Resume(c *models.Checkpoint) error {
	m, ok := c.Model.(*models.VAE)
	if !ok {
		return fmt.Errorf("checkpoint holds a %s, not a vae", c.Model.TypeName())
	}
	if m.Label() != t.M.Label() || m.Dec.NumParams() != t.M.Dec.NumParams() || m.Enc.NumParams() != t.M.Enc.NumParams() {
		return fmt.Errorf("checkpoint model is %s, the experiment's %s", m.Label(), t.M.Label())
	}
	var st vaeTrainState
	if err := decodeTrainState(c, &st); err != nil {
		return err
	}
	want := ""
	if t.M.Prior != nil {
		want = t.Opt.PriorTraining
	}
	if st.Method != "nvil" || st.PriorTraining != want {
		return fmt.Errorf("checkpoint was trained by method %q, prior training %q; the experiment asks for nvil, %q", st.Method, st.PriorTraining, want)
	}
	if st.Precision == "" {
		st.Precision = legacyVAEPrecision(c)
	}
	if err := kernel.Check("vae trainer state", st.Precision, t.Opt.Precision); err != nil {
		return err
	}
	get := func(name string, dst []float64) error {
		a, ok := c.State[name]
		if !ok || len(a.Data) != len(dst) {
			return fmt.Errorf("checkpoint state %q missing or of the wrong size (want %d values)", name, len(dst))
		}
		copy(dst, a.Data)
		return nil
	}
	var adams []*optim.Adam
	names := []string{"adam_dec", "adam_enc"}
	adams = append(adams, &t.adamDec, &t.adamEnc)
	if t.Base != nil {
		names, adams = append(names, "adam_baseline"), append(adams, &t.adamBase)
	}
	if t.M.Prior != nil {
		names = append(names, "adam_prior_W", "adam_prior_vbias", "adam_prior_hbias")
		adams = append(adams, &t.adamW, &t.adamA, &t.adamC)
	} else {
		names, adams = append(names, "adam_prior_logits"), append(adams, &t.adamLog)
	}
	for i, name := range vaeAuxAdamNames(t.M) {
		names, adams = append(names, name), append(adams, &t.adamAux[i])
	}
	steps := make([]float64, len(adams))
	if err := get("adam_steps", steps); err != nil {
		return err
	}
	for _, s := range steps {
		if s != math.Trunc(s) || s < 0 || s > 1<<53 {
			return fmt.Errorf("checkpoint state \"adam_steps\": %v are not step counts", steps)
		}
	}
	sig := make([]float64, 3)
	if err := get("nvil_signal", sig); err != nil {
		return err
	}
	if math.IsNaN(sig[0]) || math.IsInf(sig[0], 0) || !(sig[1] >= 0) || math.IsInf(sig[1], 0) || sig[2] != math.Trunc(sig[2]) || sig[2] < 0 {
		return fmt.Errorf("checkpoint state \"nvil_signal\": %v is not a mean, a variance and a step count", sig)
	}
	var fit *chi2.Fitter
	if t.M.Prior != nil {
		var err error
		if fit, err = chi2.LoadState(Chi2StatePrefix, t.Opt.fitOptions(), c.State, c.Bytes); err != nil {
			return err
		}
		if sh := fit.Q.Shape(); fit.Q.Kind() != chi2.KindMixture || sh[0] != t.M.NumLatent() || sh[1] != t.Opt.QComponents {
			return fmt.Errorf("checkpoint's q is a %s of shape %v, the experiment asks for a mixture of %d components over %d latents", fit.Q.Kind(), sh, t.Opt.QComponents, t.M.NumLatent())
		}
	}
	for i, a := range adams {
		if err := get(names[i]+"_m", a.M); err != nil {
			return err
		}
		if err := get(names[i]+"_s", a.S); err != nil {
			return err
		}
		a.T = int(steps[i])
	}
	if t.Base != nil {
		if err := get("nvil_baseline", t.Base.Params()); err != nil {
			return err
		}
	}
	if t.chains != nil {
		if err := get("chains", t.chains); err != nil {
			return err
		}
		for i, v := range t.chains {
			if v != 0 && v != 1 {
				return fmt.Errorf("checkpoint state chains[%d] is %v, not 0 or 1", i, v)
			}
		}
	}
	if fit != nil {
		if err := t.Fit.Restore(fit.State()); err != nil {
			return err
		}
	}
	copy(t.M.Dec.Params(), m.Dec.Params())
	copy(t.M.Enc.Params(), m.Enc.Params())
	if r := t.M.Prior; r != nil {
		copy(r.W, m.Prior.W)
		copy(r.VBias, m.Prior.VBias)
		copy(r.HBias, m.Prior.HBias)
	} else {
		copy(t.M.PriorLogits, m.PriorLogits)
	}
	if t.M.Aux != nil {
		for i, n := range t.M.Aux.Nets() {
			copy(n.Params(), m.Aux.Nets()[i].Params())
		}
	}
	t.SignalMean, t.SignalVar, t.SignalSteps = sig[0], sig[1], int(sig[2])
	t.done, t.Seed, t.LogZ = st.Epoch, st.Seed, st.LogZ
	t.eng = nil // its copies of the parameters are stale
	t.dropMoments32(false)
	return nil
}
