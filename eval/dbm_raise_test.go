package eval

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// dbmEvenStates enumerates the states of the even layers (v, h2, h4, …) of a
// tiny DBM as integers: the low D bits are v, then h2, h4, … in order; the
// odd layers are enumerated likewise. Written from the formulas of the DBM
// path (docs/methods.md#dbm), independently of inference.
type dbmEvenStates struct {
	d         *models.DBM
	a         [][]float64 // base biases a_l of the even layers (nil: zeros)
	even, odd []int       // layer indices
	nE, nO    int         // bits
}

func newDBMEvenStates(d *models.DBM, a [][]float64) *dbmEvenStates {
	s := &dbmEvenStates{d: d, a: a}
	for l, n := range d.Sizes {
		if l%2 == 0 {
			s.even = append(s.even, l)
			s.nE += n
		} else {
			s.odd = append(s.odd, l)
			s.nO += n
		}
	}
	return s
}

// fill sets the layers of xs to the bits of state.
func (s *dbmEvenStates) fill(xs [][]float64, layers []int, state int) {
	bit := 0
	for _, l := range layers {
		for j := range xs[l] {
			xs[l][j] = float64(state >> bit & 1)
			bit++
		}
	}
}

// condProb returns Π_{l∈layers} Π_j Bern(xs_{l,j}; σ(β z_{l,j} + [l even](1−β)a_{l,j})),
// the probability at β of those layers given their neighbours in xs.
func (s *dbmEvenStates) condProb(xs [][]float64, layers []int, beta float64) float64 {
	d := s.d
	L := d.NumLayers()
	p := 1.0
	for _, l := range layers {
		z := make([]float64, d.Sizes[l])
		var below, above []float64
		if l > 0 {
			below = xs[l-1]
		}
		if l < L {
			above = xs[l+1]
		}
		d.Preact(z, l, below, above)
		for j, zj := range z {
			t := beta * zj
			if l < len(s.a) && s.a[l] != nil {
				t += (1 - beta) * s.a[l][j]
			}
			if xs[l][j] == 0 {
				t = -t
			}
			p *= nmath.Sigmoid(t)
		}
	}
	return p
}

// kernel returns T_β[s][s'] = Σ_{x_O} p_β(x_O | x_E = s) p_β(x_E = s' | x_O).
func (s *dbmEvenStates) kernel(beta float64) [][]float64 {
	xs := make([][]float64, len(s.d.Sizes))
	for l, n := range s.d.Sizes {
		xs[l] = make([]float64, n)
	}
	nE, nO := 1<<s.nE, 1<<s.nO
	// po[o][s] = p(x_O = o | x_E = s), pe[o][s'] = p(x_E = s' | x_O = o).
	po, pe := make([][]float64, nO), make([][]float64, nO)
	for o := range nO {
		po[o], pe[o] = make([]float64, nE), make([]float64, nE)
		s.fill(xs, s.odd, o)
		for e := range nE {
			s.fill(xs, s.even, e)
			po[o][e] = s.condProb(xs, s.odd, beta)
			pe[o][e] = s.condProb(xs, s.even, beta)
		}
	}
	T := make([][]float64, nE)
	for e := range nE {
		T[e] = make([]float64, nE)
		for o := range nO {
			for e2 := range nE {
				T[e][e2] += po[o][e] * pe[o][e2]
			}
		}
	}
	return T
}

// annealed returns p_ann(v) for every visible state v (bits of the index):
// the v-marginal of p_0 T_{β_1} ⋯ T_{β_K}, p_0(x_E) = Π_{l even} Π_i
// Bern(x_{l,i}; σ(a_{l,i})) (a_l = 0: ½ each).
func (s *dbmEvenStates) annealed(betas []float64) []float64 {
	D := s.d.Sizes[0]
	nE := 1 << s.nE
	dist := make([]float64, nE)
	for e := range nE {
		dist[e] = 1
		bit := 0
		for _, l := range s.even {
			for i := range s.d.Sizes[l] {
				a := 0.0
				if l < len(s.a) && s.a[l] != nil {
					a = s.a[l][i]
				}
				dist[e] *= nmath.Sigmoid(float64(2*(e>>bit&1)-1) * a)
				bit++
			}
		}
	}
	for _, beta := range betas[1:] {
		T := s.kernel(beta)
		next := make([]float64, nE)
		for e, p := range dist {
			for e2, t := range T[e] {
				next[e2] += p * t
			}
		}
		dist = next
	}
	pann := make([]float64, 1<<D)
	for e, p := range dist {
		pann[e&(1<<D-1)] += p
	}
	return pann
}

func bitsRow(s, n int) []uint8 {
	v := make([]uint8, n)
	for i := range v {
		v[i] = uint8(s >> i & 1)
	}
	return v
}

// TestDBMRAISEUnbiased checks E[w] = p_ann(v) for K = 1 and 2 on a 3-2-2 and
// a 2-2-2-2 DBM, from a base-rate start (the log-odds of the model's visible
// marginals) and the uniform start, with p_ann computed from the exact
// transition matrices over all even states. The tolerance is 4 standard
// errors of the mean weight (from the sample variance of 40,000 weights), and
// the test requires that SE to be small enough to see a 5% bias.
func TestDBMRAISEUnbiased(t *testing.T) {
	const n = 40000
	for ci, sizes := range [][]int{{3, 2, 2}, {2, 2, 2, 2}} {
		d := randomDBM(t, 31+uint64(ci), 1.2, 0.7, sizes...)
		D := sizes[0]
		for _, start := range []string{"base-rate", "uniform", "base-rate+hidden"} {
			var base []float64
			a := make([]float64, D)
			var hidden [][]float64
			if start == "base-rate+hidden" {
				// Arbitrary biases on the even hidden layers: any base is valid.
				hidden = make([][]float64, len(sizes))
				for l := 2; l < len(sizes); l += 2 {
					hidden[l] = make([]float64, sizes[l])
					for j := range hidden[l] {
						hidden[l][j] = 1.3 - 1.7*float64(j)
					}
				}
			}
			if start != "uniform" {
				// The log-odds of the model's own visible marginals.
				logZ, logF := bruteDBM(d)
				base = make([]float64, D)
				for i := range base {
					p := 0.0
					for s, lf := range logF {
						p += float64(s>>i&1) * math.Exp(lf-logZ)
					}
					base[i] = nmath.Logit(p)
				}
				copy(a, base)
			}
			st := newDBMEvenStates(d, DBMBase(a, hidden))
			for _, betas := range [][]float64{{0, 1}, {0, 0.35, 1}} {
				K := len(betas) - 1
				pann := st.annealed(betas)
				var x rowsForTest
				var which []int
				for s := range 1 << D {
					if D == 2 || s == 0 || s == 5 || s == 6 {
						x = append(x, bitsRow(s, D))
						which = append(which, s)
					}
				}
				res, err := DBMRAISE{Chains: n, Betas: betas, BaseVBias: base, BaseHidden: hidden, Seed: uint64(100*K + ci), Workers: 2}.LogProb(d, x)
				if err != nil {
					t.Fatal(err)
				}
				for k, s := range which {
					var sum, sum2 float64
					for _, lw := range res.LogW[k*n : (k+1)*n] {
						w := math.Exp(lw) / pann[s] // normalised: mean should be 1
						sum += w
						sum2 += w * w
					}
					mean := sum / n
					se := math.Sqrt((sum2/n - mean*mean) / (n - 1))
					what := fmt.Sprintf("sizes %v %s K=%d v=%0*b", sizes, start, K, D, s)
					if se > 0.0125 {
						t.Errorf("%s: SE %.3g too large to detect a 5%% bias", what, se)
					}
					if math.Abs(mean-1) > 4*se {
						t.Errorf("%s: mean weight / p_ann = %.4f ± %.4f (p_ann = %.5f)", what, mean, se, pann[s])
					}
				}
			}
		}
	}
}

// TestDBMRAISEConvergesFromBelow: on a 5-3-4 DBM, RAISE's estimates of
// log p(v) rise towards the exact value (DBMExact) as K grows, staying below
// it: with K = 20 a single chain's E[log w] is below log p_ann(v) by more than
// 4 SE (Jensen; p_ann exact) and below log p(v); with K = 2,000 the mean
// estimate is within 0.05 nats below log p(v) (and not above it by more than
// 4 SE).
func TestDBMRAISEConvergesFromBelow(t *testing.T) {
	d := randomDBM(t, 41, 1.2, 0.5, 5, 3, 4)
	base := []float64{-0.5, 0.2, -1, 0.7, 0}
	xs := rowsForTest{{1, 0, 1, 1, 0}, {0, 0, 0, 1, 0}, {1, 1, 1, 1, 1}, {0, 1, 0, 0, 1}}
	ex, err := DBMExact{}.LogProb(d, xs)
	if err != nil {
		t.Fatal(err)
	}
	// K = 20, one chain per draw: Jensen's gap.
	few := inference.LinearSchedule(20)
	pann := newDBMEvenStates(d, [][]float64{base}).annealed(few)
	r, err := DBMRAISE{Chains: 4000, Betas: few, BaseVBias: base, Seed: 5}.LogProb(d, xs[:1])
	if err != nil {
		t.Fatal(err)
	}
	mr, sr := meanSE(r.LogW)
	lpann := math.Log(pann[0b01101])
	t.Logf("K=20: E[log w] = %.4f ± %.4f, log p_ann(v) = %.4f, log p(v) = %.4f", mr, sr, lpann, ex.LogP[0])
	if lpann-mr < 4*sr || ex.LogP[0]-mr < 4*sr {
		t.Errorf("K=20: E[log w] = %.4f ± %.4f is not clearly below log p_ann(v) = %.4f and log p(v) = %.4f", mr, sr, lpann, ex.LogP[0])
	}
	// K = 2,000.
	res, err := DBMRAISE{Chains: 50, Betas: inference.LinearSchedule(2000), BaseVBias: base, Seed: 9}.LogProb(d, xs)
	if err != nil {
		t.Fatal(err)
	}
	var v float64
	for _, se := range res.LogPSE {
		v += se * se
	}
	se := math.Sqrt(v) / float64(len(xs))
	t.Logf("K=2000: exact mean log p(v) %.4f, RAISE %.4f ± %.4f", ex.Mean, res.Mean.Mean, se)
	if gap := ex.Mean - res.Mean.Mean; gap < -4*se || gap > 0.05 {
		t.Errorf("K=2000: RAISE mean log p̂ %.4f ± %.4f is not within [exact − 0.05, exact + 4 SE] of %.4f", res.Mean.Mean, se, ex.Mean)
	}
}

func TestDBMRAISEDeterministicAndErrors(t *testing.T) {
	d := randomDBM(t, 43, 1.0, 0.5, 6, 4, 3)
	x := rowsForTest{{1, 0, 1, 1, 0, 0}, {0, 0, 0, 0, 0, 1}}
	r := DBMRAISE{Chains: 5, Betas: inference.LinearSchedule(30), Seed: 2, Workers: 1}
	var calls int64
	r.Progress = func(done, total int64) {
		calls++
		if total != 2*5*30 || done > total {
			t.Errorf("progress %d of %d; want a total of 300", done, total)
		}
	}
	r1, err := r.LogProb(d, x)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 10 {
		t.Errorf("%d progress calls, want 10", calls)
	}
	// Three workers, slowed down after each chain so that they interleave.
	r.Workers, r.Progress = 3, func(int64, int64) { time.Sleep(time.Millisecond) }
	r2, err := r.LogProb(d, x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range r1.LogW {
		if r1.LogW[i] != r2.LogW[i] {
			t.Fatalf("weight %d: %v with 1 worker, %v with 3", i, r1.LogW[i], r2.LogW[i])
		}
	}
	if len(r1.LogP) != 2 || r1.Chains != 5 || r1.Steps != 30 || r1.Mean.N != 2 {
		t.Errorf("result layout: %d estimates, %d chains, %d steps, mean over %d", len(r1.LogP), r1.Chains, r1.Steps, r1.Mean.N)
	}
	for _, c := range []struct {
		r    DBMRAISE
		x    data.Examples
		want string
	}{
		{DBMRAISE{Chains: -1}, x, "chains"},
		{DBMRAISE{Betas: []float64{0, 0.5}}, x, "DBM RAISE"},
		{DBMRAISE{}, rowsForTest{}, "no examples"},
		{DBMRAISE{}, rowsForTest{{1, 0, 2, 0, 0, 0}}, "example 0"},
		{DBMRAISE{}, rowsForTest{{1, 0, 1, 0, 0, 0}, {1, 0}}, "example 1"},
		{DBMRAISE{BaseVBias: []float64{1}}, x, "visible"},
	} {
		if _, err := c.r.LogProb(d, c.x); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v on %v: error %v, want one mentioning %q", c.r, c.x, err, c.want)
		}
	}
}
