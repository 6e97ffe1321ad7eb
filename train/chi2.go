package train

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/optim"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// Chi2Options configures an RBMChi2Trainer.
type Chi2Options struct {
	BatchSize   int
	WeightDecay float64 // L2 penalty λ on W
	Shuffle     bool
	// Schedule gives Adam's step size on θ per epoch (LearningRateAt); its
	// k and momentum are not used (Adam's β₁ is its momentum).
	Schedule Schedule
	Workers  int // goroutines; 0 = 2. Results do not depend on it.
	// QSteps is the number of fitter steps on q per θ step.
	QSteps int
	// QSamples is the number of draws from q per fitter step, and of fresh
	// draws for each θ step.
	QSamples int
	// QComponents is K, the number of Bernoulli products of the uniform
	// mixture q.
	QComponents int
	// QLearningRate is the step size of q's own Adam.
	QLearningRate float64
	// QDecay is the weight of the past in the fitter's moving averages.
	QDecay float64
	// QInitStd is the std of the N(0, σ²) noise added to the base-rate
	// logits of each component at the start (it breaks their symmetry).
	QInitStd float64
	// Linearise selects the linearised weights w_i²/(nγ) of the θ-gradient
	// (eq. 6: unbiased for the running γ); false: the self-normalised
	// w_i²/Σ_j w_j² (consistent, biased O(1/n)).
	Linearise bool
	// Epochs is the number of epochs to train (the trainer's Total).
	Epochs int
}

// Check reports impossible options.
func (o Chi2Options) Check() error {
	switch {
	case o.BatchSize <= 0:
		return fmt.Errorf("batch size must be positive, got %d", o.BatchSize)
	case o.Schedule == nil:
		return errors.New("no schedule")
	case o.QSteps < 1:
		return fmt.Errorf("chi2: q steps per θ step must be ≥ 1, got %d", o.QSteps)
	case o.QComponents < 1:
		return fmt.Errorf("chi2: q needs ≥ 1 component, got %d", o.QComponents)
	case !(o.QInitStd >= 0) || math.IsInf(o.QInitStd, 0):
		return fmt.Errorf("chi2: q's initial noise std must be a non-negative number, got %g", o.QInitStd)
	case !(o.WeightDecay >= 0) || math.IsInf(o.WeightDecay, 0):
		return fmt.Errorf("weight decay must be a non-negative number, got %g", o.WeightDecay)
	}
	return o.fitOptions().Check()
}

func (o Chi2Options) fitOptions() chi2.FitOptions {
	return chi2.FitOptions{Samples: o.QSamples, LearningRate: o.QLearningRate, Decay: o.QDecay}
}

// Purposes of the χ² trainer's random streams (seeds.Derive labels).
const (
	chi2SeedMain  = 1 // weight init and the epoch's shuffling
	chi2SeedQInit = 2 // the noise on q's initial logits
	chi2SeedQ     = 3 // every draw from q (fitter steps and θ steps)
)

// Chi2StatePrefix is the prefix of q's fitter state in a checkpoint
// (chi2.PutState).
const Chi2StatePrefix = "chi2_q_"

// RBMChi2Trainer trains an RBM by the χ² variational bound of Kuleshov &
// Ermon (2017, §4), maximising over θ = (W, a, b)
//
//	L(θ) = (1/B) Σ_{v ∈ batch} log p̃_θ(v) − ½ log E_q[(p̃_θ(x)/q(x))²]
//
// (a lower bound on the mean log-likelihood, since ½ log E_q[w²] ≥ log Z),
// alternately with QSteps fitter steps that lower the bound over q, a
// uniform mixture of Bernoulli products (chi2.Mixture, chi2.Fitter). With
// log p̃_θ(v) = −F(v) = aᵀv + Σ_j softplus(b_j + vᵀW_{:,j}),
//
//	∇_W log p̃(v) = v σ(b + Wᵀv)ᵀ,  ∇_a = v,  ∇_b = σ(b + Wᵀv),
//
// and the θ-gradient of the bound is E_q[w² ∇ log p̃(x)]/E_q[w²]. Each θ
// step draws n = QSamples fresh x_i ~ q and estimates
//
//	∇L ≈ (1/B) Σ_batch ∇ log p̃(v) − Σ_i ω_i ∇ log p̃(x_i) − λW,
//
// with ω_i = w_i²/(nγ) (linearised at the fitter's running γ ≈ E_q[w²];
// log y ≤ y/γ + log γ − 1, eq. 6) or ω_i = w_i²/Σ_j w_j² (self-normalised).
// Adam (β₁ = 0.9, β₂ = 0.999, ε = 1e-8; internal/optim) ascends it with the
// schedule's learning rate. The data term is exact (no sampling).
//
// The gradient is computed in fixed chunks of chunkSize rows combined in a
// fixed order, and q's draws come from one generator, so results do not
// depend on Workers or GOMAXPROCS.
type RBMChi2Trainer struct {
	M   *models.RBM
	Opt Chi2Options
	epochs
	// Fit is q's fitter (q = Fit.Q, a *chi2.Mixture).
	Fit *chi2.Fitter

	src, qsrc           *rand.PCG // master and q-draw generators (checkpointed)
	rng, qrng           *rand.Rand
	adamW, adamA, adamB optim.Adam
	logp                func([]uint8) float64
	omega               []float64
	tasks, active       []*task
	perm                []int
	data                data.Examples
	next                atomic.Int64
	wg                  workgroup.Group
	work                func()
}

// NewRBMChi2Trainer prepares a χ² trainer of m. q's components start at
// the logits base (nil: 0) plus N(0, QInitStd²) noise; seed determines
// every random draw.
func NewRBMChi2Trainer(m *models.RBM, opt Chi2Options, base []float64, seed uint64) (*RBMChi2Trainer, error) {
	if err := opt.Check(); err != nil {
		return nil, err
	}
	if opt.Workers <= 0 {
		opt.Workers = 2
	}
	q, err := chi2.NewMixture(m.NVis, opt.QComponents, base, opt.QInitStd, rand.New(rand.NewPCG(seeds.Derive(seed, chi2SeedQInit), 0)))
	if err != nil {
		return nil, err
	}
	fit, err := chi2.NewFitter(q, opt.fitOptions())
	if err != nil {
		return nil, err
	}
	t := &RBMChi2Trainer{M: m, Opt: opt, Fit: fit, epochs: epochs{total: opt.Epochs},
		src:  rand.NewPCG(seeds.Derive(seed, chi2SeedMain), 0),
		qsrc: rand.NewPCG(seeds.Derive(seed, chi2SeedQ), 0),
	}
	t.rng, t.qrng = rand.New(t.src), rand.New(t.qsrc)
	t.adamW = optim.NewAdam(0, len(m.W))
	t.adamA = optim.NewAdam(0, m.NVis)
	t.adamB = optim.NewAdam(0, m.NHid)
	t.logp = chi2.RBMTarget{M: m}.NewLogP()
	t.omega = make([]float64, 0, opt.QSamples)
	t.growTasks(opt.BatchSize)
	t.work = t.worker
	return t, nil
}

// growTasks makes sure there are tasks for a minibatch of size examples
// and QSamples draws, in chunks of chunkSize.
func (t *RBMChi2Trainer) growTasks(size int) {
	D, H := t.M.NVis, t.M.NHid
	n := (size+chunkSize-1)/chunkSize + (t.Opt.QSamples+chunkSize-1)/chunkSize
	for len(t.tasks) < n {
		t.tasks = append(t.tasks, &task{
			v: make([]float64, D), p: make([]float64, H), on: make([]int32, 0, D),
			gW: make([]float64, D*H), gA: make([]float64, D), gB: make([]float64, H),
		})
	}
	if cap(t.active) < n {
		t.active = make([]*task, 0, n)
	}
}

// InitParams sets W_ij ~ N(0, std²), hidden biases 0 and visible biases
// vbias (nil: 0), as RBMTrainer.InitParams.
func (t *RBMChi2Trainer) InitParams(std float64, vbias []float64) {
	initRBM(t.M, std, vbias, t.rng)
}

// SignalChi2LogZ names the ReconError of a χ² trainer's epoch summary: the
// mean over the epoch's θ steps of the tracked bound ½ log mean_i w_i² on
// each step's fresh draws (before the step), a running estimate of log Z,
// biased low as a Monte-Carlo estimate (docs/methods.md#chi2-bias) and high
// by the χ² gap of q.
const SignalChi2LogZ = "chi2-logz"

// TrainEpoch runs one pass over data in minibatches; the summary's
// ReconError is the tracked log Z (SignalChi2LogZ). On divergence (a
// non-finite log weight or parameter) it returns an error wrapping
// ErrDiverged that names the epoch and minibatch.
func (t *RBMChi2Trainer) TrainEpoch(data data.Examples) (EpochSummary, error) {
	m, o := t.M, t.Opt
	if data.Len() == 0 {
		return EpochSummary{}, errors.New("no training data")
	}
	if len(data.Row(0)) != m.NVis {
		return EpochSummary{}, fmt.Errorf("data has %d units per example, the model %d visible units", len(data.Row(0)), m.NVis)
	}
	epoch := t.done + 1
	lr := o.Schedule.LearningRateAt(epoch)
	t.adamW.LR, t.adamA.LR, t.adamB.LR = lr, lr, lr
	n := data.Len()
	t.perm = Order(t.perm, n, o.Shuffle, t.rng)
	sum := 0.0
	if err := t.run(t.perm, o.BatchSize, func(_ int, idx []int) error {
		v, err := t.Step(data, idx)
		sum += v
		return err
	}, t.checkFinite); err != nil {
		return EpochSummary{}, err
	}
	batches := (n + o.BatchSize - 1) / o.BatchSize
	return EpochSummary{Epoch: epoch, LearningRate: lr, ReconError: sum / float64(batches), Signal: SignalChi2LogZ}, nil
}

// Current is the model being trained, M.
func (t *RBMChi2Trainer) Current() models.Model { return t.M }

// EpochSettings are the epoch line's settings of χ² learning, named as
// the train: keys: the learning rate and the proposal fitting (no k, no
// momentum: the trainer has neither).
func (t *RBMChi2Trainer) EpochSettings(s EpochSummary) string {
	o := t.Opt
	return fmt.Sprintf("chi2 lr=%.4g q_steps=%d q_samples=%d q_components=%d", s.LearningRate, o.QSteps, o.QSamples, o.QComponents)
}

// checkFinite is RBMTrainer.checkFinite for this trainer's model.
func (t *RBMChi2Trainer) checkFinite() error {
	return (&RBMTrainer{M: t.M}).checkFinite()
}

// QStep takes one fitter step on q at the current θ and returns the
// batch's ½ log mean w² (before the step).
func (t *RBMChi2Trainer) QStep() (float64, error) {
	return t.Fit.Step(t.logp, t.qrng)
}

// Step is one θ step on the examples idx of data, preceded by QSteps
// fitter steps on q. It returns the tracked bound ½ log mean w² of the
// fresh draws the θ-gradient uses.
func (t *RBMChi2Trainer) Step(data data.Examples, idx []int) (float64, error) {
	for range t.Opt.QSteps {
		if _, err := t.QStep(); err != nil {
			return math.NaN(), err
		}
	}
	return t.ThetaStep(data, idx)
}

// ThetaStep draws QSamples fresh points from q and takes one Adam step on
// θ along the estimated gradient of L (see the type's doc).
func (t *RBMChi2Trainer) ThetaStep(data data.Examples, idx []int) (float64, error) {
	bound, err := t.Fit.Draw(t.logp, t.qrng)
	if err != nil {
		return bound, err
	}
	gW, gA, gB := t.Gradient(data, idx)
	if wd := t.Opt.WeightDecay; wd != 0 {
		for i, x := range t.M.W {
			gW[i] -= wd * x
		}
	}
	t.adamW.Step(t.M.W, gW, -1)
	t.adamA.Step(t.M.VBias, gA, -1)
	t.adamB.Step(t.M.HBias, gB, -1)
	return bound, nil
}

// Gradient returns the estimate of ∇L at the fitter's current draws
// (without weight decay): (1/B) Σ_batch ∇ log p̃(v) − Σ_i ω_i ∇ log p̃(x_i).
// The slices are the trainer's scratch, valid until the next call.
func (t *RBMChi2Trainer) Gradient(data data.Examples, idx []int) (gW, gA, gB []float64) {
	if t.Opt.Linearise {
		t.omega = t.Fit.Linearised(t.omega)
	} else {
		t.omega = t.Fit.NormalisedSquares(t.omega)
	}
	t.growTasks(len(idx))
	t.active = t.active[:0]
	for lo := 0; lo < len(idx); lo += chunkSize {
		w := t.tasks[len(t.active)]
		w.rows, w.negative, w.scale = idx[lo:min(lo+chunkSize, len(idx))], false, 1/float64(len(idx))
		t.active = append(t.active, w)
	}
	for lo := 0; lo < len(t.omega); lo += chunkSize {
		w := t.tasks[len(t.active)]
		w.rows, w.negative = nil, true
		w.chainLo, w.chainHi = lo, min(lo+chunkSize, len(t.omega))
		t.active = append(t.active, w)
	}
	t.data = data
	t.next.Store(0)
	if workers := min(t.Opt.Workers, len(t.active)); workers <= 1 {
		t.worker()
	} else {
		for range workers {
			t.wg.Go(t.work)
		}
		t.wg.Wait()
	}
	t.data = nil
	// Combine in a fixed order.
	a0 := t.active[0]
	for _, w := range t.active[1:] {
		axpy(a0.gW, 1, w.gW)
		axpy(a0.gA, 1, w.gA)
		axpy(a0.gB, 1, w.gB)
	}
	return a0.gW, a0.gA, a0.gB
}

// worker runs the active tasks, taking the next one until none is left.
func (t *RBMChi2Trainer) worker() {
	for {
		i := int(t.next.Add(1)) - 1
		if i >= len(t.active) {
			return
		}
		t.runTask(t.active[i])
	}
}

// runTask sets a task's gW, gA, gB to Σ_rows c_r ∇ log p̃(v_r): c = 1/B for
// the minibatch's examples, −ω_i for q's draws.
func (t *RBMChi2Trainer) runTask(w *task) {
	m := t.M
	clear(w.gW)
	clear(w.gA)
	clear(w.gB)
	if w.negative {
		for i := w.chainLo; i < w.chainHi; i++ {
			for d, x := range t.Fit.Draws[i].X {
				w.v[d] = float64(x)
			}
			hiddenProbs(w.p, m, w.v, w.on, 1)
			accumulate(w, w.v, w.p, -t.omega[i])
		}
		return
	}
	for _, n := range w.rows {
		for d, x := range t.data.Row(n) {
			w.v[d] = float64(x)
		}
		hiddenProbs(w.p, m, w.v, w.on, 1)
		accumulate(w, w.v, w.p, w.scale)
	}
}

// Checkpoint returns the model with everything needed to resume exactly:
// the three Adam states of θ, q with its fitter state (chi2.PutState under
// Chi2StatePrefix) and both generators. The arrays alias the trainer's
// buffers: save the checkpoint before training further.
func (t *RBMChi2Trainer) Checkpoint(experiment string) (*models.Checkpoint, error) {
	rng, err := t.src.MarshalBinary()
	if err != nil {
		return nil, err
	}
	qrng, err := t.qsrc.MarshalBinary()
	if err != nil {
		return nil, err
	}
	js, err := json.Marshal(trainState{Epoch: t.done, Method: "chi2"})
	if err != nil {
		return nil, err
	}
	m := t.M
	c := &models.Checkpoint{
		Model: m,
		Meta:  models.Meta{Experiment: experiment, Epoch: t.done, Train: js},
		State: map[string]models.Array{
			"adam_W_m":     {Shape: []int{m.NVis, m.NHid}, Data: t.adamW.M},
			"adam_W_s":     {Shape: []int{m.NVis, m.NHid}, Data: t.adamW.S},
			"adam_vbias_m": {Shape: []int{m.NVis}, Data: t.adamA.M},
			"adam_vbias_s": {Shape: []int{m.NVis}, Data: t.adamA.S},
			"adam_hbias_m": {Shape: []int{m.NHid}, Data: t.adamB.M},
			"adam_hbias_s": {Shape: []int{m.NHid}, Data: t.adamB.S},
			"adam_steps":   {Shape: []int{3}, Data: []float64{float64(t.adamW.T), float64(t.adamA.T), float64(t.adamB.T)}},
		},
		Bytes: map[string][]byte{"rng": rng, "rng_q": qrng},
	}
	chi2.PutState(Chi2StatePrefix, t.Fit, c.State, c.Bytes)
	return c, nil
}

// Resume restores a trainer from a checkpoint written by Checkpoint; q's
// number of components and draws per step must match the options.
func (t *RBMChi2Trainer) Resume(c *models.Checkpoint) error {
	m, st, err := checkpointRBM(c, t.M)
	if err != nil {
		return err
	}
	if st.Method != "chi2" {
		return fmt.Errorf("checkpoint was trained by %s, the experiment asks for method chi2", st.method())
	}
	fit, err := chi2.LoadState(Chi2StatePrefix, t.Opt.fitOptions(), c.State, c.Bytes)
	if err != nil {
		return err
	}
	if sh := fit.Q.Shape(); fit.Q.Kind() != chi2.KindMixture || sh[0] != m.NVis || sh[1] != t.Opt.QComponents {
		return fmt.Errorf("checkpoint's q is a %s of shape %v, the experiment asks for a mixture of %d components over %d units", fit.Q.Kind(), sh, t.Opt.QComponents, m.NVis)
	}
	get := func(name string, dst []float64) error {
		a, ok := c.State[name]
		if !ok || len(a.Data) != len(dst) {
			return fmt.Errorf("checkpoint state %q missing or of the wrong size (want %d values)", name, len(dst))
		}
		copy(dst, a.Data)
		return nil
	}
	for _, s := range []struct {
		name string
		dst  []float64
	}{{"adam_W_m", t.adamW.M}, {"adam_W_s", t.adamW.S}, {"adam_vbias_m", t.adamA.M}, {"adam_vbias_s", t.adamA.S},
		{"adam_hbias_m", t.adamB.M}, {"adam_hbias_s", t.adamB.S}} {
		if err := get(s.name, s.dst); err != nil {
			return err
		}
	}
	steps := make([]float64, 3)
	if err := get("adam_steps", steps); err != nil {
		return err
	}
	for _, s := range steps {
		if s != math.Trunc(s) || s < 0 || s > 1<<53 {
			return fmt.Errorf("checkpoint state \"adam_steps\": %v are not step counts", steps)
		}
	}
	for _, k := range []struct {
		name string
		src  *rand.PCG
	}{{"rng", t.src}, {"rng_q", t.qsrc}} {
		b, ok := c.Bytes[k.name]
		if !ok {
			return fmt.Errorf("checkpoint has no generator state %q", k.name)
		}
		if err := k.src.UnmarshalBinary(b); err != nil {
			return fmt.Errorf("checkpoint generator state %q: %w", k.name, err)
		}
	}
	t.adamW.T, t.adamA.T, t.adamB.T = int(steps[0]), int(steps[1]), int(steps[2])
	// Keep the trainer's fitter (its draws are scratch): copy the state in.
	if err := t.Fit.Restore(fit.State()); err != nil {
		return err
	}
	copy(t.M.W, m.W)
	copy(t.M.VBias, m.VBias)
	copy(t.M.HBias, m.HBias)
	t.done = st.Epoch
	return nil
}
