package models

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/npyx"
)

func randomAuxVAE(t *testing.T, priorHidden int) *VAE {
	t.Helper()
	m := randomVAE(t, priorHidden)
	if err := m.AddAux(2, 3); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range m.Aux.Nets() {
		n.Init(rng)
	}
	return m
}

// TestVAEAuxCheckpointRoundTrip: an auxiliary model's nets survive a save
// and load bit for bit; a plain model writes no auxiliary arrays (its
// checkpoint is as before) and loads without them.
func TestVAEAuxCheckpointRoundTrip(t *testing.T) {
	for _, ph := range []int{0, 3} {
		m := randomAuxVAE(t, ph)
		g := vaeRoundTrip(t, m)
		if g.Label() != m.Label() || !strings.HasSuffix(g.Label(), " aux(2,3)") || g.Aux == nil {
			t.Fatalf("loaded %s, saved %s", g.Label(), m.Label())
		}
		for i, n := range m.Aux.Nets() {
			if !slices.Equal(n.Params(), g.Aux.Nets()[i].Params()) {
				t.Fatalf("auxiliary net %d differs after a round trip", i)
			}
		}
		plain := randomVAE(t, ph)
		for _, a := range VAEType.Arrays(plain) {
			if strings.HasPrefix(a.Name, "aux_") {
				t.Fatalf("a plain VAE writes %s", a.Name)
			}
		}
		if vaeRoundTrip(t, plain).Aux != nil {
			t.Fatal("plain VAE loaded with auxiliary nets")
		}
	}
}

// vaeArrayMap is m's checkpoint arrays by name.
func vaeArrayMap(m *VAE) map[string]*npyx.Array {
	out := map[string]*npyx.Array{}
	for _, a := range VAEType.Arrays(m) {
		out[a.Name] = &npyx.Array{Shape: a.Shape, Data: append([]float64(nil), a.Data...)}
	}
	return out
}

// TestVAEAuxBadArrays: a missing auxiliary net, one of the wrong size and
// a non-finite value are errors naming the array; bad AddAux settings too.
func TestVAEAuxBadArrays(t *testing.T) {
	m := randomAuxVAE(t, 0)
	for _, c := range []struct {
		name, want string
		edit       func(map[string]*npyx.Array)
	}{
		{"missing", "aux_p_W1", func(a map[string]*npyx.Array) { delete(a, "aux_p_W1"); delete(a, "aux_p_b1") }},
		{"size", "aux_enc_", func(a map[string]*npyx.Array) {
			a["aux_enc_W2"] = &npyx.Array{Shape: []int{3, 4}, Data: make([]float64, 12)}
			a["aux_enc_b2"] = &npyx.Array{Shape: []int{4}, Data: make([]float64, 4)}
		}},
		{"odd", "aux_", func(a map[string]*npyx.Array) {
			a["aux_q_W2"] = &npyx.Array{Shape: []int{3, 3}, Data: make([]float64, 9)}
			a["aux_q_b2"] = &npyx.Array{Shape: []int{3}, Data: make([]float64, 3)}
		}},
		{"nan", "aux_q_W1", func(a map[string]*npyx.Array) { a["aux_q_W1"].Data[0] = math.NaN() }},
	} {
		a := vaeArrayMap(m)
		c.edit(a)
		if _, err := vaeFromArrays(a); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want one naming %s", c.name, err, c.want)
		}
	}
	p := randomVAE(t, 0)
	for _, s := range [][2]int{{0, 3}, {-1, 3}, {2, 0}, {2, -5}} {
		if err := p.AddAux(s[0], s[1]); err == nil || p.Aux != nil {
			t.Errorf("AddAux(%d, %d): no error", s[0], s[1])
		}
	}
	if err := m.AddAux(2, 3); err == nil {
		t.Error("AddAux on an auxiliary model: no error")
	}
}

// TestVAEAuxEncoder: with the a-input net at zero, q(z|x,a) is the plain
// encoder's q(z|x) bit for bit (FirstBinary and ForwardPre sum as
// ForwardBinary does), and the Gaussian helpers agree with each other.
func TestVAEAuxEncoder(t *testing.T) {
	m := randomAuxVAE(t, 3)
	clear(m.Aux.Enc.Params())
	s := m.NewScratch()
	x := []uint8{1, 0, 1, 1, 0, 1}
	want := append([]float64(nil), m.EncoderLogits(s, x)...)
	if got := m.AuxEncoderLogits(s, m.AuxEncoderPre(s, x), []float64{0.3, -1.2}); !slices.Equal(got, want) {
		t.Fatalf("q(z|x,a) logits %v with a zero a-input, q(z|x) %v", got, want)
	}
	mu, ls := m.AuxQ(s, x)
	a, eps := make([]float64, 2), make([]float64, 2)
	lq := SampleAux(a, eps, mu, ls, rand.New(rand.NewPCG(1, 1)))
	if g := GaussLogProb(a, mu, ls); math.Abs(g-lq) > 1e-12 {
		t.Fatalf("log q(a|x) %g by SampleAux, %g by GaussLogProb", lq, g)
	}
}
