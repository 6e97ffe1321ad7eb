package data

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// allLevels returns reps images of 256 pixels, pixel i of every image being i.
func allLevels(reps int) *Grey {
	g := &Grey{Name: "levels", N: reps, D: 256, Pix: make([]uint8, reps*256)}
	for k := range g.Pix {
		g.Pix[k] = uint8(k % 256)
	}
	return g
}

func TestBinarizeThresholdExact(t *testing.T) {
	g := allLevels(2)
	for _, th := range []float64{0, 0.001, 0.25, 0.5, 127.0 / 255, 0.9, 254.0 / 255, 0.9999} {
		s, err := g.Binarize(Threshold, th, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, x := range s.X {
			p := k % 256
			want := uint8(0)
			if float64(p)/255 > th {
				want = 1
			}
			if x != want {
				t.Fatalf("t=%v: pixel %d gave %d, want %d", th, p, x, want)
			}
		}
	}
	// The default threshold 0.5 is "pixel ≥ 128", the common MNIST rule.
	s, _ := g.Binarize(Threshold, DefaultThreshold, nil)
	for p := range 256 {
		if (s.X[p] == 1) != (p >= 128) {
			t.Fatalf("t=0.5: pixel %d gave %d", p, s.X[p])
		}
	}
	// Binary data survives the round trip through None unchanged.
	b := &Grey{Name: "b", N: 2, D: 3, Pix: []uint8{0, 1, 1, 1, 0, 0}}
	s, err := b.Binarize(None, 0, nil)
	if err != nil || !bytes.Equal(s.X, b.Pix) || s.N != 2 || s.D != 3 {
		t.Fatalf("none: %v %+v", err, s)
	}
}

func TestBinarizeStochastic(t *testing.T) {
	const reps = 8000
	g := allLevels(reps)
	s, err := g.Binarize(Stochastic, 0, rand.New(rand.NewPCG(7, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	counts := make([]int, 256)
	for k, x := range s.X {
		counts[k%256] += int(x)
	}
	if counts[0] != 0 || counts[255] != reps {
		t.Fatalf("pixel 0 gave %d ones, pixel 255 %d; want 0 and %d", counts[0], counts[255], reps)
	}
	// Each level p is Binomial(reps, p/255): within 5 standard deviations.
	for p := 1; p < 255; p++ {
		q := float64(p) / 255
		sd := math.Sqrt(reps * q * (1 - q))
		if d := math.Abs(float64(counts[p]) - reps*q); d > 5*sd {
			t.Errorf("pixel %d: %d ones in %d, expected %.1f ± %.1f", p, counts[p], reps, reps*q, sd)
		}
	}
	// Pooled over all levels the mean is Σ p/255 / 256 with a much smaller
	// standard error; this catches a bias the per-level test could miss
	// (with 8000 copies, p/256 instead of p/255 shifts it by 6.9 sd).
	total, mean, variance := 0, 0.0, 0.0
	for p := range 256 {
		q := float64(p) / 255
		total += counts[p]
		mean += reps * q
		variance += reps * q * (1 - q)
	}
	if d := math.Abs(float64(total) - mean); d > 5*math.Sqrt(variance) {
		t.Errorf("pooled: %d ones, expected %.0f ± %.0f", total, mean, math.Sqrt(variance))
	}

	// Same seed ⇒ same bits; another seed ⇒ other bits.
	s2, _ := g.Binarize(Stochastic, 0, rand.New(rand.NewPCG(7, 1)))
	if !bytes.Equal(s.X, s2.X) {
		t.Error("same seed gave different bits")
	}
	s3, _ := g.Binarize(Stochastic, 0, rand.New(rand.NewPCG(8, 1)))
	if bytes.Equal(s.X, s3.X) {
		t.Error("different seeds gave the same bits")
	}
}

func TestBinarizeErrors(t *testing.T) {
	grey := &Grey{Name: "grey.idx", N: 2, D: 3, Pix: []uint8{0, 1, 0, 0, 200, 1}}
	binary := &Grey{Name: "bin.idx", N: 1, D: 3, Pix: []uint8{0, 1, 1}}
	rng := rand.New(rand.NewPCG(1, 1))
	cases := []struct {
		g      *Grey
		method string
		t      float64
		rng    *rand.Rand
		want   string
	}{
		{grey, None, 0, nil, "grey.idx: example 1, pixel 1 is 200"},
		{grey, "", 0, nil, "grey.idx: grey images need an explicit binarisation method"},
		{grey, "otsu", 0, nil, `unknown binarisation method "otsu"`},
		{grey, Threshold, 1, nil, "threshold 1 out of range"},
		{grey, Threshold, -0.1, nil, "threshold -0.1 out of range"},
		{grey, Threshold, math.NaN(), nil, "threshold NaN out of range"},
		{grey, Stochastic, 0, nil, "needs a random generator"},
		{binary, Threshold, 0.5, nil, `bin.idx: the data is already 0/1 (largest pixel 1); binarisation "threshold"`},
		{binary, Stochastic, 0, rng, "already 0/1"},
		{&Grey{Name: "bad", N: 2, D: 3, Pix: []uint8{1}}, None, 0, nil, "bad: 1 pixels for 2 images of 3 pixels"},
	}
	for _, c := range cases {
		_, err := c.g.Binarize(c.method, c.t, c.rng)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s/%q/%v: got %v, want error containing %q", c.g.Name, c.method, c.t, err, c.want)
		}
	}
}

func TestBinarizationValidate(t *testing.T) {
	for _, b := range []Binarization{{}, {Method: None}, {Method: Stochastic, Seed: 3}, {Method: Threshold}, {Method: Threshold, Threshold: 0.2}} {
		if err := b.Validate(); err != nil {
			t.Errorf("%+v: %v", b, err)
		}
	}
	for _, b := range []Binarization{{Method: "Threshold"}, {Method: Threshold, Threshold: 1}, {Method: Threshold, Threshold: -1}, {Method: Threshold, Threshold: math.NaN()}} {
		if err := b.Validate(); err == nil {
			t.Errorf("%+v: no error", b)
		}
	}
	if got := (Binarization{Method: Threshold}).threshold(); got != DefaultThreshold {
		t.Errorf("zero threshold means %v, want %v", got, DefaultThreshold)
	}
}
