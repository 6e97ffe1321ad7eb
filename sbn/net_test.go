package sbn

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/npyx"
	"github.com/logz-ml/logz/models"
	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"
)

// randomNet returns a net with random parameters of scale s (and a random
// recognition network).
func randomNet(sizes []int, ar bool, s float64, seed uint64) *Net {
	rng := rand.New(rand.NewPCG(seed, 1))
	n := New(sizes, ar)
	fill := func(x []float64) {
		for i := range x {
			x[i] = s * rng.NormFloat64()
		}
	}
	for l := range n.Sizes {
		fill(n.B[l])
		if l > 0 {
			fill(n.W[l])
		}
		if ar {
			k := sizes[l]
			for i := range k {
				for j := range i {
					n.S[l][i*k+j] = s * rng.NormFloat64()
				}
			}
		}
	}
	n.Rec = NewRecognition(sizes, ar)
	for l := 1; l < len(sizes); l++ {
		fill(n.Rec.R[l])
		fill(n.Rec.C[l])
		if ar {
			k := sizes[l]
			for i := range k {
				for j := range i {
					n.Rec.T[l][i*k+j] = s * rng.NormFloat64()
				}
			}
		}
	}
	return n
}

// allStates calls f with every joint state of the net's layers.
func allStates(n *Net, f func(h [][]float64)) {
	h := n.States()
	total := 0
	for _, s := range n.Sizes {
		total += s
	}
	for code := 0; code < 1<<total; code++ {
		b := 0
		for l := range h {
			for i := range h[l] {
				h[l][i] = float64(code >> b & 1)
				b++
			}
		}
		f(h)
	}
}

var tiny = []struct {
	name  string
	sizes []int
	ar    bool
}{
	{"sbn 3-2", []int{3, 2}, false},
	{"sbn 3-2-2", []int{3, 2, 2}, false},
	{"arsbn 3-2", []int{3, 2}, true},
	{"arsbn 3-2-2", []int{3, 2, 2}, true},
}

// TestJointNormalised: exp(LogJoint) sums to 1 over every (x, h), and
// exp(LogQ) to 1 over h for each x.
func TestJointNormalised(t *testing.T) {
	for _, c := range tiny {
		n := randomNet(c.sizes, c.ar, 1.5, 1)
		sc := n.NewScratch()
		var lps []float64
		allStates(n, func(h [][]float64) { lps = append(lps, n.LogJoint(h, 1, sc)) })
		if z := nmath.LogSumExp(lps); math.Abs(z) > 1e-12 {
			t.Errorf("%s: log Σ p(x, h) = %g, want 0", c.name, z)
		}
		// Q: for x fixed at the first visible state, sum over the latents.
		byX := map[[3]float64][]float64{}
		allStates(n, func(h [][]float64) {
			k := [3]float64{h[0][0], h[0][1], h[0][2]}
			byX[k] = append(byX[k], n.LogQ(h, sc))
		})
		for k, lq := range byX {
			if z := nmath.LogSumExp(lq); math.Abs(z) > 1e-12 {
				t.Errorf("%s: log Σ_h Q(h | %v) = %g, want 0", c.name, k, z)
			}
		}
	}
}

// TestSamplingDensity: the log-probability accumulated while sampling is
// the density of the sample (docs/methods.md#autoregressive-order: a public autoregressive layer
// sampled in one order and scored in the other), for p and for Q; and the
// sampled frequencies match p within their binomial error.
func TestSamplingDensity(t *testing.T) {
	for _, c := range tiny {
		n := randomNet(c.sizes, c.ar, 1.5, 2)
		sc := n.NewScratch()
		rng := rand.New(rand.NewPCG(3, 3))
		h := n.States()
		counts := map[string]int{}
		const draws = 200000
		for range draws {
			lp := n.Sample(h, rng, sc)
			if want := n.LogJoint(h, 1, sc); math.Abs(lp-want) > 1e-12 {
				t.Fatalf("%s: log p accumulated while sampling %g, LogJoint %g", c.name, lp, want)
			}
			lq := n.SampleQ(h, rng, sc)
			if want := n.LogQ(h, sc); math.Abs(lq-want) > 1e-12 {
				t.Fatalf("%s: log Q accumulated while sampling %g, LogQ %g", c.name, lq, want)
			}
			// SampleQ replaced the latents: count the joint of a fresh p draw.
			n.Sample(h, rng, sc)
			counts[key(h)]++
		}
		allStates(n, func(h [][]float64) {
			p := math.Exp(n.LogJoint(h, 1, sc))
			got := float64(counts[key(h)]) / draws
			if se := math.Sqrt(p * (1 - p) / draws); math.Abs(got-p) > 5*se+1e-9 {
				t.Errorf("%s: state %s drawn with frequency %.5f, p = %.5f (5σ = %.5f)", c.name, key(h), got, p, 5*se)
			}
		})
	}
}

func key(h [][]float64) string {
	b := []byte{}
	for _, l := range h {
		for _, x := range l {
			b = append(b, '0'+byte(x))
		}
		b = append(b, '|')
	}
	return string(b)
}

// TestCodecRoundTrip: a net saved by logz and one written without meta (as
// NumPy would) load back equal, and as the right type among every codec.
func TestCodecRoundTrip(t *testing.T) {
	known := models.Codecs{models.RBMType, models.DBNType, models.DBMType, models.IsingType, models.VAEType, SBNType, ARSBNType}
	for _, c := range tiny {
		n := randomNet(c.sizes, c.ar, 0.5, 4)
		dir := t.TempDir()
		p := filepath.Join(dir, "m.npz")
		if err := models.Save(p, &models.Checkpoint{Model: n}, known); err != nil {
			t.Fatal(err)
		}
		q := filepath.Join(dir, "numpy.npz")
		f, _ := os.Create(q)
		w := npz.NewWriter(f)
		for _, a := range arrays(n) {
			var v any = a.Data
			if len(a.Shape) == 2 {
				v = mat.NewDense(a.Shape[0], a.Shape[1], a.Data)
			}
			if err := w.Write(a.Name, v); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		f.Close()
		for _, path := range []string{p, q} {
			ck, err := models.Load(path, known)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			m := ck.Model.(*Net)
			if m.TypeName() != n.TypeName() || m.Label() != n.Label() || (m.Rec == nil) {
				t.Fatalf("%s: loaded %s (rec %v)", c.name, m.Label(), m.Rec != nil)
			}
			sc := n.NewScratch()
			allStates(n, func(h [][]float64) {
				if a, b := n.LogJoint(h, 1, sc), m.LogJoint(h, 1, sc); a != b {
					t.Fatalf("%s: log p differs after loading %s", c.name, path)
				}
				if a, b := n.LogQ(h, sc), m.LogQ(h, sc); a != b {
					t.Fatalf("%s: log Q differs after loading %s", c.name, path)
				}
			})
		}
	}
}

// TestBadNets: shapes, missing arrays and a non-triangular S are refused
// with the array named.
func TestBadNets(t *testing.T) {
	n := randomNet([]int{3, 2}, true, 0.5, 5)
	n.S[0][0*3+1] = 0.5
	if err := n.Validate(); err == nil || err.Error() != "arsbn: gen_S0[0,1] is 0.5; it must be strictly lower triangular (unit i depends only on units j < i)" {
		t.Errorf("upper triangle: %v", err)
	}
	m := randomNet([]int{3, 2}, false, 0.5, 5)
	m.W[1][4] = math.NaN()
	if err := m.Validate(); err == nil || err.Error() != "gen_W1[2,0] is NaN (not finite); parameters must be finite" {
		t.Errorf("NaN: %v", err)
	}
}

// TestCodecLayerNames: an array naming a layer beyond models.MaxLayers, or
// a layer number with a leading zero, is refused by name before anything
// is allocated for the layers (gen_W100000000000 once asked for an 800 GB
// slice, a 20-digit index overflowed into a panic, gen_W01 was read as
// gen_W1).
func TestCodecLayerNames(t *testing.T) {
	n := randomNet([]int{3, 2}, false, 0.5, 5)
	for _, c := range []struct{ name, want string }{
		{"gen_W100000000000", "sbn: array gen_W100000000000 names layer 100000000000; a model has at most 100 layers (models.MaxLayers)"},
		{"gen_b99999999999999999999", "sbn: array gen_b99999999999999999999 names layer 99999999999999999999; a model has at most 100 layers (models.MaxLayers)"},
		{"rec_W01", "sbn: array rec_W01: the layer number 01 has a leading zero"},
		{"gen_W101", "sbn: array gen_W101 names layer 101; a model has at most 100 layers (models.MaxLayers)"},
		// Layer 100 is allowed: the file then lacks layers 2 … 99.
		{"gen_W100", "sbn with 100 latent layers (gen_W1 … gen_W100): missing array gen_W2"},
	} {
		a := map[string]*npyx.Array{}
		for _, x := range arrays(n) {
			a[x.Name] = &npyx.Array{Shape: x.Shape, Data: x.Data}
		}
		a[c.name] = &npyx.Array{Shape: []int{2, 3}, Data: make([]float64, 6)}
		if _, err := SBNType.FromArrays(a); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s", c.name, err, c.want)
		}
	}
}
