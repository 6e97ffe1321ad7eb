package eval

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/brute"
	"github.com/logz-ml/logz/internal/sampletest"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// priorProbs is p(z) of every z by enumerating z (and the prior's h inside
// log p̃(z)).
func priorProbs(m *models.VAE) []float64 {
	s := m.NewScratch()
	Z := m.NumLatent()
	p := make([]float64, 1<<Z)
	tot := 0.0
	for c := range p {
		p[c] = math.Exp(m.LogPrior(s, brute.Bits(c, Z)))
		tot += p[c]
	}
	for c := range p {
		p[c] /= tot
	}
	return p
}

// testLatents are VAELatents for the tests: exact up to exactHidden hidden
// units, else 1000 sweeps from a small fitted mixture.
func testLatents(exactHidden int) VAELatents {
	return VAELatents{ExactHidden: exactHidden, Sweeps: 1000, Q: ProposalFit{Fit: chi2.FitOptions{Samples: 100, LearningRate: 0.05, Decay: 0.9}, Steps: 50,
		New: func(d int, rng *rand.Rand) (chi2.Proposal, error) { return chi2.NewMixture(d, 5, nil, 0.5, rng) }}}
}

// TestSampleVAEMatchesTheModel: latents drawn exactly (h from its
// marginal), by Gibbs chains from a fitted χ² proposal and from a
// Bernoulli prior, and data x ~ p(x|z) and means p(x=1|z), have the
// frequencies and marginals of p(z) and p(x) by enumeration; the first
// samples do not depend on how many are drawn. Mutation checked: drawing h
// uniformly instead of from its marginal (u := rng.Float64() *
// cdf[len(cdf)-1] → a uniform code) fails the exact case.
func TestSampleVAEMatchesTheModel(t *testing.T) {
	m := tinyVAE(t, 3, 21, 1.5)
	pz := priorProbs(m)
	const n = 20000
	for _, c := range []struct {
		m           *models.VAE
		n           int
		exactHidden int
	}{{m, n, 20}, {m, 4000, 0}, {tinyVAE(t, 0, 2, 1.5), n, 20}} {
		z, how, err := SampleVAELatents(c.m, c.n, 3, testLatents(c.exactHidden))
		if err != nil {
			t.Fatal(err)
		}
		want := pz
		if c.m != m {
			want = priorProbs(c.m)
		}
		sampletest.CheckFrequencies(t, how, toF64(z), 4, want)
	}
	px := make([]float64, 1<<6)
	for c := range px {
		lu, lz := modeltest.VAE(m, brute.Bits(c, 6))
		px[c] = math.Exp(lu - lz)
	}
	x, _, err := SampleVAE(m, n, 4, false, testLatents(20))
	if err != nil {
		t.Fatal(err)
	}
	sampletest.CheckFrequencies(t, "x", x, 6, px)
	means, _, err := SampleVAE(m, 4000, 4, true, testLatents(20))
	if err != nil {
		t.Fatal(err)
	}
	sampletest.CheckMeans(t, "p(x=1|z)", means, 6, px)
	again, _, err := SampleVAE(m, 50, 4, false, testLatents(20))
	if err != nil || !slices.Equal(again, x[:50*6]) {
		t.Errorf("the first 50 samples depend on how many are drawn (%v)", err)
	}
	if _, _, err := SampleVAELatents(m, 0, 3, testLatents(20)); err == nil {
		t.Error("zero samples accepted")
	}
}
