package vae

import (
	"math"
	"slices"
	"testing"

	"github.com/logz-ml/logz/family/familytest"
	"github.com/logz-ml/logz/family/kit"
	"github.com/logz-ml/logz/internal/brute"
	"github.com/logz-ml/logz/models"
)

// priorProbs is p(z) of every z by enumerating z and h.
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

// checkFreq checks that the frequencies of the codes of n draws match p
// (familytest.CheckFrequencies).
func checkFreq(t *testing.T, what string, draws []uint8, D int, p []float64) {
	t.Helper()
	x := make([]float64, len(draws))
	for i, b := range draws {
		x[i] = float64(b)
	}
	familytest.CheckFrequencies(t, what, x, D, p)
}

// TestSamplesMatchTheModel: latents drawn exactly (h from its marginal)
// and by Gibbs chains from a χ² proposal, and data x ~ p(x|z), have the
// frequencies of p(z) and p(x) by enumeration; the same seed gives the
// same samples. Mutation checked: drawing h uniformly instead of from
// its marginal (u := rng.Float64() * cdf[len(cdf)-1] → a uniform code)
// fails the exact case.
func TestSamplesMatchTheModel(t *testing.T) {
	m := tinyVAE(t, 3, 21, 1.5)
	pz := priorProbs(m)
	const n = 20000
	z, how, err := SampleLatents(m, n, 3, ExactPriorHidden)
	if err != nil {
		t.Fatal(err)
	}
	checkFreq(t, how, z, 4, pz)
	zg, how, err := SampleLatents(m, 4000, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	checkFreq(t, how, zg, 4, pz)
	d, err := Plugin{}.Sample(m, kit.SampleOptions{N: n, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	x := d.X
	px := make([]float64, 1<<6)
	for c := range px {
		px[c] = math.Exp(bruteLogP(m, brute.Bits(c, 6)))
	}
	familytest.CheckFrequencies(t, "x", x, 6, px)
	dm, err := Plugin{}.Sample(m, kit.SampleOptions{N: 4000, Seed: 4, Mean: true})
	if err != nil {
		t.Fatal(err)
	}
	familytest.CheckMeans(t, "p(x=1|z)", dm.X, 6, px)
	if d.Method != kit.MethodAncestral || d.Values != kit.ValuesStates || dm.Values != kit.ValuesMeans || d.N != n || d.D != 6 {
		t.Errorf("drawn %+v / %+v", d, dm)
	}
	if _, err := (Plugin{}).Sample(m, kit.SampleOptions{N: 3, Init: "random"}); err == nil {
		t.Error("an ancestral sampler accepted a start")
	}
	again, _ := Plugin{}.Sample(m, kit.SampleOptions{N: 50, Seed: 4})
	if !slices.Equal(again.X, x[:50*6]) {
		t.Error("the first 50 samples depend on how many are drawn")
	}
	b := tinyVAE(t, 0, 2, 1.5)
	zb, _, err := SampleLatents(b, n, 5, ExactPriorHidden)
	if err != nil {
		t.Fatal(err)
	}
	checkFreq(t, "bernoulli prior", zb, 4, priorProbs(b))
}

// TestFilters: the decoder's output weights, transposed to visible×hidden.
// Mutation checked: returning dec_W without the transpose fails.
func TestFilters(t *testing.T) {
	m := tinyVAE(t, 3, 21, 1.5)
	f, ok := Plugin{}.Filters(m)
	L := len(m.DecSizes) - 1
	in, X := m.DecSizes[L-1], m.DecSizes[L]
	if !ok || f.Visible != X || f.Hidden != in {
		t.Fatalf("filters %+v", f)
	}
	w := m.Dec.W[L-1]
	for j := range in {
		for i, v := range f.Column(j) {
			if v != w[j*X+i] {
				t.Fatalf("filter %d unit %d is %v, want dec weight %v", j, i, v, w[j*X+i])
			}
		}
	}
}
