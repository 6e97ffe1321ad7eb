package sbn

import (
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/mathext"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/kernel"
)

func vbOptions(workers int, prior string) TrainOptions {
	return TrainOptions{Prior: prior, PriorSigma: 1.5, PriorNu: 3, Seed: 5, Workers: workers, Epochs: 10, Precision: kernel.Float64}
}

// vbBrute is the PG-augmented bound L of the trainer's state (q(h) its
// means, q(ω) its block's c, q(θ), q(τ)) on x (at most one block),
// computed independently of the trainer's factorised moments: E_q(h) by
// enumerating every latent state h with its probability Π m^h (1−m)^{1−h},
// E_q(θ)[ψ²] = h̃ᵀ(Σ + μμᵀ)h̃ from the unpacked Σ, q(h)'s entropy from
// the enumerated probabilities, q(θ)'s from a Cholesky factor of Σ.
func vbBrute(t *testing.T, tr *VBTrainer, x data.Examples) float64 {
	t.Helper()
	return vbBruteOnly(t, tr, x, -1)
}

// vbBruteOnly is vbBrute's term of example only (all when only < 0: with
// q(θ)'s and q(τ)'s terms).
func vbBruteOnly(t *testing.T, tr *VBTrainer, x data.Examples, only int) float64 {
	n := tr.net
	L := n.Layers()
	jj := func(v, mean, quad, c float64) float64 {
		om := 0.25
		if c > 0 {
			om = math.Tanh(c/2) / (2 * c)
		}
		return (v-0.5)*mean - math.Ln2 - math.Log(math.Cosh(c/2)) - 0.5*om*(quad-c*c)
	}
	unpack := func(l, j int) *mat.SymDense {
		D := n.Sizes[l] + 1
		P := D * (D + 1) / 2
		s := mat.NewSymDense(D, nil)
		for a := range D {
			for b := a; b < D; b++ {
				s.SetSym(a, b, tr.sig[l][j*P+pgPacked(D, a, b)])
			}
		}
		return s
	}
	total := 0.0
	h := n.States()
	for ex := range x.Len() {
		if only >= 0 && ex != only {
			continue
		}
		for i, v := range x.Row(ex) {
			h[0][i] = float64(v)
		}
		m := tr.m[ex*tr.latent : (ex+1)*tr.latent]
		for s := range 1 << tr.latent {
			q := 1.0
			for l := 1; l <= L; l++ {
				for k := range n.Sizes[l] {
					bit := float64(s >> (tr.off[l] + k) & 1)
					h[l][k] = bit
					p := m[tr.off[l]+k]
					q *= bit*p + (1-bit)*(1-p)
				}
			}
			if q == 0 {
				continue
			}
			f := -math.Log(q)
			for l := 1; l <= L; l++ {
				k := n.Sizes[l]
				ht := mat.NewVecDense(k+1, append(slices.Clone(h[l]), 1))
				for j := range n.Sizes[l-1] {
					mu := mat.NewVecDense(k+1, append(slices.Clone(n.W[l][j*k:(j+1)*k]), n.B[l-1][j]))
					mean := mat.Dot(mu, ht)
					quad := mat.Inner(ht, unpack(l, j), ht) + mean*mean
					f += jj(h[l-1][j], mean, quad, tr.cb[l][ex*n.Sizes[l-1]+j])
				}
			}
			for k, b := range n.B[L] {
				f += jj(h[L][k], b, b*b+tr.topVar[k], tr.topC[k])
			}
			total += q * f
		}
	}
	if only >= 0 {
		return total
	}
	// E log p(θ | τ) + E log p(τ) + H(q(θ)) + H(q(τ))
	prior := func(mu, v, beta float64) float64 {
		e2 := mu*mu + v
		if tr.rate == nil {
			s2 := tr.prior.Sigma * tr.prior.Sigma
			return -0.5*math.Log(2*math.Pi*s2) - e2/(2*s2)
		}
		a, a0, b0 := (tr.prior.Nu+1)/2, tr.prior.Nu/2, tr.prior.Nu*tr.prior.Sigma*tr.prior.Sigma/2
		et, elt := a/beta, mathext.Digamma(a)-math.Log(beta)
		lga, _ := math.Lgamma(a)
		lga0, _ := math.Lgamma(a0)
		logq := a*math.Log(beta) - lga + (a-1)*elt - beta*et // E log q(τ)
		logp := a0*math.Log(b0) - lga0 + (a0-1)*elt - b0*et  // E log p(τ)
		return 0.5*(elt-math.Log(2*math.Pi)-et*e2) + logp - logq
	}
	rate := func(x []float64, i int) float64 {
		if tr.rate == nil {
			return 0
		}
		return x[i]
	}
	var rw, rb [][]float64
	if tr.rate != nil {
		rw, rb = tr.rate.W, tr.rate.B
	} else {
		rw, rb = make([][]float64, L+1), make([][]float64, L+1)
	}
	for l := 1; l <= L; l++ {
		k := n.Sizes[l]
		for j := range n.Sizes[l-1] {
			s := unpack(l, j)
			var ch mat.Cholesky
			if !ch.Factorize(s) {
				t.Fatalf("Σ of row %d of layer %d is not positive definite", j, l)
			}
			total += 0.5 * (float64(k+1)*math.Log(2*math.Pi*math.E) + ch.LogDet())
			for a := range k {
				total += prior(n.W[l][j*k+a], s.At(a, a), rate(rw[l], j*k+a))
			}
			total += prior(n.B[l-1][j], s.At(k, k), rate(rb[l-1], j))
		}
	}
	for k, b := range n.B[L] {
		total += 0.5*math.Log(2*math.Pi*math.E*tr.topVar[k]) + prior(b, tr.topVar[k], rate(rb[L], k))
	}
	return total
}

// TestVBMonotone: on SBNs 6-3 and 5-3-2 and 40 random examples (one
// block), Student-t and Gaussian priors, every block of the coordinate
// ascent — q(ω) (with the top biases'), q(h), the rows' q(w̃), q(τ) — never
// decreases the bound L computed by brute force (vbBrute), over 6 epochs;
// q(h)'s pass equals the brute-force pass of vbRefLatent;
// the trainer's own value of L where q(ω) is set equals the brute force's
// to 1e-10, and the epochs raise L.
func TestVBMonotone(t *testing.T) {
	for _, sizes := range [][]int{{6, 3}, {5, 3, 2}} {
		for _, prior := range []string{"student-t", "gaussian"} {
			x := pgData(40, sizes[0], 9)
			n := randomNet(sizes, false, 0.7, 13)
			tr, err := NewVBTrainer(n, x.N, vbOptions(2, prior))
			if err != nil {
				t.Fatal(err)
			}
			name := n.Label() + " " + prior
			prev, first := math.Inf(-1), 0.0
			step := func(what string) float64 {
				got := vbBrute(t, tr, x)
				if got < prev-1e-10*math.Abs(got) {
					t.Errorf("%s: %s lowers the bound from %.12g to %.12g", name, what, prev, got)
				}
				prev = got
				return got
			}
			for e := range 6 {
				tr.begin()
				own := tr.globalBound() + tr.blockOmega(x, 0, x.N)
				got := step("q(ω)")
				if e == 0 {
					first = got
				}
				if math.Abs(own-got) > 1e-10*math.Abs(got) {
					t.Errorf("%s: epoch %d: the trainer's bound %.12g, brute force %.12g", name, e, own, got)
				}
				want := vbRefLatent(t, tr, x)
				tr.blockLatent(x, 0, x.N)
				for i, m := range tr.m {
					if math.Abs(m-want[i]) > 1e-9 {
						t.Errorf("%s: epoch %d: q(h) mean %d is %.12g, the brute-force update's %.12g", name, e, i, m, want[i])
						break
					}
				}
				step("q(h)")
				tr.blockStats(x, 0, x.N)
				if err := tr.updateRows(); err != nil {
					t.Fatal(err)
				}
				step("q(w̃)")
				tr.updateTau()
				step("q(τ)")
			}
			t.Logf("%s: bound %.6g → %.6g", name, first, prev)
			vbOptimal(t, tr, x, name)
			if !(prev > first+1) {
				t.Errorf("%s: the bound went from %.6g to %.6g in 6 epochs", name, first, prev)
			}
		}
	}
}

// vbOptimal checks that q(ω) and q(h) are optima: after q(ω) is set, the
// bound falls when the c of one layer (or of the top biases) are scaled by
// 0.99 or 1.01; after 300 passes of
// q(h)'s updates at that q(ω), ∂L/∂m of each latent unit of the first 5
// examples (central differences of vbBrute, step 10⁻⁵) is below 10⁻⁶.
func vbOptimal(t *testing.T, tr *VBTrainer, x data.Examples, name string) {
	tr.begin()
	tr.blockOmega(x, 0, x.Len())
	base := vbBrute(t, tr, x)
	cs := slices.Clone(tr.cb)
	for l := range cs {
		cs[l] = slices.Clone(cs[l])
	}
	top := slices.Clone(tr.topC)
	for g := range cs { // each layer's c, then (g = 0) the top biases'
		for _, f := range []float64{0.99, 1.01} {
			scale := func(dst, src []float64, f float64) {
				for i, c := range src {
					dst[i] = f * c
				}
			}
			if g == 0 {
				scale(tr.topC, top, f)
			} else {
				scale(tr.cb[g], cs[g], f)
			}
			if got := vbBrute(t, tr, x); got > base {
				t.Errorf("%s: q(ω) of layer %d (0: top) with c × %g raises the bound from %.12g to %.12g", name, g, f, base, got)
			}
			copy(tr.topC, top)
			copy(tr.cb[g], cs[g])
		}
	}
	for range 300 {
		tr.blockLatent(x, 0, x.Len())
	}
	const d = 1e-5
	for ex := range 5 {
		for k := range tr.latent {
			p := &tr.m[ex*tr.latent+k]
			m := *p
			*p = m + d
			hi := vbBruteOnly(t, tr, x, ex)
			*p = m - d
			lo := vbBruteOnly(t, tr, x, ex)
			*p = m
			if g := (hi - lo) / (2 * d); math.Abs(g) > 1e-6 {
				t.Errorf("%s: example %d, unit %d: ∂L/∂m = %.3g at the fixed point of q(h)'s updates (m = %.6f)", name, ex, k, g, m)
			}
		}
	}
}

// vbRefLatent returns q(h)'s means after one pass of updates computed by
// brute force, leaving the trainer's as they were: L is linear in one
// mean m_k apart from the entropy, which is 0 at m_k ∈ {0, 1}, so the
// exact coordinate update is m_k = σ(L(m_k = 1) − L(m_k = 0)); examples in
// turn, units in the trainer's order.
func vbRefLatent(t *testing.T, tr *VBTrainer, x data.Examples) []float64 {
	old := slices.Clone(tr.m)
	for ex := range x.Len() {
		for k := range tr.latent {
			p := &tr.m[ex*tr.latent+k]
			*p = 1
			hi := vbBruteOnly(t, tr, x, ex)
			*p = 0
			lo := vbBruteOnly(t, tr, x, ex)
			*p = 1 / (1 + math.Exp(lo-hi))
		}
	}
	ref := tr.m
	tr.m = old
	return ref
}

// TestVBPointBound: with q(θ) a point at μ (Σ = 0, the top biases'
// variances 0), the per-example bound is log p(x, h | μ) exactly when q(h)
// is the point h (c = |ψ|: the Jaakkola–Jordan bound is tight, the entropy
// 0), and at most log p(x | μ) (by enumeration) for the q(h) of any number
// of coordinate updates, on an SBN 6-3-2.
func TestVBPointBound(t *testing.T) {
	x := pgData(30, 6, 4)
	n := randomNet([]int{6, 3, 2}, false, 1.1, 17)
	tr, err := NewVBTrainer(n, x.N, vbOptions(3, "gaussian"))
	if err != nil {
		t.Fatal(err)
	}
	for l := 1; l <= 2; l++ {
		clear(tr.sig[l])
	}
	clear(tr.topVar)
	h, sc := n.States(), n.NewScratch()
	tr.begin()
	tr.blockOmega(x, 0, x.N) // the m are the prior draws: binary
	for ex := range x.N {
		for i, v := range x.Row(ex) {
			h[0][i] = float64(v)
		}
		for l := 1; l <= 2; l++ {
			copy(h[l], tr.m[ex*tr.latent+tr.off[l]:][:n.Sizes[l]])
		}
		if want := n.LogJoint(h, 1, sc); math.Abs(tr.ex[ex]-want) > 1e-12*math.Abs(want) {
			t.Errorf("example %d: point bound %.15g, log p(x, h) %.15g", ex, tr.ex[ex], want)
		}
	}
	exact, err := ExactLogProb(n, x, 20, nil)
	if err != nil {
		t.Fatal(err)
	}
	for it := range 8 {
		tr.blockLatent(x, 0, x.N)
		tr.begin()
		tr.blockOmega(x, 0, x.N)
		for ex, want := range exact {
			if tr.ex[ex] > want+1e-12*math.Abs(want) {
				t.Errorf("update %d, example %d: bound %.12g above log p(x) %.12g", it, ex, tr.ex[ex], want)
			}
		}
	}
}

// vbTheta returns the trainer's checkpoint arrays.
func vbState(t *testing.T, tr *VBTrainer) map[string][]float64 {
	c, err := tr.Checkpoint("x")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]float64{}
	for k, a := range c.State {
		out[k] = a.Data
	}
	return out
}

// TestVBResumeAndWorkers: three epochs give the same bits with one worker
// and with three, and two epochs, a checkpoint, a new trainer resumed from
// it and a third epoch give them too (every array of the state and the
// signal); a pg-gibbs state is refused.
func TestVBResumeAndWorkers(t *testing.T) {
	sizes := []int{12, 5, 3}
	x := pgData(300, 12, 2) // three blocks
	var signal []float64
	train := func(workers, epochs int, from *VBTrainer) *VBTrainer {
		n := randomNet(sizes, false, 0.3, 7)
		tr, err := NewVBTrainer(n, x.N, vbOptions(workers, "student-t"))
		if err != nil {
			t.Fatal(err)
		}
		if from != nil {
			c, _ := from.Checkpoint("x")
			if err := tr.Resume(c); err != nil {
				t.Fatal(err)
			}
		}
		for tr.Completed() < epochs {
			st, err := tr.TrainEpoch(x)
			if err != nil {
				t.Fatal(err)
			}
			if st.Epoch == 3 {
				signal = append(signal, st.ReconError)
			}
		}
		return tr
	}
	s1 := vbState(t, train(1, 3, nil))
	s3 := vbState(t, train(3, 3, nil))
	sr := vbState(t, train(2, 3, train(1, 2, nil)))
	for k, v := range s1 {
		if !slices.Equal(v, s3[k]) {
			t.Errorf("%s: differs with 3 workers", k)
		}
		if !slices.Equal(v, sr[k]) {
			t.Errorf("%s: differs resumed", k)
		}
	}
	if len(signal) != 3 || signal[0] != signal[1] || signal[0] != signal[2] {
		t.Errorf("signals of epoch 3: %v", signal)
	}
	if slices.Equal(s1["theta"], vbState(t, train(1, 2, nil))["theta"]) {
		t.Error("an epoch left μ unchanged")
	}
	pg, _ := NewPGTrainer(randomNet(sizes, false, 0.3, 7), x.N, pgOptions(1))
	c, _ := pg.Checkpoint("x")
	tr, _ := NewVBTrainer(randomNet(sizes, false, 0.3, 7), x.N, vbOptions(1, "student-t"))
	if err := tr.Resume(c); err == nil || !strings.Contains(err.Error(), "pg-gibbs") {
		t.Errorf("resuming a pg-gibbs state: %v", err)
	}
}

// TestVBRefusals: an arsbn, average > 1, a flat prior and float32 are
// refused with their reasons.
func TestVBRefusals(t *testing.T) {
	o := vbOptions(1, "student-t")
	if _, err := NewVBTrainer(randomNet([]int{4, 2}, true, 0.3, 1), 10, o); err == nil || !strings.Contains(err.Error(), "plain SBNs only") {
		t.Errorf("arsbn: %v", err)
	}
	for _, c := range []struct {
		set  func(*TrainOptions)
		want string
	}{
		{func(o *TrainOptions) { o.Average = 2 }, "average 2"},
		{func(o *TrainOptions) { o.Prior = "none" }, "proper prior"},
		{func(o *TrainOptions) { o.Precision = kernel.Float32 }, "float64 only"},
	} {
		o := vbOptions(1, "student-t")
		c.set(&o)
		if _, err := NewVBTrainer(randomNet([]int{4, 2}, false, 0.3, 1), 10, o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want %q: %v", c.want, err)
		}
	}
}

// TestVBMeanFieldBound: MeanFieldBound on an SBN 6-3-2 equals the
// trainer's own path with Σ = 0 (the products with Σ done, on zeros) to
// 1e-12, is at most the exact log p(x) of every example, does not fall
// with more passes, and gives the same bits with 1 and 3 workers.
func TestVBMeanFieldBound(t *testing.T) {
	x := pgData(150, 6, 8) // two blocks
	n := randomNet([]int{6, 3, 2}, false, 1.3, 21)
	exact, err := ExactLogProb(n, x, 20, nil)
	if err != nil {
		t.Fatal(err)
	}
	few, err := MeanFieldBound(n, x, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := MeanFieldBound(n, x, 30, 1)
	if err != nil {
		t.Fatal(err)
	}
	got3, _ := MeanFieldBound(n, x, 30, 3)
	if !slices.Equal(got, got3) {
		t.Error("1 and 3 workers differ")
	}
	tr, _ := NewVBTrainer(n, x.N, vbOptions(2, "gaussian"))
	for l := 1; l <= 2; l++ {
		clear(tr.sig[l])
	}
	clear(tr.topVar)
	for i := range tr.m {
		tr.m[i] = 0.5
	}
	tr.begin()
	gap := 0.0
	for lo := 0; lo < x.N; lo += vbBlock {
		K := min(vbBlock, x.N-lo)
		for range 30 {
			tr.blockOmega(x, lo, K)
			tr.blockLatent(x, lo, K)
		}
		tr.blockOmega(x, lo, K)
		for i := range K {
			ex := lo + i
			if math.Abs(tr.ex[i]-got[ex]) > 1e-12*math.Abs(got[ex]) {
				t.Errorf("example %d: bound %.15g, the trainer's path %.15g", ex, got[ex], tr.ex[i])
			}
			if got[ex] > exact[ex]+1e-12*math.Abs(exact[ex]) {
				t.Errorf("example %d: bound %.12g above log p(x) %.12g", ex, got[ex], exact[ex])
			}
			if got[ex] < few[ex]-1e-12*math.Abs(few[ex]) {
				t.Errorf("example %d: 30 passes %.12g below 3 passes %.12g", ex, got[ex], few[ex])
			}
			gap += exact[ex] - got[ex]
		}
	}
	t.Logf("mean gap to log p(x): %.4f nats", gap/float64(x.N))
}

// TestVBMeanFieldELBO: on an SBN 6-3-2, MeanFieldELBO's Monte Carlo mean
// equals the ELBO of the fitted q(h) computed by enumerating h (per example
// within 5 standard errors, and over all examples within 4, the errors from
// the enumerated variance of log p(x, h) − log q(h)); the enumerated ELBO
// lies between the Jaakkola–Jordan bound of the same q and log p(x); 1 and
// 3 workers give the same bits.
func TestVBMeanFieldELBO(t *testing.T) {
	const S, passes = 400, 30
	x := pgData(150, 6, 8)
	n := randomNet([]int{6, 3, 2}, false, 1.3, 21)
	exact, err := ExactLogProb(n, x, 20, nil)
	if err != nil {
		t.Fatal(err)
	}
	jj, tr, err := meanField(n, x, passes, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := MeanFieldELBO(n, x, passes, S, 9, 1)
	if err != nil {
		t.Fatal(err)
	}
	got3, _ := MeanFieldELBO(n, x, passes, S, 9, 3)
	if !slices.Equal(got, got3) {
		t.Error("1 and 3 workers differ")
	}
	sc := n.NewScratch()
	h := n.States()
	sumDiff, sumVar := 0.0, 0.0
	for ex := range x.N {
		for i, b := range x.Row(ex) {
			h[0][i] = float64(b)
		}
		m := tr.m[ex*tr.latent : (ex+1)*tr.latent]
		elbo, sq := 0.0, 0.0
		for code := range 1 << tr.latent {
			lq, bit := 0.0, 0
			for l := 1; l <= n.Layers(); l++ {
				for j := range h[l] {
					mj := m[tr.off[l]+j]
					if code>>bit&1 == 1 {
						h[l][j], lq = 1, lq+math.Log(mj)
					} else {
						h[l][j], lq = 0, lq+math.Log1p(-mj)
					}
					bit++
				}
			}
			q := math.Exp(lq)
			f := n.LogJoint(h, 1, sc) - lq
			elbo += q * f
			sq += q * f * f
		}
		v := (sq - elbo*elbo) / S
		if d := got[ex] - elbo; d*d > 25*v+1e-20 {
			t.Errorf("example %d: Monte Carlo ELBO %.6f, enumerated %.6f (SE %.4f)", ex, got[ex], elbo, math.Sqrt(v))
		}
		if jj[ex] > elbo+1e-9 || elbo > exact[ex]+1e-9 {
			t.Errorf("example %d: want JJ %.6f ≤ ELBO %.6f ≤ log p(x) %.6f", ex, jj[ex], elbo, exact[ex])
		}
		sumDiff += got[ex] - elbo
		sumVar += v
	}
	if z := sumDiff / math.Sqrt(sumVar); math.Abs(z) > 4 {
		t.Errorf("Monte Carlo ELBO off the enumerated one over the examples by %.2f standard errors", z)
	}
}
