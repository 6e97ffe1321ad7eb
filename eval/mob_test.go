package eval

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/logz-ml/logz/internal/brute"
	"github.com/logz-ml/logz/internal/sampletest"
	"github.com/logz-ml/logz/models/modeltest"
)

// TestMoBLogProbs: the per-example exact log p(x) of a random mixture is
// the log of its definition (modeltest.MoB) for every example, in several
// chunks, with the same bits on 1 and 4 workers; examples of the wrong
// size are an error. Mutation checked: an off-by-one chunk start (n from
// c·chunk + 1) leaves examples at 0 and fails.
func TestMoBLogProbs(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 3))
	m, err := modeltest.RandomMoB(5, 9, 2, rng)
	if err != nil {
		t.Fatal(err)
	}
	x := make(sampletest.Rows, 3*mobChunk+5)
	for n := range x {
		x[n] = brute.Bits(rng.IntN(1<<9), 9)
	}
	one, err := MoBLogProbs(m, x, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	four, err := MoBLogProbs(m, x, 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(one, four) {
		t.Error("the log-probabilities depend on the number of workers")
	}
	for n, lp := range one {
		if want := math.Log(modeltest.MoB(m, x[n])); math.Abs(lp-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Fatalf("example %d: log p %.15g, by definition %.15g", n, lp, want)
		}
	}
	if _, err := MoBLogProbs(m, sampletest.Rows{{1, 0}}, 1, nil); err == nil {
		t.Error("2-unit examples of a 9-unit mixture gave no error")
	}
}

// TestSampleMoBMatchesTheModel: ancestral samples of a tiny mixture have
// the frequencies of its p(x) over all 2^6 states, its means the model's
// marginals, and the samples depend on neither the workers nor how many
// are drawn (sampletest.CheckSampler). Mutation checked: picking the
// component uniformly instead of by π fails the frequencies.
func TestSampleMoBMatchesTheModel(t *testing.T) {
	m, err := modeltest.RandomMoB(3, 6, 2, rand.New(rand.NewPCG(4, 4)))
	if err != nil {
		t.Fatal(err)
	}
	p := make([]float64, 1<<6)
	for c := range p {
		p[c] = modeltest.MoB(m, brute.Bits(c, 6))
	}
	sampletest.CheckSampler(t, func(n int, _ string, mean bool, _ int) ([]float64, error) {
		return SampleMoB(m, n, 17, mean)
	}, 6, p, nil, 4000)
	if _, err := SampleMoB(m, 0, 1, false); err == nil {
		t.Error("0 samples gave no error")
	}
}
