package vae

import (
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/internal/sampletest"
)

// TestSampleDrawn: the Drawn of the ancestral sampler (states and means)
// says what was drawn, and its X are eval.SampleVAE's keyed by o.Seed
// with the family's latent settings; a start is refused. The samples'
// distribution is eval's TestSampleVAEMatchesTheModel. Mutation checked:
// dropping o.Mean (always states) fails.
func TestSampleDrawn(t *testing.T) {
	m := tinyVAE(t, 3, 21, 1.5)
	draw := func(_ string, mean bool) ([]float64, error) {
		d, err := Plugin{}.Sample(m, sampling.SampleOptions{N: 40, Seed: 4, Mean: mean})
		if err != nil {
			return nil, err
		}
		if d.N != 40 || d.D != 6 || d.Method != sampling.MethodAncestral || d.Values != sampling.Values(mean) ||
			!strings.Contains(d.What, "40 ancestral samples: z ~ p(z) exact (h from its marginal over 2^3 states") {
			t.Errorf("mean %v: drawn %+v", mean, d)
		}
		return d.X, nil
	}
	want := func(_ string, mean bool) ([]float64, error) {
		x, _, err := eval.SampleVAE(m, 40, 4, mean, latents())
		return x, err
	}
	sampletest.CheckSameDraws(t, nil, draw, want)
	if _, err := (Plugin{}).Sample(m, sampling.SampleOptions{N: 3, Init: "random"}); err == nil {
		t.Error("an ancestral sampler accepted a start")
	}
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
