package sbn

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/optim"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// TrainOptions configures a Trainer (doubly stochastic gradient MCMC, Du,
// Zhu & Zhang 2015, Alg. 1 and App. C; see train_dynamics.go for the update
// equations and their units).
type TrainOptions struct {
	// Method is the training method (Methods): the dynamics "sghmc",
	// "sgnht" or "sgld" (train_dynamics.go), "adam" (Adam on the same
	// gradient), or a baseline of Du, Zhu & Zhang's Table 3 whose θ
	// moves by Adam: "rws" (reweighted wake-sleep: adam with the
	// adaptive-is sampler), "wake-sleep" (ws.go) or "nvil" (nvil.go).
	// rws, wake-sleep and nvil need Sampler "adaptive-is" (their
	// recognition network draws the latents); wake-sleep and nvil run in
	// float64 only.
	Method string
	// Sampler draws the latent states for the gradient: "gibbs" (eq. 15)
	// or "adaptive-is" (recognition-net proposals, eq. 6–10).
	Sampler string
	// Prior on every generative parameter: "student-t", "gaussian" or "none".
	Prior string
	// LearningRate λ multiplies the per-data gradient ∇Ũ/N (App. C): the
	// step on ∇Ũ is η = λ/N. For adam it is Adam's step size.
	LearningRate float64
	// Friction is SGHMC's α (the paper's momentum decay, 0.1 or 0.05).
	Friction float64
	// GradNoise is SGHMC's β̂ ∈ [0, α], the estimated gradient noise whose
	// share of the injected noise is left out (0: inject 2αη).
	GradNoise float64
	// NoiseA is SGNHT's A (injected noise 2ηA; the thermostat starts at A).
	NoiseA float64
	// PriorSigma and PriorNu: σ of the Student-t or Gaussian prior, ν of
	// the Student-t.
	PriorSigma, PriorNu float64
	// Steps is the number of dynamics steps per minibatch (m in Alg. 1).
	Steps int
	// BatchSize is |B_t|.
	BatchSize int
	// Samples is L, the latent samples per example and step (Gibbs: kept
	// states; adaptive-is: proposals).
	Samples int
	// BurnIn is the number of Gibbs sweeps discarded when an example's
	// chain resumes, at the first dynamics step of its minibatch.
	BurnIn int
	// GibbsSweeps is the number of sweeps between kept Gibbs states.
	GibbsSweeps int
	// Persistent keeps each example's Gibbs state across epochs (else a
	// chain starts from a prior draw of h at each minibatch).
	Persistent bool
	// RecLearningRate is the Adam step of the recognition network.
	RecLearningRate float64
	// Average is the number of posterior samples (θ after each minibatch)
	// whose mean is the evaluated net; 0 or 1: the last sample. Memory:
	// Average × the number of generative parameters.
	Average int
	// Seed keys every random draw.
	Seed uint64
	// Workers is the number of goroutines (0: GOMAXPROCS). Results do not
	// depend on it.
	Workers int
	// Precision of the sampler's arithmetic: kernel.Float32 or
	// kernel.Float64 ("" means float64). Adaptive importance sampler: the
	// sums of the batched proposals and gradients in that precision,
	// log-weights, parameters and dynamics in float64 (train_is.go, one
	// engine generic over the precision). Gibbs sampler: the chains'
	// states, activations, σ pairs or odds and tabulated exponentials in
	// that precision (float32: eight chains per AVX2 register), the
	// log-odds, parameters, gradient sums and dynamics in float64, the
	// gradient's visible σ(a) taken from the chains before the last step
	// (sampler.go, one engine generic over the precision; gibbs_train.go).
	Precision kernel.Precision
	// Epochs is the number of epochs to train (the trainer's Total).
	Epochs int
	// BaselineHidden is the number of tanh units of NVIL's input-dependent
	// baseline b(x) (nvil only; 0: the running mean alone).
	BaselineHidden int
	// Sleep adds RWS's sleep-phase update of the recognition network to
	// its wake-phase one (rws only; rws.go).
	Sleep bool
}

// DefaultTrainOptions are the paper's settings (App. C and §4; docs/methods.md#sg-mcmc-scaling):
// SGHMC with per-data learning rate 0.01 and momentum decay 0.1, the
// adaptive importance sampler with Adam 0.001 for the recognition net,
// Student-t prior σ = 0.09, ν = 2.2, 10 steps per minibatch of 100, L = 5,
// Gibbs burn-in 5, the last sample evaluated; both samplers in float32
// (paired runs against float64 reach the same test log-likelihood within
// its standard error).
func DefaultTrainOptions() TrainOptions {
	return TrainOptions{
		Method: "sghmc", Sampler: "adaptive-is", Prior: "student-t",
		LearningRate: 0.01, Friction: 0.1, NoiseA: 0.1,
		PriorSigma: 0.09, PriorNu: 2.2,
		Steps: 10, BatchSize: 100, Samples: 5, BurnIn: 5, GibbsSweeps: 1,
		RecLearningRate: 0.001, Average: 1, Seed: 1, Precision: kernel.Float32,
		BaselineHidden: 100,
	}
}

// Signals of the epoch summary (its ReconError): the mean over the epoch's
// examples, at the last dynamics step of their minibatch, of (1/L) Σ_s
// log p(x, h_s) with h_s the kept states (gibbs), or of
// log (1/L) Σ_s p(x, h_s)/Q(h_s | x), a stochastic lower bound on log p(x)
// in expectation (adaptive-is).
//
// wake-sleep and nvil: the mean of (1/L) Σ_s log p(x, h_s) − log Q(h_s | x)
// with h_s ~ Q(· | x) at the last step, an unbiased estimate of the
// variational lower bound (SignalELBO).
const (
	SignalLogJoint = "log-joint"
	SignalISBound  = "is-bound"
	SignalELBO     = "elbo"
)

// Random streams are keyed by what they are for (seeds.Derive), never by
// goroutine.
const (
	keyPerm    = 1 // (seed, keyPerm, epoch): the epoch's order
	keyExample = 2 // (seed, keyExample, epoch, minibatch, step, example): latent draws
	keyNoise   = 3 // (seed, keyNoise, epoch, minibatch, step): injected noise
	keyRecInit = 4 // (seed, keyRecInit): the recognition net's initial weights
	keySleep   = 5 // (seed, keySleep, epoch, minibatch, step, position): wake-sleep's dreams
	keyBase    = 6 // (seed, keyBase): NVIL's baseline network's initial weights
)

// chunkSize is the number of examples of a minibatch handled by one task
// (its own gradient buffers, summed in a fixed order): results do not
// depend on the number of workers.
const chunkSize = 10

// Trainer draws the generative parameters θ of a net by doubly stochastic
// gradient MCMC (or fits them with Adam), with latent samples from a Gibbs
// sampler or from a recognition network trained on the inclusive KL.
// Each minibatch B_t (a fixed permutation per epoch) gets Steps dynamics
// steps; each step draws L latent samples per example at the current θ,
// estimates ∇Ũ(θ) (train_dynamics.go) with the weights w_{n,s} = 1/L
// (gibbs) or the self-normalised importance weights w̃_s ∝ p(x, h_s)/Q(h_s|x)
// (adaptive-is, eq. 6), moves θ, then (adaptive-is) takes one Adam ascent
// step on the recognition net φ along
// (1/|B_t|) Σ_n Σ_s w̃_{n,s} ∇_φ log Q(h_{n,s} | x_n) (eq. 8–10, the same
// samples, Alg. 1).
type Trainer struct {
	net     *Net
	opt     TrainOptions
	n       int // N
	ep      int // completed epochs
	onBatch func(examples int)

	prior        Prior
	gen          [][]float64 // the net's parameter slices (paramSlices)
	genTri       []int
	theta, grad  []float64 // free generative parameters and ∇Ũ (flat)
	dyn          *dynamics
	rec          [][]float64 // recognition slices (adaptive-is)
	recTri       []int
	phi, gradPhi []float64
	recAdam      optim.Adam

	is      isSampler    // the adaptive importance sampler (nil for gibbs, wake-sleep and nvil)
	rule    *recEngine   // wake-sleep and nvil (ws.go; nil otherwise)
	gibbs   *gibbsTables // the Gibbs sampler's tables, W_lᵀ and the exponentials, refreshed each step (nil for adaptive-is)
	latent  int          // Σ_{l≥1} n_l
	persist []uint8      // N × latent persistent Gibbs states
	seen    []uint8      // N: persistent state initialised
	batchSt []uint8      // BatchSize × latent: the minibatch's chains (not persistent)
	gs      gibbsSampling

	avg          [][]float64 // ring of the last Average samples of θ
	avgN, avgPos int

	tasks    []*trainTask
	gsum     *Net        // the summed gradient in the net's layout
	gGen0    [][]float64 // gsum's slices
	perm     []int
	noiseSrc rand.PCG
	noise    *rand.Rand
	next     atomic.Int32
	wg       workgroup.Group // reused: launching the workers of a step allocates only their goroutines
	active   int
	work     func()
	cur      struct {
		data         data.Examples
		epoch, batch int
		step         int
	}
}

// trainTask is one chunk of a minibatch with its own buffers.
type trainTask struct {
	src  rand.PCG
	rng  *rand.Rand
	sc   *Scratch
	rows []int // dataset indices
	pos  int   // position of rows[0] in the minibatch

	// gibbs: the chunk's examples (chunkSize × n_0) and the buffers of
	// its batched gradient
	xs []float64
	gb *gradBatch

	gGen *Net

	signal float64
}

// NewTrainer prepares a trainer for n on a training set of N examples. If
// the sampler is adaptive-is and n has no recognition network, one is
// created (autoregressive when n is), with R ~ N(0, 0.01²) and zero biases.
// The trainer updates n in place: n always holds the current sample of θ
// (and φ); Current returns the evaluated net.
func NewTrainer(n *Net, N int, opt TrainOptions) (*Trainer, error) {
	if err := n.Validate(); err != nil {
		return nil, err
	}
	if N < 1 {
		return nil, fmt.Errorf("sbn trainer: the training set has %d examples", N)
	}
	o := opt
	switch {
	case o.Sampler != "gibbs" && o.Sampler != "adaptive-is":
		return nil, fmt.Errorf("sbn trainer: sampler %q: expected gibbs or adaptive-is", o.Sampler)
	case o.Steps < 1 || o.BatchSize < 1 || o.Samples < 1:
		return nil, fmt.Errorf("sbn trainer: steps %d, batch size %d and samples %d must be positive", o.Steps, o.BatchSize, o.Samples)
	case o.Sampler == "gibbs" && (o.BurnIn < 0 || o.GibbsSweeps < 1):
		return nil, fmt.Errorf("sbn trainer: Gibbs burn-in %d must be ≥ 0 and sweeps between samples %d ≥ 1", o.BurnIn, o.GibbsSweeps)
	case o.Persistent && o.Sampler != "gibbs":
		return nil, fmt.Errorf("sbn trainer: persistent states need the gibbs sampler, not %s", o.Sampler)
	case (o.Method == "rws" || recMethod(o.Method)) && o.Sampler != "adaptive-is":
		return nil, fmt.Errorf("sbn trainer: method %s draws the latents from its recognition network: it needs sampler adaptive-is, not %s", o.Method, o.Sampler)
	case o.Sleep && o.Method != "rws":
		return nil, fmt.Errorf("sbn trainer: the sleep phase is an option of rws, not of %s", o.Method)
	case o.BaselineHidden < 0:
		return nil, fmt.Errorf("sbn trainer: baseline hidden units %d must not be negative", o.BaselineHidden)
	case o.Sampler == "adaptive-is" && (!(o.RecLearningRate > 0) || math.IsInf(o.RecLearningRate, 0)):
		return nil, fmt.Errorf("sbn trainer: recognition learning rate %v must be a positive number", o.RecLearningRate)
	case o.Average < 0 || o.Workers < 0:
		return nil, fmt.Errorf("sbn trainer: average %d and workers %d must not be negative", o.Average, o.Workers)
	}
	prec, err := kernel.Parse(string(o.Precision), kernel.Float64)
	if err != nil {
		return nil, fmt.Errorf("sbn trainer: %w", err)
	}
	o.Precision = prec
	if recMethod(o.Method) && prec != kernel.Float64 {
		return nil, fmt.Errorf("sbn trainer: method %s runs in float64 only (its engine is not generic over the precision): set precision float64, not %s", o.Method, prec)
	}
	t := &Trainer{net: n, opt: o, n: N, prior: Prior{o.Prior, o.PriorSigma, o.PriorNu}}
	if err := t.prior.Check(); err != nil {
		return nil, fmt.Errorf("sbn trainer: %w", err)
	}
	t.gen, t.genTri = paramSlices(n)
	P := flatSize(t.gen, t.genTri)
	t.theta, t.grad = make([]float64, P), make([]float64, P)
	gather(t.gen, t.genTri, t.theta)
	if t.dyn, err = newDynamics(o.Method, o.LearningRate, o.Friction, o.GradNoise, o.NoiseA, N, P); err != nil {
		return nil, fmt.Errorf("sbn trainer: %w", err)
	}
	if o.Sampler == "adaptive-is" {
		if n.Rec == nil {
			n.Rec = NewRecognition(n.Sizes, n.AR())
			rng := rand.New(rand.NewPCG(seeds.Derive(o.Seed, keyRecInit), 0))
			for l := 1; l <= n.Layers(); l++ {
				for i := range n.Rec.R[l] {
					n.Rec.R[l][i] = 0.01 * rng.NormFloat64()
				}
			}
		}
		t.rec, t.recTri = recSlices(n.Rec, n.Sizes)
		Q := flatSize(t.rec, t.recTri)
		t.phi, t.gradPhi = make([]float64, Q), make([]float64, Q)
		gather(t.rec, t.recTri, t.phi)
		t.recAdam = optim.NewAdam(o.RecLearningRate, Q)
	}
	for _, s := range n.Sizes[1:] {
		t.latent += s
	}
	if o.Sampler == "gibbs" {
		t.gibbs = n.newGibbsTables(o.Precision == kernel.Float32)
		if o.Persistent {
			t.persist, t.seen = make([]uint8, N*t.latent), make([]uint8, N)
		} else {
			t.batchSt = make([]uint8, o.BatchSize*t.latent)
		}
		t.newGibbsSampling()
	}
	if o.Average > 1 {
		t.avg = make([][]float64, o.Average)
		for i := range t.avg {
			t.avg[i] = make([]float64, P)
		}
	}
	t.noise = rand.New(&t.noiseSrc)
	if recMethod(o.Method) {
		t.rule = newRecEngine(t)
		return t, nil
	}
	if o.Sampler == "adaptive-is" {
		if o.Precision == kernel.Float32 {
			t.is = newISEngine[float32](t)
		} else {
			t.is = newISEngine[float64](t)
		}
		if o.Sleep {
			t.is = newRWSSleep(t, t.is)
		}
		return t, nil
	}
	for lo := 0; lo < o.BatchSize; lo += chunkSize {
		t.tasks = append(t.tasks, t.newTask())
	}
	// ∇ is gathered from gsum: tasks[0]'s B and S, and its W transposed.
	g0 := t.tasks[0].gGen
	t.gsum = &Net{Sizes: n.Sizes, B: g0.B, S: g0.S, W: make([][]float64, len(n.Sizes))}
	for l := 1; l < len(n.Sizes); l++ {
		t.gsum.W[l] = make([]float64, len(n.W[l]))
	}
	t.gGen0, _ = paramSlices(t.gsum)
	t.work = func() {
		for {
			k := int(t.next.Add(1)) - 1
			if k >= t.active {
				return
			}
			t.runTask(t.tasks[k])
		}
	}
	return t, nil
}

func (t *Trainer) newTask() *trainTask {
	n := t.net
	tk := &trainTask{sc: n.NewScratch(), gGen: New(n.Sizes, n.AR())}
	tk.rng = rand.New(&tk.src)
	tk.xs, tk.gb = make([]float64, chunkSize*n.Sizes[0]), n.newGradBatch(chunkSize*t.opt.Samples)
	return tk
}

// Completed is the number of completed epochs.
func (t *Trainer) Completed() int { return t.ep }

// Total is the number of epochs to train, Epochs of the options.
func (t *Trainer) Total() int { return t.opt.Epochs }

// SetOnBatch sets the function called after every minibatch with its
// number of examples (nil: none).
func (t *Trainer) SetOnBatch(f func(examples int)) { t.onBatch = f }

// TrainEpoch runs one pass over x in minibatches (a permutation keyed by
// the seed and the epoch). The summary's ReconError is the epoch's signal
// (SignalLogJoint or SignalISBound, its Signal), K the dynamics steps per
// minibatch and Momentum 1 − friction. On divergence (a parameter NaN, ±Inf
// or beyond models.MaxAbsParam) it returns an error wrapping
// models.ErrDiverged that names the epoch and minibatch; the net is then
// unusable and the caller keeps its last checkpoint.
func (t *Trainer) TrainEpoch(x data.Examples) (models.EpochSummary, error) {
	N := x.Len()
	if N != t.n {
		return models.EpochSummary{}, fmt.Errorf("sbn trainer: the data has %d examples, the trainer was made for N = %d (the gradient scale N/|B|)", N, t.n)
	}
	if d := len(x.Row(0)); d != t.net.Sizes[0] {
		return models.EpochSummary{}, fmt.Errorf("sbn trainer: the data has %d units per example, the net %d visible units", d, t.net.Sizes[0])
	}
	// The net is the truth between epochs (a caller may have set it).
	gather(t.gen, t.genTri, t.theta)
	if t.phi != nil {
		gather(t.rec, t.recTri, t.phi)
	}
	epoch := t.ep + 1
	t.perm = data.Order(t.perm, N, true, rand.New(rand.NewPCG(seeds.Derive(t.opt.Seed, keyPerm, uint64(epoch)), 0)))
	o := t.opt
	st := models.EpochSummary{Epoch: epoch, K: o.Steps, LearningRate: o.LearningRate, Momentum: 1 - o.Friction, Signal: SignalISBound}
	if o.Sampler == "gibbs" {
		st.Signal = SignalLogJoint
	}
	if t.rule != nil {
		st.Signal = SignalELBO
	}
	b, err := data.Minibatches(t.perm, o.BatchSize, t.onBatch, func(b int, idx []int) error {
		st.ReconError += t.minibatch(x, idx, epoch, b)
		if t.avg != nil {
			copy(t.avg[t.avgPos], t.theta)
			t.avgPos = (t.avgPos + 1) % len(t.avg)
			t.avgN++
		}
		return nil
	}, t.checkFinite)
	if err != nil {
		return models.EpochSummary{}, fmt.Errorf("sbn trainer: %w at epoch %d, minibatch %d: %v", models.ErrDiverged, epoch, b, err)
	}
	st.ReconError /= float64(N)
	t.ep = epoch
	return st, nil
}

// EpochSettings are the epoch line's settings of the doubly stochastic
// trainer, named as its train: keys: the method and sampler, the learning
// rate, SGHMC's friction or SGNHT's noise_a, the dynamics steps per
// minibatch and the latent samples per example.
func (t *Trainer) EpochSettings(models.EpochSummary) string {
	o := t.opt
	s := fmt.Sprintf("%s/%s lr=%.4g", o.Method, o.Sampler, o.LearningRate)
	switch o.Method {
	case "sghmc":
		s += fmt.Sprintf(" friction=%.3g", o.Friction)
	case "sgnht":
		s += fmt.Sprintf(" noise_a=%.3g", o.NoiseA)
	}
	return s + fmt.Sprintf(" steps=%d samples=%d", o.Steps, o.Samples)
}

// checkFinite reports a parameter that is not finite or beyond
// models.MaxAbsParam.
func (t *Trainer) checkFinite() error {
	// One comparison per entry, false for NaN as for ±Inf and beyond the
	// limit (no chain of additions on the minibatch's serial path: a sum
	// would not be finite only with an entry that is not, as the entries
	// are bounded).
	bad := func(xs []float64) bool {
		for _, x := range xs {
			if !(math.Abs(x) <= models.MaxAbsParam) {
				return true
			}
		}
		return false
	}
	if bad(t.theta) || bad(t.phi) {
		if err := t.net.Validate(); err != nil {
			return err
		}
		return fmt.Errorf("a parameter is not finite")
	}
	return nil
}

// minibatch runs the dynamics steps on the examples idx and returns the
// sum over them of the signal at the last step.
func (t *Trainer) minibatch(x data.Examples, idx []int, epoch, b int) (signal float64) {
	t.cur.data, t.cur.epoch, t.cur.batch = x, epoch, b
	scale := float64(t.n) / float64(len(idx))
	workers := t.opt.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if t.is != nil {
		return t.is.minibatch(idx, scale, workers, epoch, b)
	}
	if t.rule != nil {
		return t.rule.minibatch(idx, scale, workers, epoch, b)
	}
	t.active = 0
	for lo := 0; lo < len(idx); lo += chunkSize {
		tk := t.tasks[t.active]
		tk.rows, tk.pos = idx[lo:min(lo+chunkSize, len(idx))], lo
		t.active++
	}
	workers = min(workers, t.active)
	for step := range t.opt.Steps {
		t.cur.step = step
		t.gibbs.refresh(t.net)
		t.next.Store(0)
		work := t.gibbsSteps(idx, workers)
		if workers == 1 {
			work()
		} else {
			for range workers {
				t.wg.Go(work)
			}
			t.wg.Wait()
		}
		// ∇Ũ = −∇log p_0 − (N/|B|) Σ (weighted ∇ log p(x, h)).
		g0 := t.tasks[0].gGen
		for _, tk := range t.tasks[1:t.active] {
			addNet(g0, tk.gGen)
		}
		// The chunks' W gradients are transposed (addGrad): turn them back.
		for l := 1; l <= t.net.Layers(); l++ {
			transpose(g0.W[l], t.net.Sizes[l], t.net.Sizes[l-1], t.gsum.W[l])
		}
		gather(t.gGen0, t.genTri, t.grad)
		for i := range t.grad {
			t.grad[i] *= -scale
		}
		t.update(epoch, b, step)
	}
	for _, tk := range t.tasks[:t.active] {
		signal += tk.signal
	}
	return signal
}

// update takes the dynamics step of step of minibatch b of epoch on θ
// along grad (−(N/|B|) Σ of the minibatch's weighted ∇ log p(x, h), to
// which it adds the prior's −∇ log p_0).
func (t *Trainer) update(epoch, b, step int) {
	t.prior.AddGradU(t.theta, t.grad)
	t.noiseSrc.Seed(seeds.Derive(t.opt.Seed, keyNoise, uint64(epoch), uint64(b), uint64(step)), 0)
	t.dyn.step(t.theta, t.grad, t.noise)
	scatter(t.theta, t.gen, t.genTri)
}

// addNet adds the parameters of b to a.
func addNet(a, b *Net) {
	for l := range a.B {
		axpy(a.B[l], b.B[l])
		if l > 0 {
			axpy(a.W[l], b.W[l])
		}
		if a.S != nil {
			axpy(a.S[l], b.S[l])
		}
	}
}

func axpy(a, b []float64) {
	b = b[:len(a)]
	for i := range a {
		a[i] += b[i]
	}
}

func zeroNet(a *Net) {
	for l := range a.B {
		clear(a.B[l])
		if l > 0 {
			clear(a.W[l])
		}
		if a.S != nil {
			clear(a.S[l])
		}
	}
}

// runTask draws the Gibbs samples of one chunk at the current step and
// accumulates their gradients.
func (t *Trainer) runTask(tk *trainTask) {
	zeroNet(tk.gGen)
	tk.signal = 0
	t.gibbsGrad(tk)
}

// Current returns the evaluated net, current().
func (t *Trainer) Current() models.Model { return t.current() }

// Net is the live net: the current sample of θ (and φ), updated in place.
func (t *Trainer) Net() *Net { return t.net }

// current returns a copy of the evaluated net: the last sample of θ, or,
// with Average > 1, the mean of the last Average samples (θ after each
// minibatch; fewer at the start) — a plug-in estimate at an average of
// posterior samples, unsafe if hidden units swap between them
// (docs/methods.md#posterior-samples). The recognition network, if any, is the current one.
func (t *Trainer) current() *Net {
	c := t.net.clone()
	c.Posterior = "the last posterior sample of θ (a plug-in estimate at one sample)"
	if t.avg != nil && t.avgN > 0 {
		k := min(t.avgN, len(t.avg))
		c.Posterior = fmt.Sprintf("the mean of the last %d posterior samples of θ (a plug-in estimate at an average; unsafe if hidden units swap between samples)", k)
		mean := make([]float64, len(t.theta))
		for j := range k { // oldest first: a fixed order
			axpy(mean, t.avg[(t.avgPos-k+j+len(t.avg))%len(t.avg)])
		}
		for i := range mean {
			mean[i] /= float64(k)
		}
		xs, tri := paramSlices(c)
		scatter(mean, xs, tri)
	}
	return c
}

// clone returns a deep copy of n.
func (n *Net) clone() *Net {
	c := New(n.Sizes, n.AR())
	for l := range n.B {
		copy(c.B[l], n.B[l])
		if l > 0 {
			copy(c.W[l], n.W[l])
		}
		if n.S != nil {
			copy(c.S[l], n.S[l])
		}
	}
	if r := n.Rec; r != nil {
		c.Rec = NewRecognition(n.Sizes, r.T != nil)
		for l := 1; l < len(r.R); l++ {
			copy(c.Rec.R[l], r.R[l])
			copy(c.Rec.C[l], r.C[l])
			if r.T != nil {
				copy(c.Rec.T[l], r.T[l])
			}
		}
	}
	return c
}

// InitNormal sets the net's weights (W_l and the strict lower triangle of
// S_l) to N(0, std²) draws keyed by seed and its biases to 0, the paper's
// random initialisation ("a zero-mean normal with small variance").
func InitNormal(n *Net, std float64, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x696e6974))
	for l := range n.Sizes {
		clear(n.B[l])
		if l > 0 {
			for i := range n.W[l] {
				n.W[l][i] = std * rng.NormFloat64()
			}
		}
		if n.S != nil {
			k := n.Sizes[l]
			for i := range k {
				for j := range i {
					n.S[l][i*k+j] = std * rng.NormFloat64()
				}
			}
		}
	}
}

// trainerMeta is the non-array part of the trainer state.
type trainerMeta struct {
	Format     int    `json:"format"`
	Epoch      int    `json:"epoch"`
	Label      string `json:"net"`
	N          int    `json:"n"`
	Method     string `json:"method"`
	Sampler    string `json:"sampler"`
	Persistent bool   `json:"persistent"`
	Average    int    `json:"average"`
	Seed       uint64 `json:"seed"`
	AdamT      int    `json:"adam_t,omitempty"`
	RecAdamT   int    `json:"rec_adam_t,omitempty"`
	AvgN       int    `json:"avg_n,omitempty"`
	AvgPos     int    `json:"avg_pos,omitempty"`
	Sleep      bool   `json:"sleep,omitempty"`
	// Precision is the sampler's: "float32" for the float32 adaptive
	// importance or Gibbs sampler; "float64", or "" in the checkpoints
	// written before float64 was recorded, for float64.
	Precision kernel.Precision `json:"precision,omitempty"`
}

// Checkpoint returns the evaluated net (Current) with the trainer's state
// (state), everything needed to resume training bit for bit.
func (t *Trainer) Checkpoint(experiment string) (*models.Checkpoint, error) {
	arrays, bytes := t.state()
	return &models.Checkpoint{Model: t.current(), Meta: models.Meta{Experiment: experiment, Epoch: t.ep}, State: arrays, Bytes: bytes}, nil
}

// Resume restores the trainer's state from a checkpoint written by
// Checkpoint (restore).
func (t *Trainer) Resume(c *models.Checkpoint) error { return t.restore(c.State, c.Bytes) }

// state returns everything needed to resume training bit for bit, as
// copies: arrays (flat, in the order of paramSlices / recSlices) and byte
// blobs, for models.Checkpoint.State and .Bytes. The random streams are
// keyed by (seed, epoch, minibatch, step, example), so the epoch number is
// the generators' state.
//
//	theta            the current sample of the free generative parameters
//	phi              the recognition network (adaptive-is)
//	momentum         SGHMC/SGNHT v;  thermostat [ξ] (sgnht)
//	adam_m, adam_s   Adam moments (adam, rws, wake-sleep, nvil);  rec_adam_m, rec_adam_s (adaptive-is)
//	nvil_baseline, nvil_adam_m, nvil_adam_s, nvil_signal
//	                 NVIL's baseline net, its Adam moments, and [μ, v,
//	                 steps, Adam's T] of the learning signal (nvil)
//	average          Average × |θ| ring of the last samples (Average > 1)
//	bytes: trainer (JSON: epoch, options that must match, step counters),
//	       gibbs (N × Σ_{l≥1} n_l persistent states), gibbs_seen (N flags)
func (t *Trainer) state() (map[string]models.Array, map[string][]byte) {
	arr := map[string]models.Array{}
	put := func(name string, x []float64, shape ...int) {
		if len(shape) == 0 {
			shape = []int{len(x)}
		}
		arr[name] = models.Array{Name: name, Shape: shape, Data: append([]float64(nil), x...)}
	}
	put("theta", t.theta)
	if t.phi != nil {
		put("phi", t.phi)
		put("rec_adam_m", t.recAdam.M)
		put("rec_adam_s", t.recAdam.S)
	}
	switch t.dyn.method {
	case "sghmc":
		put("momentum", t.dyn.v)
	case "sgnht":
		put("momentum", t.dyn.v)
		put("thermostat", []float64{t.dyn.xi})
	case "adam":
		put("adam_m", t.dyn.adam.M)
		put("adam_s", t.dyn.adam.S)
	}
	if t.rule != nil {
		t.rule.state(put)
	}
	if t.avg != nil {
		flat := make([]float64, 0, len(t.avg)*len(t.theta))
		for _, a := range t.avg {
			flat = append(flat, a...)
		}
		put("average", flat, len(t.avg), len(t.theta))
	}
	js, _ := json.Marshal(t.meta())
	bytes := map[string][]byte{"trainer": js}
	if t.persist != nil {
		bytes["gibbs"] = append([]byte(nil), t.persist...)
		bytes["gibbs_seen"] = append([]byte(nil), t.seen...)
	}
	return arr, bytes
}

func (t *Trainer) meta() trainerMeta {
	return trainerMeta{Format: 1, Epoch: t.ep, Label: t.net.Label(), N: t.n, Method: t.opt.Method, Sampler: t.opt.Sampler,
		Persistent: t.opt.Persistent, Average: t.opt.Average, Seed: t.opt.Seed,
		AdamT: t.dyn.adam.T, RecAdamT: t.recAdam.T, AvgN: t.avgN, AvgPos: t.avgPos, Precision: t.precision(), Sleep: t.opt.Sleep}
}

// precision is the precision the sampler runs in.
func (t *Trainer) precision() kernel.Precision { return t.opt.Precision }

// restore loads a state written by state into this trainer, made by
// NewTrainer with the same options for a net of the same shape (its
// parameters are overwritten). The net, method, sampler, N, seed,
// persistence and averaging must match.
func (t *Trainer) restore(arrays map[string]models.Array, bytes map[string][]byte) error {
	var m trainerMeta
	if err := json.Unmarshal(bytes["trainer"], &m); err != nil {
		return fmt.Errorf("sbn trainer state: %w", err)
	}
	want := t.meta()
	if err := kernel.Check("sbn trainer state", m.Precision, want.Precision); err != nil {
		return err
	}
	if m.Label != want.Label || m.N != want.N || m.Method != want.Method || m.Sampler != want.Sampler ||
		m.Persistent != want.Persistent || m.Average != want.Average || m.Seed != want.Seed || m.Sleep != want.Sleep {
		return fmt.Errorf("sbn trainer state is for %s, N = %d, %s with %s (persistent %v, average %d, seed %d, sleep %v); this trainer is %s, N = %d, %s with %s (persistent %v, average %d, seed %d, sleep %v)",
			m.Label, m.N, m.Method, m.Sampler, m.Persistent, m.Average, m.Seed, m.Sleep,
			want.Label, want.N, want.Method, want.Sampler, want.Persistent, want.Average, want.Seed, want.Sleep)
	}
	get := func(name string, dst []float64) error {
		a, ok := arrays[name]
		if !ok || len(a.Data) != len(dst) {
			return fmt.Errorf("sbn trainer state: array %q missing or not of %d values", name, len(dst))
		}
		copy(dst, a.Data)
		return nil
	}
	getB := func(name string, dst []uint8) error {
		b, ok := bytes[name]
		if !ok || len(b) != len(dst) {
			return fmt.Errorf("sbn trainer state: %q missing or not of %d bytes", name, len(dst))
		}
		copy(dst, b)
		return nil
	}
	if err := get("theta", t.theta); err != nil {
		return err
	}
	if t.phi != nil {
		for _, e := range []error{get("phi", t.phi), get("rec_adam_m", t.recAdam.M), get("rec_adam_s", t.recAdam.S)} {
			if e != nil {
				return e
			}
		}
	}
	switch t.dyn.method {
	case "sghmc":
		if err := get("momentum", t.dyn.v); err != nil {
			return err
		}
	case "sgnht":
		xi := []float64{0}
		for _, e := range []error{get("momentum", t.dyn.v), get("thermostat", xi)} {
			if e != nil {
				return e
			}
		}
		t.dyn.xi = xi[0]
	case "adam":
		for _, e := range []error{get("adam_m", t.dyn.adam.M), get("adam_s", t.dyn.adam.S)} {
			if e != nil {
				return e
			}
		}
	}
	if t.rule != nil {
		if err := t.rule.restore(get); err != nil {
			return err
		}
	}
	if t.avg != nil {
		flat := make([]float64, len(t.avg)*len(t.theta))
		if err := get("average", flat); err != nil {
			return err
		}
		for i, a := range t.avg {
			copy(a, flat[i*len(t.theta):])
		}
	}
	if t.persist != nil {
		for _, e := range []error{getB("gibbs", t.persist), getB("gibbs_seen", t.seen)} {
			if e != nil {
				return e
			}
		}
	}
	t.ep, t.dyn.adam.T, t.recAdam.T, t.avgN, t.avgPos = m.Epoch, m.AdamT, m.RecAdamT, m.AvgN, m.AvgPos
	scatter(t.theta, t.gen, t.genTri)
	if t.phi != nil {
		scatter(t.phi, t.rec, t.recTri)
	}
	return nil
}
