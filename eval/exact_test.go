package eval

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// testRBM returns a D×H RBM with N(0, wScale²) weights and N(0, bScale²)
// biases from the stream (seed, 99).
func testRBM(d, h int, wScale, bScale float64, seed uint64) *models.RBM {
	return modeltest.RandomRBM(d, h, wScale, bScale, rand.New(rand.NewPCG(seed, 99)))
}

// bruteLogZ sums e^{−E(v,h)} over every joint state (D+H ≤ ~22).
func bruteLogZ(m *models.RBM) float64 {
	D, H := m.NVis, m.NHid
	v := make([]float64, D)
	h := make([]float64, H)
	terms := make([]float64, 0, 1<<(D+H))
	for s := range 1 << (D + H) {
		for i := range D {
			v[i] = float64(s >> i & 1)
		}
		for j := range H {
			h[j] = float64(s >> (D + j) & 1)
		}
		terms = append(terms, -m.Energy(v, h))
	}
	return nmath.LogSumExp(terms)
}

// plainLogZ enumerates the smaller layer with the free energy written with
// nmath.Softplus (no Gray code, no tricks).
func plainLogZ(m *models.RBM) float64 {
	D, H := m.NVis, m.NHid
	var terms []float64
	if H <= D {
		h := make([]float64, H)
		scratch := make([]float64, D)
		for s := range 1 << H {
			for j := range H {
				h[j] = float64(s >> j & 1)
			}
			terms = append(terms, m.LogUnnormGivenHidden(h, scratch))
		}
	} else {
		v := make([]float64, D)
		scratch := make([]float64, H)
		for s := range 1 << D {
			for i := range D {
				v[i] = float64(s >> i & 1)
			}
			terms = append(terms, m.LogUnnorm(v, scratch))
		}
	}
	return nmath.LogSumExp(terms)
}

func TestExactAgainstBruteForce(t *testing.T) {
	cases := []struct{ d, h int }{{5, 3}, {8, 5}, {5, 9}, {3, 2}, {1, 1}, {2, 7}, {6, 6}, {4, 12}, {12, 4}}
	for _, c := range cases {
		for _, path := range []exactPath{pathAuto, pathMultiplicative, pathAdditive} {
			m := testRBM(c.d, c.h, 1.5, 1, uint64(c.d*100+c.h))
			want := bruteLogZ(m)
			got, err := Exact{path: path}.LogZ(m)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("%d×%d path %d: log Z = %.15g, brute force %.15g (diff %.3g)", c.d, c.h, path, got, want, got-want)
			}
		}
	}
}

// TestExactPathsAgree compares the multiplicative and the additive paths with
// the plain enumeration on models large enough for many blocks, Gray flips
// and refreshes (2^20 states: 2048 flips per block, 4 refreshes).
func TestExactPathsAgree(t *testing.T) {
	for _, c := range []struct{ d, h int }{{40, 16}, {16, 40}, {40, 20}} {
		m := testRBM(c.d, c.h, 0.5, 1, uint64(c.d+7*c.h))
		want := plainLogZ(m)
		for _, path := range []exactPath{pathMultiplicative, pathAdditive} {
			got, err := Exact{path: path}.LogZ(m)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got-want) > 1e-9 {
				t.Errorf("%d×%d path %d: %.15g, plain %.15g (diff %.3g)", c.d, c.h, path, got, want, got-want)
			}
		}
	}
}

// TestExactStrongWeights compares both paths with brute force on models
// whose pre-activations reach a few hundred (the multiplicative path then
// renormalises its products every few factors).
func TestExactStrongWeights(t *testing.T) {
	for _, c := range []struct{ d, h int }{{7, 6}, {5, 9}} {
		m := testRBM(c.d, c.h, 40, 20, 17)
		p := newEnumProblem(m)
		want := bruteLogZ(m)
		for _, path := range []exactPath{pathMultiplicative, pathAdditive} {
			got := p.logZ(2, path, nil)
			if math.Abs(got-want) > 1e-13*math.Abs(want) {
				t.Errorf("%d×%d path %d (bound %.0f): %.15g, brute force %.15g", c.d, c.h, path, p.bound(), got, want)
			}
		}
		if sh := p.newMultShared(p.bound()); sh.chunk > 8 {
			t.Errorf("bound %.0f gives chunks of %d factors; the test should exercise small chunks", p.bound(), sh.chunk)
		}
	}
}

// TestExactLargeWeightsUseAdditivePath checks a model whose pre-activations
// exceed the multiplicative bound (|x| up to ~1000, e^x would overflow).
func TestExactLargeWeightsUseAdditivePath(t *testing.T) {
	m := testRBM(6, 5, 150, 200, 3)
	p := newEnumProblem(m)
	if p.bound() <= multBoundMax {
		t.Fatalf("test model bound %.1f should exceed %d", p.bound(), multBoundMax)
	}
	want := bruteLogZ(m)
	got, err := Exact{}.LogZ(m)
	if err != nil {
		t.Fatal(err)
	}
	if math.IsInf(got, 0) || math.IsNaN(got) || math.Abs(got-want) > 1e-12*math.Abs(want) {
		t.Fatalf("log Z = %v, brute force %v", got, want)
	}
}

func TestExactTable(t *testing.T) {
	for _, c := range []struct{ d, h int }{{30, 11}, {9, 30}, {7, 2}} {
		m := testRBM(c.d, c.h, 0.7, 1, 5)
		p := newEnumProblem(m)
		for _, path := range []exactPath{pathMultiplicative, pathAdditive} {
			table := make([]float64, 1<<p.K)
			for i := range table {
				table[i] = math.NaN()
			}
			lz := p.logZ(2, path, table)
			s := make([]float64, p.K)
			scratch := make([]float64, p.N)
			for st, got := range table {
				for j := range s {
					s[j] = float64(st >> j & 1)
				}
				var want float64
				if p.hiddenEnumerated {
					want = m.LogUnnormGivenHidden(s, scratch)
				} else {
					want = m.LogUnnorm(s, scratch)
				}
				if !(math.Abs(got-want) < 1e-10) {
					t.Fatalf("%d×%d path %d: table[%d] = %v, want %v", c.d, c.h, path, st, got, want)
				}
			}
			if math.Abs(lz-nmath.LogSumExp(table)) > 1e-11 {
				t.Fatalf("log Z %v disagrees with the table's logsumexp %v", lz, nmath.LogSumExp(table))
			}
		}
	}
}

func TestExactDeterministicAcrossWorkers(t *testing.T) {
	m := testRBM(50, 18, 0.3, 1, 11)
	ref, err := Exact{Workers: 1}.LogZ(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 3, 7, 64, 100} {
		got, _ := Exact{Workers: w}.LogZ(m)
		if got != ref {
			t.Fatalf("Workers=%d: %v != %v with one worker", w, got, ref)
		}
	}
	old := runtime.GOMAXPROCS(1)
	got1, _ := Exact{}.LogZ(m)
	runtime.GOMAXPROCS(2)
	got2, _ := Exact{}.LogZ(m)
	runtime.GOMAXPROCS(old)
	if got1 != ref || got2 != ref {
		t.Fatalf("GOMAXPROCS 1/2 gave %v / %v, want %v", got1, got2, ref)
	}
}

func TestExactRefusesLargeModels(t *testing.T) {
	m := models.NewRBM(784, 500)
	_, err := Exact{}.LogZ(m)
	if err == nil || !strings.Contains(err.Error(), "500 units") || !strings.Contains(err.Error(), "MaxUnits = 30") {
		t.Fatalf("error %v should name the 500 units and MaxUnits = 30", err)
	}
	_, err = Exact{MaxUnits: 4}.LogZ(testRBM(5, 9, 1, 1, 1))
	if err == nil || !strings.Contains(err.Error(), "5 units") {
		t.Fatalf("error %v should name the 5 units", err)
	}
	bad := testRBM(3, 3, 1, 1, 1)
	bad.W[4] = math.NaN()
	if _, err := (Exact{}).LogZ(bad); err == nil || !strings.Contains(err.Error(), "W[1,1]") {
		t.Fatalf("error %v should name W[1,1] (flat index 4)", err)
	}
	if _, err := (Exact{}).LogZ(nil); err == nil {
		t.Fatal("nil model accepted")
	}
}
