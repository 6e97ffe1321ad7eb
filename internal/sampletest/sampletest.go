// Package sampletest checks samplers on tiny models: that their draws have
// the frequencies and marginals of a distribution known by enumeration
// (Marginal), within binomial standard errors, and that they depend on
// neither the number of workers nor how many are drawn. It is shared by the
// tests of eval, sbn and the family plug-ins.
package sampletest

import (
	"math"
	"slices"
	"testing"
)

// CheckFrequencies checks that the frequencies of the 0/1 rows of x (n×D;
// row i codes as Σ_j x_ij 2^j) match the probabilities p of the 2^D codes
// within 5 binomial standard errors √(p(1−p)/n) each.
func CheckFrequencies(t testing.TB, what string, x []float64, D int, p []float64) {
	t.Helper()
	n := len(x) / D
	count := make([]float64, len(p))
	for i := range n {
		c := 0
		for j, v := range x[i*D : (i+1)*D] {
			if v != 0 && v != 1 {
				t.Fatalf("%s: sample %d unit %d is %v, not 0/1", what, i, j, v)
			}
			c |= int(v) << j
		}
		count[c]++
	}
	for c, pc := range p {
		se := math.Sqrt(pc * (1 - pc) / float64(n))
		if f := count[c] / float64(n); math.Abs(f-pc) > 5*se+1e-12 {
			t.Errorf("%s: state %d drawn with frequency %.4f, p = %.4f (SE %.4f)", what, c, f, pc, se)
		}
	}
}

// CheckMeans checks that the column means of x (n×D, values in [0,1],
// e.g. probabilities p(v=1|h) of independent chains) match the marginals
// p(v_j = 1) of the codes' probabilities p within 5 standard errors of the
// mean (sample sd/√n, at least 1e-9).
func CheckMeans(t testing.TB, what string, x []float64, D int, p []float64) {
	t.Helper()
	n := len(x) / D
	for j := range D {
		want := 0.0
		for c, pc := range p {
			if c>>j&1 == 1 {
				want += pc
			}
		}
		s, ss := 0.0, 0.0
		for i := range n {
			v := x[i*D+j]
			if v < 0 || v > 1 {
				t.Fatalf("%s: sample %d unit %d is %v, not in [0,1]", what, i, j, v)
			}
			s += v
			ss += v * v
		}
		mean := s / float64(n)
		se := math.Sqrt(max(ss/float64(n)-mean*mean, 0)/float64(n-1)) + 1e-9
		if math.Abs(mean-want) > 5*se {
			t.Errorf("%s: unit %d has mean %.4f, p(v=1) = %.4f (SE %.4f)", what, j, mean, want, se)
		}
	}
}

// Draw draws n samples (n×D) from start init ("" for ancestral samplers),
// the probabilities p(v=1|·) of the last step when mean, on workers
// goroutines, from a fixed seed.
type Draw func(n int, init string, mean bool, workers int) ([]float64, error)

// CheckSampler checks a family's sampler on a tiny model whose visible
// distribution over the 2^D codes is p: from each start, n states have the
// frequencies of p (CheckFrequencies) and n means have its marginals
// (CheckMeans); the samples do not depend on the number of workers, and
// the first samples not on how many are drawn.
func CheckSampler(t testing.TB, draw Draw, D int, p []float64, inits []string, n int) {
	t.Helper()
	if len(inits) == 0 {
		inits = []string{""}
	}
	for _, init := range inits {
		x, err := draw(n, init, false, 2)
		if err != nil {
			t.Fatalf("start %q: %v", init, err)
		}
		if len(x) != n*D {
			t.Fatalf("start %q: %d values, want %d×%d", init, len(x), n, D)
		}
		CheckFrequencies(t, "states from "+init, x, D, p)
		m, err := draw(n, init, true, 2)
		if err != nil {
			t.Fatalf("start %q, means: %v", init, err)
		}
		CheckMeans(t, "means from "+init, m, D, p)
		one, err := draw(40, init, false, 1)
		if err != nil {
			t.Fatal(err)
		}
		three, err := draw(40, init, false, 3)
		if err != nil {
			t.Fatal(err)
		}
		few, err := draw(10, init, false, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(one, three) {
			t.Errorf("start %q: the samples depend on the number of workers", init)
		}
		if !slices.Equal(few, one[:10*D]) {
			t.Errorf("start %q: the first samples depend on how many are drawn", init)
		}
	}
}

// Marginal returns p(v) of every code v (bit i = v_i) of a model over
// layers of the given sizes (sizes[0] = D) by enumerating every
// configuration of every layer: p(v) ∝ Σ_{h} exp(logJoint(xs)) with xs[0]
// = v. For tiny models (Σ sizes ≤ 20).
func Marginal(sizes []int, logJoint func(xs [][]float64) float64) []float64 {
	total := 0
	xs := make([][]float64, len(sizes))
	for l, n := range sizes {
		xs[l] = make([]float64, n)
		total += n
	}
	D := sizes[0]
	logs := make([][]float64, 1<<D)
	mx := math.Inf(-1)
	for code := range 1 << total {
		b := 0
		for _, x := range xs {
			for i := range x {
				x[i] = float64(code >> b & 1)
				b++
			}
		}
		lj := logJoint(xs)
		logs[code&(1<<D-1)] = append(logs[code&(1<<D-1)], lj)
		mx = max(mx, lj)
	}
	p := make([]float64, 1<<D)
	tot := 0.0
	for c, ls := range logs {
		for _, l := range ls {
			p[c] += math.Exp(l - mx)
		}
		tot += p[c]
	}
	for c := range p {
		p[c] /= tot
	}
	return p
}

// Rows is data.Examples over fixed rows.
type Rows [][]uint8

// Len implements data.Examples.
func (r Rows) Len() int { return len(r) }

// Row implements data.Examples.
func (r Rows) Row(i int) []uint8 { return r[i] }

// CheckSameDraws checks that draw and want give the same values from every
// start of inits ("" for an ancestral sampler), states and means: a
// family's plug-in sampler against the numerics it wraps.
func CheckSameDraws(t testing.TB, inits []string, draw, want func(init string, mean bool) ([]float64, error)) {
	t.Helper()
	if len(inits) == 0 {
		inits = []string{""}
	}
	for _, init := range inits {
		for _, mean := range []bool{false, true} {
			got, err := draw(init, mean)
			if err != nil {
				t.Fatalf("start %q, means %v: %v", init, mean, err)
			}
			w, err := want(init, mean)
			if err != nil {
				t.Fatalf("start %q, means %v, the numerics: %v", init, mean, err)
			}
			if !slices.Equal(got, w) {
				t.Errorf("start %q, means %v: the samples are not those of the numerics the sampler wraps", init, mean)
			}
		}
	}
}
