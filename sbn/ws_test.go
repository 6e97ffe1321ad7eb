package sbn

import (
	"math"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
)

// TestSGLDGaussian: SGLD on U = θ²/(2s²) with the exact gradient samples
// the discretised chain's stationary variance s²/(1 − k/4), k = η/s²
// (θ' = (1 − k/2)θ + N(0, η)), within 4 standard errors, for a step large
// enough (k = 0.2) that the discretisation shows beside the error.
func TestSGLDGaussian(t *testing.T) {
	const s = 1.5
	for _, k := range []float64{0.05, 0.2} {
		d, err := newDynamics("sgld", k*s*s, 0, 0, 0, 1, 1000)
		if err != nil {
			t.Fatal(err)
		}
		mean, se, _ := gaussianRun(d, s, 0, 200, 4000)
		want := s * s / (1 - k/4)
		t.Logf("k = %g: Var θ %.4f ± %.4f, exact %.4f (target s² = %.4f)", k, mean, se, want, s*s)
		if math.Abs(mean-want) > 4*se {
			t.Errorf("k = %g: Var θ = %.4f ± %.4f, the discretised SGLD's is %.4f", k, mean, se, want)
		}
	}
}

// recCase is a tiny trainer of method on a net of sizes with a minibatch
// of a few examples, its engine laid out for one minibatch and nothing
// else run.
func recCase(t *testing.T, method string, sizes []int, ar bool, samples int) (*Trainer, rows, []int) {
	n := randomNet(sizes, ar, 1.3, 101)
	data := plantedData(n, 7, 102)
	o := DefaultTrainOptions()
	o.Method, o.Precision, o.Samples, o.BatchSize, o.Seed = method, kernel.Float64, samples, 25, 103
	o.BaselineHidden = 3
	tr, err := NewTrainer(n, 50, o) // N = 50: scale N/|B| = 50/7
	if err != nil {
		t.Fatal(err)
	}
	idx := []int{0, 1, 2, 3, 4, 5, 6}
	tr.cur.data = data
	tr.rule.layout(idx, 1, 0)
	return tr, data, idx
}

// expectation averages, over reps steps of the engine (each step's draws
// keyed by its own step number), the gradients it writes into t.grad and
// t.gradPhi, and returns their means and standard errors.
func expectation(tr *Trainer, reps int, scale float64) (g, seG, q, seQ []float64) {
	P, Q := len(tr.grad), len(tr.gradPhi)
	s, s2, r, r2 := make([]float64, P), make([]float64, P), make([]float64, Q), make([]float64, Q)
	for rep := range reps {
		tr.rule.gradients(rep, scale, 2)
		for i, v := range tr.grad {
			s[i] += v
			s2[i] += v * v
		}
		for i, v := range tr.gradPhi {
			r[i] += v
			r2[i] += v * v
		}
	}
	ms := func(a, a2 []float64) ([]float64, []float64) {
		m, e := make([]float64, len(a)), make([]float64, len(a))
		for i := range a {
			m[i] = a[i] / float64(reps)
			e[i] = math.Sqrt(max(a2[i]/float64(reps)-m[i]*m[i], 0) / float64(reps-1))
		}
		return m, e
	}
	g, seG = ms(s, s2)
	q, seQ = ms(r, r2)
	return
}

// compare reports entries of got further than 5 standard errors (plus
// rounding) from want.
func compare(t *testing.T, what string, got, se, want []float64) {
	t.Helper()
	bad := 0
	for i := range want {
		if math.Abs(got[i]-want[i]) > 5*se[i]+1e-9*(1+math.Abs(want[i])) {
			if bad++; bad <= 5 {
				t.Errorf("%s[%d] = %.6g ± %.2g, enumerated %.6g", what, i, got[i], se[i], want[i])
			}
		}
	}
}

// flatGrad returns the flat generative gradient of a net-shaped g.
func flatGrad(tr *Trainer, g *Net) []float64 {
	xs, tri := paramSlices(g)
	out := make([]float64, len(tr.theta))
	gather(xs, tri, out)
	return out
}

// flatRec returns the flat recognition gradient of g.
func flatRec(tr *Trainer, g *Recognition) []float64 {
	xs, tri := recSlices(g, tr.net.Sizes)
	out := make([]float64, len(tr.phi))
	gather(xs, tri, out)
	return out
}

// wakeExpectation is the enumerated expectation of the θ gradient the
// engine writes: −scale Σ_n Σ_h Q(h | x_n) ∇_θ log p(x_n, h). With nvil,
// it also returns Σ_n ∇_φ L(x_n) = Σ_n Σ_h Q(h | x_n) (log p(x_n, h) −
// log Q(h | x_n)) ∇_φ log Q(h | x_n), the gradient of the bound.
func wakeExpectation(tr *Trainer, data rows, idx []int, scale float64) (theta, bound []float64) {
	n := tr.net
	g, gq := New(n.Sizes, n.AR()), NewRecognition(n.Sizes, n.AR())
	sc, gs := n.NewScratch(), n.NewGradScratch()
	for _, row := range idx {
		x := data[row]
		allStates(n, func(h [][]float64) {
			for i, v := range x {
				if h[0][i] != float64(v) {
					return
				}
			}
			lq := n.LogQ(h, sc)
			lp := n.LogJoint(h, 1, sc)
			n.AddGradLogJoint(h, math.Exp(lq), g, gs)
			n.AddGradLogQ(h, math.Exp(lq)*(lp-lq), gq, gs)
		})
	}
	theta = flatGrad(tr, g)
	for i := range theta {
		theta[i] *= -scale
	}
	return theta, flatRec(tr, gq)
}

// TestWakeSleepExpectedGradients: on tiny nets (plain and
// autoregressive, one and two latent layers) the mean over many steps of
// wake-sleep's θ gradient equals the enumerated wake-phase expectation
// −(N/|B|) Σ_n E_{Q(h|x_n)}[∇_θ log p(x_n, h)], and that of its φ
// gradient the enumerated sleep-phase expectation |B| E_{p(h,x)}[∇_φ log
// Q(h | x)], each within 5 standard errors of the steps' spread.
func TestWakeSleepExpectedGradients(t *testing.T) {
	for _, c := range tiny {
		t.Run(c.name, func(t *testing.T) {
			tr, data, idx := recCase(t, "wake-sleep", c.sizes, c.ar, 2)
			scale := 50.0 / float64(len(idx))
			g, seG, q, seQ := expectation(tr, 4000, scale)
			wantG, _ := wakeExpectation(tr, data, idx, scale)
			compare(t, "∇θ", g, seG, wantG)
			n := tr.net
			gq := NewRecognition(n.Sizes, n.AR())
			sc, gs := n.NewScratch(), n.NewGradScratch()
			allStates(n, func(h [][]float64) {
				n.AddGradLogQ(h, float64(len(idx))*math.Exp(n.LogJoint(h, 1, sc)), gq, gs)
			})
			compare(t, "∇φ (sleep)", q, seQ, flatRec(tr, gq))
		})
	}
}

// TestNVILUnbiased: NVIL's θ gradient has the enumerated expectation of
// the bound's θ gradient (the wake phase's), and its φ gradient times
// max(1, √v) that of the bound's φ gradient Σ_n ∇_φ L(x_n) — whatever the
// centring μ, the scale v and the baseline b(x) (set here far from their
// starting values) — within 5 standard errors of the steps' spread.
func TestNVILUnbiased(t *testing.T) {
	for _, c := range tiny {
		t.Run(c.name, func(t *testing.T) {
			tr, data, idx := recCase(t, "nvil", c.sizes, c.ar, 3)
			v := tr.rule.nvil
			v.mean, v.vr = -2.5, 9
			v.scaleFactor = math.Sqrt(v.vr)
			for i := range v.params {
				v.params[i] += 0.5
			}
			scale := 50.0 / float64(len(idx))
			g, seG, q, seQ := expectation(tr, 4000, scale)
			wantG, wantQ := wakeExpectation(tr, data, idx, scale)
			compare(t, "∇θ", g, seG, wantG)
			for i := range q {
				q[i] *= v.scaleFactor
				seQ[i] *= v.scaleFactor
			}
			compare(t, "∇φ·max(1,√v)", q, seQ, wantQ)
		})
	}
}

// TestNVILSignalStatistics: after a step the running mean and variance of
// the learning signal r = f − b(x) are the step's own mean and variance
// (the first step sets them), then move by α = nvilDecay towards each
// step's: checked against the draws' f recomputed from the tasks.
func TestNVILSignalStatistics(t *testing.T) {
	tr, data, idx := recCase(t, "nvil", []int{3, 2}, false, 3)
	v := tr.rule.nvil
	var wantMean, wantVar float64
	for step := range 3 {
		tr.rule.gradients(step, 1, 1)
		var rs []float64
		for _, tk := range tr.rule.tasks[:tr.rule.active] {
			for k, row := range tk.rows {
				b := v.baseline(tk, data[row])
				for _, f := range tk.f[k*3 : (k+1)*3] {
					rs = append(rs, f-b)
				}
			}
		}
		m, m2 := 0.0, 0.0
		for _, r := range rs {
			m += r / float64(len(rs))
		}
		for _, r := range rs {
			m2 += (r - m) * (r - m) / float64(len(rs))
		}
		if step == 0 {
			wantMean, wantVar = m, m2
		} else {
			wantMean = nvilDecay*wantMean + (1-nvilDecay)*m
			wantVar = nvilDecay*wantVar + (1-nvilDecay)*m2
		}
		v.update(tr.rule.tasks[:tr.rule.active], len(idx), 3)
		// the baseline moved: later steps see the new b(x), as the
		// engine does (the next gradients call recomputes it)
		if math.Abs(v.mean-wantMean) > 1e-9*(1+math.Abs(wantMean)) || math.Abs(v.vr-wantVar) > 1e-9*(1+wantVar) {
			t.Errorf("step %d: μ = %.12g, v = %.12g; want %.12g, %.12g", step, v.mean, v.vr, wantMean, wantVar)
		}
		if v.scaleFactor != max(1, math.Sqrt(v.vr)) {
			t.Errorf("step %d: scale %g, want max(1, √%g)", step, v.scaleFactor, v.vr)
		}
	}
}

// TestRWSIsAdam: rws is adam with the adaptive importance sampler under
// its own name — two epochs give the same bits in both precisions — and
// it, wake-sleep and nvil refuse the Gibbs sampler; wake-sleep and nvil
// refuse float32; a state saved by an adam trainer does not restore into
// an rws one (the method is part of the state).
func TestRWSIsAdam(t *testing.T) {
	data := plantedData(randomNet([]int{6, 3, 2}, false, 2, 111), 130, 112)
	for _, p := range []kernel.Precision{kernel.Float32, kernel.Float64} {
		var trs []*Trainer
		for _, m := range []string{"adam", "rws"} {
			n := New([]int{6, 3, 2}, false)
			InitNormal(n, 0.5, 113)
			o := DefaultTrainOptions()
			o.Method, o.Precision, o.LearningRate, o.Steps = m, p, 0.01, 2
			tr, err := NewTrainer(n, len(data), o)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if _, err := tr.TrainEpoch(data); err != nil {
					t.Fatal(err)
				}
			}
			trs = append(trs, tr)
		}
		if d := sameNet(trs[0].Net(), trs[1].Net()); d != "" {
			t.Errorf("%s: rws and adam differ in %s", p, d)
		}
		arr, byt := trs[0].state()
		if err := trs[1].restore(arr, byt); err == nil {
			t.Errorf("%s: an adam state restored into an rws trainer", p)
		}
	}
	for _, m := range []string{"rws", "wake-sleep", "nvil"} {
		o := DefaultTrainOptions()
		o.Method, o.Sampler, o.Precision = m, "gibbs", kernel.Float64
		if _, err := NewTrainer(New([]int{6, 3}, false), 10, o); err == nil {
			t.Errorf("%s with the gibbs sampler was accepted", m)
		}
		o.Sampler, o.Precision = "adaptive-is", kernel.Float32
		if _, err := NewTrainer(New([]int{6, 3}, false), 10, o); (err == nil) == recMethod(m) {
			t.Errorf("%s in float32: %v", m, err)
		}
	}
}

// TestBaselinesCountEpochsAndBatches: the trainer contract of
// TestTrainerCountsEpochsAndBatches for the methods added beside DSGHMC —
// Total, Completed, the epoch's signal, the batch hook seeing every
// minibatch once with its size, and a checkpoint that resumes at its epoch
// into a fresh trainer with the same state.
func TestBaselinesCountEpochsAndBatches(t *testing.T) {
	x := plantedData(randomNet([]int{6, 3}, false, 2, 5), 230, 6) // minibatches 100, 100, 30
	for _, c := range []struct {
		method, sampler, signal string
		precision               kernel.Precision
	}{
		{"sgld", "gibbs", SignalLogJoint, kernel.Float32},
		{"sgld", "adaptive-is", SignalISBound, kernel.Float32},
		{"rws", "adaptive-is", SignalISBound, kernel.Float32},
		{"wake-sleep", "adaptive-is", SignalELBO, kernel.Float64},
		{"nvil", "adaptive-is", SignalELBO, kernel.Float64},
	} {
		o := DefaultTrainOptions()
		o.Method, o.Sampler, o.Precision, o.Steps, o.Epochs = c.method, c.sampler, c.precision, 2, 2
		tr, err := NewTrainer(New([]int{6, 3}, false), len(x), o)
		if err != nil {
			t.Fatal(err)
		}
		var sizes []int
		tr.SetOnBatch(func(n int) { sizes = append(sizes, n) })
		for e := 1; e <= 2; e++ {
			sizes = nil
			st, err := tr.TrainEpoch(x)
			if err != nil {
				t.Fatal(err)
			}
			if st.Epoch != e || tr.Completed() != e || st.Signal != c.signal || st.K != 2 || tr.Total() != 2 {
				t.Errorf("%s: epoch %d: summary %+v, Completed %d", c.method, e, st, tr.Completed())
			}
			if len(sizes) != 3 || sizes[0] != 100 || sizes[1] != 100 || sizes[2] != 30 {
				t.Errorf("%s: epoch %d: the batch hook saw minibatches of %v, want [100 100 30]", c.method, e, sizes)
			}
		}
		ck, err := tr.Checkpoint("x")
		if err != nil {
			t.Fatal(err)
		}
		again, _ := NewTrainer(New([]int{6, 3}, false), len(x), o)
		if err := again.Resume(ck); err != nil || again.Completed() != 2 || ck.Meta.Epoch != 2 {
			t.Errorf("%s: resumed at epoch %d (meta %d): %v", c.method, again.Completed(), ck.Meta.Epoch, err)
		}
		a1, _ := tr.state()
		a2, _ := again.state()
		if len(a1) != len(a2) {
			t.Errorf("%s: the resumed state has %d arrays, the saved one %d", c.method, len(a2), len(a1))
		}
	}
}

// TestRWSSleepPhase: rws with Sleep adds to φ's gradient the sleep
// phase's, whose mean over many steps equals the enumerated |B| E_{p(h,x)}
// [∇_φ log Q(h | x)] within 5 standard errors on the tiny nets; its state
// resumes bit for bit (2 epochs, restore, 1 more = 3 straight, workers 1
// against 3) and a state without the sleep phase is refused.
func TestRWSSleepPhase(t *testing.T) {
	for _, c := range tiny {
		t.Run(c.name, func(t *testing.T) {
			n := randomNet(c.sizes, c.ar, 1.3, 121)
			o := DefaultTrainOptions()
			o.Method, o.Sleep, o.Samples, o.Seed = "rws", true, 2, 122
			tr, err := NewTrainer(n, 50, o)
			if err != nil {
				t.Fatal(err)
			}
			e := tr.is.(*rwsSleep[float32]).sleep
			idx := []int{0, 1, 2, 3, 4, 5, 6}
			e.layout(idx, 1, 0)
			Q := len(tr.phi)
			s, s2, g := make([]float64, Q), make([]float64, Q), make([]float64, Q)
			const reps = 4000
			for rep := range reps {
				e.sleepGradient(rep, 2, g)
				for i, v := range g {
					s[i] += v
					s2[i] += v * v
				}
			}
			for i := range s {
				s[i] /= reps
				s2[i] = math.Sqrt(max(s2[i]/reps-s[i]*s[i], 0) / (reps - 1))
			}
			gq := NewRecognition(n.Sizes, n.AR())
			sc, gs := n.NewScratch(), n.NewGradScratch()
			allStates(n, func(h [][]float64) {
				n.AddGradLogQ(h, float64(len(idx))*math.Exp(n.LogJoint(h, 1, sc)), gq, gs)
			})
			compare(t, "∇φ (rws sleep)", s, s2, flatRec(tr, gq))
		})
	}
	data := plantedData(randomNet([]int{6, 3, 2}, true, 2, 123), 230, 124)
	fresh := func(workers int, sleep bool) *Trainer {
		n := New([]int{6, 3, 2}, true)
		InitNormal(n, 1, 125)
		o := DefaultTrainOptions()
		o.Method, o.Sleep, o.Steps, o.Workers, o.Seed = "rws", sleep, 2, workers, 126
		tr, err := NewTrainer(n, len(data), o)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	straight, first := fresh(1, true), fresh(3, true)
	for range 3 {
		straight.TrainEpoch(data)
	}
	for range 2 {
		first.TrainEpoch(data)
	}
	arr, byt := first.state()
	second := fresh(3, true)
	if err := second.restore(arr, byt); err != nil {
		t.Fatal(err)
	}
	second.TrainEpoch(data)
	if d := sameNet(second.Net(), straight.Net()); d != "" {
		t.Errorf("resumed rws with sleep differs from the straight run in %s", d)
	}
	wakeOnly := fresh(1, false)
	for range 3 {
		wakeOnly.TrainEpoch(data)
	}
	if d := sameNet(wakeOnly.Net(), straight.Net()); d == "" {
		t.Errorf("the sleep phase changed nothing")
	}
	if err := fresh(1, false).restore(arr, byt); err == nil || !strings.Contains(err.Error(), "sleep") {
		t.Errorf("a state with the sleep phase restored into rws without it: %v", err)
	}
	o := DefaultTrainOptions()
	o.Method, o.Sleep = "adam", true
	if _, err := NewTrainer(New([]int{6, 3}, false), 10, o); err == nil {
		t.Errorf("adam with the sleep phase was accepted")
	}
}
