package sbn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/internal/mlp"
	"github.com/logz-ml/logz/internal/optim"
	"github.com/logz-ml/logz/internal/seeds"
)

// NVIL for sigmoid belief nets (Mnih & Gregor 2014; the engine and the θ
// update are ws.go's). The objective is the variational lower bound
//
//	L(x) = E_{h~Q(·|x)}[f(x, h)],   f(x, h) = log p(x, h) − log Q(h | x),
//
// whose gradient in φ is E_Q[f ∇_φ log Q(h | x)] (since E_Q[∇_φ log Q] =
// 0, the −∇_φ log Q term of f has expectation zero). NVIL estimates it
// with each draw's learning signal centred and scaled:
//
//	r = f(x, h) − b(x),   s = (r − μ) / max(1, √v),
//	g_φ = (1/|B|) Σ_n (1/L) Σ_s s_{n,s} ∇_φ log Q(h_{n,s} | x_n),
//
// with b(x) an input-dependent baseline (a tanh MLP of BaselineHidden
// units, mlp; none when 0) and μ, v running averages of r's mean and
// variance over the minibatches (μ ← αμ + (1−α) mean r, v ← αv + (1−α)
// var r, α = nvilDecay as in the paper; the first step sets them). b, μ
// and v do not depend on the step's draws, so E[g_φ]·max(1, √v) is
// exactly ∇_φ L averaged over the minibatch: unbiased, without clipping.
// b descends ½(r − μ)² by Adam at RecLearningRate (gradient (r − μ)∇b in
// ascent form). Not done: the paper's per-layer ("local") learning
// signals for deeper nets — one signal serves every layer of Q.
//
// This is the SBN version of train's VAE NVIL (whose decoder and encoder
// differ): the running statistics are the same few lines, not shared
// (package sbn may not import train).
type nvilState struct {
	base        *mlp.Net // nil without a baseline
	params      []float64
	adam        optim.Adam
	mean, vr    float64
	steps       int
	scaleFactor float64 // max(1, √v) of the current step
}

// nvilDecay is α, the weight of the past in μ and v (Mnih & Gregor: 0.8).
const nvilDecay = 0.8

func newNVIL(t *Trainer) *nvilState {
	v := &nvilState{}
	if h := t.opt.BaselineHidden; h > 0 {
		sizes := []int{t.net.Sizes[0], h, 1}
		v.params = make([]float64, mlp.NumParams(sizes))
		v.base = mlp.MustNew(sizes, v.params)
		v.base.Init(rand.New(rand.NewPCG(seeds.Derive(t.opt.Seed, keyBase), 0)))
		v.adam = optim.NewAdam(t.opt.RecLearningRate, len(v.params))
	}
	v.scaleFactor = 1
	return v
}

// baseline returns b(x), keeping the activations in tk.bs for
// baselineGrad.
func (v *nvilState) baseline(tk *recTask, x []uint8) float64 {
	if v.base == nil {
		return 0
	}
	return v.base.ForwardBinary(tk.bs, x)[0]
}

// weight returns the draw's s = (f − b(x) − μ)/max(1, √v) and adds r − μ
// to the task's sums.
func (v *nvilState) weight(tk *recTask, f float64) float64 {
	d := f - tk.bx - v.mean
	tk.sumD += d
	tk.sumD2 += d * d
	return d / v.scaleFactor
}

// baselineGrad adds (1/L) Σ_s (r_s − μ) ∇b(x) to the task's baseline
// gradient (ascent on −½(r − μ)²).
func (v *nvilState) baselineGrad(tk *recTask, x []uint8, f []float64) {
	if v.base == nil {
		return
	}
	dy := 0.0
	for _, fs := range f {
		dy += fs - tk.bx - v.mean
	}
	dy /= float64(len(f))
	v.base.BackwardBinary(tk.gb, nil, tk.bs, x, []float64{dy})
}

// update takes the baseline's Adam step on the gradient summed over the
// minibatch's nb examples (tasks[0].gb) and folds the step's nb·L values
// of r into μ and v.
func (v *nvilState) update(tasks []*recTask, nb, L int) {
	k := float64(nb * L)
	sumD, sumD2 := 0.0, 0.0
	for _, tk := range tasks {
		sumD += tk.sumD
		sumD2 += tk.sumD2
	}
	if v.base != nil {
		v.adam.Step(v.params, tasks[0].gb, -1/float64(nb))
	}
	md := sumD / k
	mean := v.mean + md
	vr := max(0, sumD2/k-md*md)
	if v.steps > 0 {
		v.mean = nvilDecay*v.mean + (1-nvilDecay)*mean
		v.vr = nvilDecay*v.vr + (1-nvilDecay)*vr
	} else {
		v.mean, v.vr = mean, vr
	}
	v.steps++
	v.scaleFactor = max(1, math.Sqrt(v.vr))
}

func (v *nvilState) state(put func(string, []float64, ...int)) {
	put("nvil_signal", []float64{v.mean, v.vr, float64(v.steps), float64(v.adam.T)})
	if v.base != nil {
		put("nvil_baseline", v.params)
		put("nvil_adam_m", v.adam.M)
		put("nvil_adam_s", v.adam.S)
	}
}

func (v *nvilState) restore(get func(string, []float64) error) error {
	sig := make([]float64, 4)
	if err := get("nvil_signal", sig); err != nil {
		return err
	}
	if sig[2] < 0 || sig[2] != math.Trunc(sig[2]) || sig[3] < 0 || sig[3] != math.Trunc(sig[3]) {
		return fmt.Errorf("sbn trainer state: nvil_signal %v: the step counts are not whole numbers", sig)
	}
	v.mean, v.vr, v.steps, v.adam.T = sig[0], sig[1], int(sig[2]), int(sig[3])
	v.scaleFactor = max(1, math.Sqrt(v.vr))
	if v.base != nil {
		for _, e := range []error{get("nvil_baseline", v.params), get("nvil_adam_m", v.adam.M), get("nvil_adam_s", v.adam.S)} {
			if e != nil {
				return e
			}
		}
	}
	return nil
}
