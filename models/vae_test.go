package models

import (
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"
)

func randomVAE(t *testing.T, priorHidden int) *VAE {
	t.Helper()
	m, err := NewVAE(6, 4, []int{5}, priorHidden)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	m.Dec.Init(rng)
	m.Enc.Init(rng)
	if m.Prior != nil {
		for i := range m.Prior.W {
			m.Prior.W[i] = rng.NormFloat64()
		}
		for i := range m.Prior.VBias {
			m.Prior.VBias[i] = rng.NormFloat64()
		}
	} else {
		for i := range m.PriorLogits {
			m.PriorLogits[i] = rng.NormFloat64()
		}
	}
	return m
}

func TestVAELogProbs(t *testing.T) {
	m := randomVAE(t, 3)
	s := m.NewScratch()
	x := []uint8{1, 0, 1, 1, 0, 0}
	z := []uint8{0, 1, 1, 0}
	l := m.DecoderLogits(s, z)
	want := 0.0
	for i, li := range l {
		p := 1 / (1 + math.Exp(-li))
		if x[i] == 1 {
			want += math.Log(p)
		} else {
			want += math.Log(1 - p)
		}
	}
	if got := m.LogLikelihood(s, x, z); math.Abs(got-want) > 1e-12 {
		t.Fatalf("log p(x|z) %g, direct %g", got, want)
	}
	zf := []float64{0, 1, 1, 0}
	if got, want := m.LogPrior(s, z), -m.Prior.FreeEnergy(zf, make([]float64, m.Prior.NHid)); math.Abs(got-want) > 1e-12 {
		t.Fatalf("log p̃(z) %g, −F(z) %g", got, want)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	zz := make([]uint8, 4)
	a := m.EncoderLogits(s, x)
	if lq := SampleBernoulliLogits(zz, a, rng); math.Abs(lq-BernoulliLogProb(zz, a)) > 1e-12 {
		t.Fatal("sampled log q differs from BernoulliLogProb")
	}
}

func TestVAECheckpointRoundTrip(t *testing.T) {
	for _, ph := range []int{0, 3} {
		m := randomVAE(t, ph)
		g := vaeRoundTrip(t, m)
		if g.Label() != m.Label() || g.PriorKind() != m.PriorKind() {
			t.Fatalf("loaded %s (%s), saved %s (%s)", g.Label(), g.PriorKind(), m.Label(), m.PriorKind())
		}
		for i, v := range m.Dec.Params() {
			if g.Dec.Params()[i] != v {
				t.Fatal("decoder differs after a round trip")
			}
		}
		for i, v := range m.Enc.Params() {
			if g.Enc.Params()[i] != v {
				t.Fatal("encoder differs after a round trip")
			}
		}
	}
}

// vaeRoundTrip saves m and loads it back.
func vaeRoundTrip(t *testing.T, m *VAE) *VAE {
	t.Helper()
	p := filepath.Join(t.TempDir(), "vae.npz")
	if err := Save(p, &Checkpoint{Model: m}, known); err != nil {
		t.Fatal(err)
	}
	c, err := Load(p, known)
	if err != nil {
		t.Fatal(err)
	}
	return c.Model.(*VAE)
}
