package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// auxParamVec and auxGradVec lay out the auxiliary model's parameters and
// a task's gradients alike: decoder, encoder, Q, Enc, P, prior (W, a, c or
// logits). auxParamSlices are the parameter slices in that order.
func auxParamSlices(m *models.VAE) [][]float64 {
	out := [][]float64{m.Dec.Params(), m.Enc.Params(), m.Aux.Q.Params(), m.Aux.Enc.Params(), m.Aux.P.Params()}
	if r := m.Prior; r != nil {
		return append(out, r.W, r.VBias, r.HBias)
	}
	return append(out, m.PriorLogits)
}

func auxGradVec(w *vaeTask, dst []float64) []float64 {
	dst = dst[:0]
	for _, g := range [][]float64{w.gDec, w.gEnc, w.ax.g[0], w.ax.g[1], w.ax.g[2], w.prior.gW, w.prior.gA, w.prior.gB, w.gLog} {
		dst = append(dst, g...)
	}
	return dst
}

// auxExactObjective is (1/K) Σ_k E_{z ~ q(z|x,a_k)}[f(x,a_k,z)] with
// a_k = μ_q(x) + σ_q(x) ⊙ ε_k, the expectation over z by enumeration.
func auxExactObjective(m *models.VAE, x []uint8, epss [][]float64) float64 {
	s := m.NewScratch()
	a := make([]float64, m.Aux.Dim)
	tot := 0.0
	for _, eps := range epss {
		mu, ls := m.AuxQ(s, x)
		lqa := models.AuxFromNoise(a, eps, mu, ls)
		kappa := append([]float64(nil), m.AuxEncoderLogits(s, m.AuxEncoderPre(s, x), a)...)
		for _, z := range allStates(m.NumLatent()) {
			lqz := models.BernoulliLogProb(z, kappa)
			pm, pls := m.AuxP(s, x, z)
			f := m.LogLikelihood(s, x, z) + m.LogPrior(s, z) + models.GaussLogProb(a, pm, pls) - lqa - lqz
			tot += math.Exp(lqz) * f
		}
	}
	return tot / float64(len(epss))
}

// auxFiniteDiff is the central finite difference (step h) of
// auxExactObjective in every parameter, laid out as auxGradVec.
func auxFiniteDiff(m *models.VAE, x []uint8, epss [][]float64, h float64) []float64 {
	var g []float64
	for _, p := range auxParamSlices(m) {
		for i := range p {
			v := p[i]
			p[i] = v + h
			up := auxExactObjective(m, x, epss)
			p[i] = v - h
			down := auxExactObjective(m, x, epss)
			p[i] = v
			g = append(g, (up-down)/(2*h))
		}
	}
	return g
}

// TestVAEAuxGradient checks the auxiliary trainer's per-draw gradient
// estimates for fixed ε (auxBegin, auxDraw, auxEnd) against central finite
// differences of the exact (1/K) Σ_k E_z[f] at the same K = 3 draws of ε:
// for every parameter of the decoder, the encoder q(z|x,a) and its
// a-input net, q(a|x), p(a|x,z) and the prior, the mean of n estimates per
// ε (stratified) lies within 4.5 standard errors. The signal is centred
// off its mean (μ = 0.7) and normalised by 2 (v = 4), with a random
// baseline: the q(z|x,a) nets' estimates (normalised, as NVIL's) are
// multiplied back by 2, q(a|x)'s are not (its score term through a is in
// the signal's own units). Mutations checked: the score term's flow
// through a dropped (q(a|x) fails), that flow normalised like the encoder
// (q(a|x) fails), the pathwise ∂ log p(a|x,z)/∂a dropped (q(a|x) fails),
// log σ_q's entropy term dropped (q(a|x) fails), ∂/∂log σ_p without its
// −1 (p(a|x,z) fails).
func TestVAEAuxGradient(t *testing.T) {
	for _, H := range []int{0, 3} {
		m, err := modeltest.RandomAuxVAE(H, 2, 3, 13, 0.7, 0.4)
		if err != nil {
			t.Fatal(err)
		}
		tr := gradientTrainer(t, m)
		rng := rand.New(rand.NewPCG(5, 6))
		x := []uint8{1, 0, 1, 1, 0, 1}
		epss := make([][]float64, 3)
		for k := range epss {
			epss[k] = []float64{rng.NormFloat64(), rng.NormFloat64()}
		}
		want := auxFiniteDiff(m, x, epss, 1e-5)
		tr.growTasks(1)
		tr.SignalMean, tr.SignalVar, tr.SignalSteps = 0.7, 4, 1
		const norm = 2.0
		nd, ne := m.Dec.NumParams(), m.Enc.NumParams()
		nq, na, np := m.Aux.Q.NumParams(), m.Aux.Enc.NumParams(), m.Aux.P.NumParams()
		w := tr.tasks[0]
		w.src.Seed(1, 2)
		const n = 10000
		mean, se2 := make([]float64, len(want)), make([]float64, len(want))
		var v []float64
		for _, eps := range epss {
			var mo moments
			for range n {
				clearTask(w)
				tr.auxBegin(w, x)
				copy(w.ax.eps, eps)
				tr.auxEnd(w, x, tr.auxDraw(w, x, 1))
				v = auxGradVec(w, v)
				for i := nd; i < nd+ne; i++ {
					v[i] *= norm
				}
				for i := nd + ne + nq; i < nd+ne+nq+na; i++ {
					v[i] *= norm
				}
				mo.add(v)
			}
			K := float64(len(epss))
			for i := range mean {
				mean[i] += mo.mean(i) / K
				se2[i] += mo.se(i) * mo.se(i) / (K * K)
			}
		}
		name := map[int]string{0: "bernoulli", 3: "rbm"}[H]
		off := 0
		for _, part := range []struct {
			what string
			n    int
		}{{"decoder", nd}, {"encoder q(z|x,a)", ne}, {"q(a|x)", nq}, {"a-input of q(z|x,a)", na}, {"p(a|x,z)", np}, {"prior", len(want) - nd - ne - nq - na - np}} {
			bad, worst := 0, 0.0
			for i := off; i < off+part.n; i++ {
				se := math.Sqrt(se2[i])
				d := math.Abs(mean[i] - want[i])
				if se > 0 {
					worst = max(worst, d/se)
				}
				// The finite difference's own error: O(h²) truncation and
				// rounding of |F| ε_mach / h, far below the standard errors.
				if d > 4.5*se+1e-6*(1+math.Abs(want[i])) {
					bad++
					if bad <= 3 {
						t.Errorf("%s %s: coordinate %d: mean %.6g, finite difference %.6g (se %.3g)", name, part.what, i-off, mean[i], want[i], se)
					}
				}
			}
			t.Logf("%s %s: %d coordinates, worst |mean − exact|/se = %.2f", name, part.what, part.n, worst)
			off += part.n
		}
	}
}

// newTinyAuxTrainer is newTinyTrainer's model (8-10-4) with 2 auxiliary
// variables and auxiliary nets of 3 hidden units.
func newTinyAuxTrainer(t testing.TB, H int, opt VAEOptions, seed uint64, base []float64) *VAETrainer {
	t.Helper()
	m, err := models.NewVAE(8, 4, []int{10}, H)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddAux(2, 3); err != nil {
		t.Fatal(err)
	}
	return initTrainer(t, m, opt, seed, base)
}

// auxTrainedParams is vaeParams with the auxiliary nets.
func auxTrainedParams(tr *VAETrainer) []float64 {
	out := vaeParams(tr)
	for _, n := range tr.M.Aux.Nets() {
		out = append(out, n.Params()...)
	}
	return out
}

// TestVAEAuxTraining: the auxiliary VAE, in either precision (float32
// the default), raises the exact log p(x) and ELBO of planted data by at
// least a nat in 10 epochs, resumes from a saved checkpoint bit for bit,
// and gives the same numbers with 1 and 3 workers (float32: also 3
// workers under GOMAXPROCS 1).
func TestVAEAuxTraining(t *testing.T) {
	for _, prec := range []kernel.Precision{kernel.Float64, kernel.Float32} {
		data := vaePlanted(300, 1)
		base := baseRateOf(data)
		opt := vaeTestOptions(PriorTrainingChi2, 2)
		opt.Precision = prec
		tr := newTinyAuxTrainer(t, 3, opt, 3, base)
		if tr.Opt.Precision != prec || strings.Contains(tr.EpochSettings(EpochSummary{}), "precision") {
			t.Fatalf("auxiliary model: precision %q, epoch line %q; want %s, no note", tr.Opt.Precision, tr.EpochSettings(EpochSummary{}), prec)
		}
		lp0, _ := meanExact(tr.M, data)
		for range 10 {
			if _, err := tr.TrainEpoch(data); err != nil {
				t.Fatal(err)
			}
		}
		lp1, _ := meanExact(tr.M, data)
		t.Logf("%s: log p(x) %.3f → %.3f", prec, lp0, lp1)
		if lp1-lp0 < 1 {
			t.Errorf("%s: exact log p(x) rose by %.3f nats, want ≥ 1", prec, lp1-lp0)
		}

		// Resume: 3 epochs straight against 2 + save, load, resume + 1.
		data = data[:120]
		opt.BatchSize = 60
		checkResume(t, "auxiliary "+string(prec), newTinyAuxTrainer(t, 3, opt, 8, base), newTinyAuxTrainer(t, 3, opt, 8, base),
			newTinyAuxTrainer(t, 3, opt, 8, nil), data, auxTrainedParams)

		// A plain VAE's checkpoint does not resume an auxiliary experiment.
		p := newTinyTrainer(t, 3, opt, 8, base)
		pc, err := p.Checkpoint("test")
		if err != nil {
			t.Fatal(err)
		}
		if err := newTinyAuxTrainer(t, 3, opt, 8, nil).Resume(pc); err == nil || !strings.Contains(err.Error(), "aux") {
			t.Errorf("%s: a plain VAE's checkpoint resumed an auxiliary experiment (error %v)", prec, err)
		}

		// Workers (and GOMAXPROCS).
		procs := runtime.GOMAXPROCS(0)
		var got [][]float64
		for _, run := range []struct{ workers, procs int }{{1, procs}, {3, procs}, {3, 1}} {
			runtime.GOMAXPROCS(run.procs)
			o := opt
			o.Workers = run.workers
			tr := newTinyAuxTrainer(t, 3, o, 4, nil)
			if _, err := tr.TrainEpoch(data); err != nil {
				t.Fatal(err)
			}
			got = append(got, auxTrainedParams(tr))
			runtime.GOMAXPROCS(procs)
		}
		for i := 1; i < len(got); i++ {
			sameBits(t, fmt.Sprintf("%s: run 0 vs %d", prec, i), got[0], got[i])
		}
	}
}

// TestVAEAuxPrecisionsPaired trains the same tiny auxiliary VAE from the
// same parameters and seed in float64 and in float32 (the same draws, so
// they differ only by rounding, unless a uniform falls between the two
// precisions' σ(κ)) for 5 epochs of 15 steps, and requires the paired
// difference of the exact mean log p(x) to be within what the steps'
// rounding allows: each step's gradient agrees within 256·2⁻²⁴ relative
// (TestVAEEngineMatchesReference), so after n steps the objective
// within n·256·2⁻²⁴·|log p(x)|. For scale it logs the difference between
// float64 runs with two seeds (no shared draws), which is ~10⁵ times that.
func TestVAEAuxPrecisionsPaired(t *testing.T) {
	data := vaePlanted(300, 1)
	base := baseRateOf(data)
	run := func(prec kernel.Precision, seed uint64) float64 {
		opt := vaeTestOptions(PriorTrainingChi2, 2)
		opt.Precision = prec
		tr := newTinyAuxTrainer(t, 3, opt, seed, base)
		for range 5 {
			if _, err := tr.TrainEpoch(data); err != nil {
				t.Fatal(err)
			}
		}
		lp, _ := meanExact(tr.M, data)
		return lp
	}
	a, b, c := run(kernel.Float64, 3), run(kernel.Float32, 3), run(kernel.Float64, 4)
	t.Logf("log p(x): float64 %.6f, float32 %.6f (paired |Δ| %.3g); float64 seed 4 %.6f (|Δ| %.3g)", a, b, math.Abs(a-b), c, math.Abs(a-c))
	tol := 5 * 15 * 256 * math.Ldexp(1, -24) * math.Abs(a)
	if math.Abs(a-b) > tol {
		t.Errorf("float32 vs float64 (same draws): log p(x) %.6f vs %.6f, |Δ| %.3g > %.3g", b, a, math.Abs(a-b), tol)
	}
}
