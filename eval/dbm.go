package eval

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// This file holds the estimators for deep Boltzmann machines (models.DBM,
// E(x) = −Σ_l x_lᵀW_l x_{l+1} − Σ_l b_lᵀx_l, x_0 = v): exact enumeration for
// tiny models, the mean-field lower bound on log f(v), importance sampling of
// f(v) with a mean-field proposal (RAISE §5.2) and AIS for log Z with the odd
// layers summed out (docs/methods.md#dbm).

// ---------------------------------------------------------------------------
// Exact enumeration

// DBMExact computes log Z and log f(v) = log Σ_h e^{−E(v,h)} of a tiny DBM
// exactly. Layers of the same parity are conditionally independent given the
// others, so it enumerates every joint state of one parity class (the even
// or the odd layers, whichever has fewer free units; v is free for log Z and
// clamped for log f(v)) and sums the other class out analytically:
//
//	log Σ_{x_S} e^{−E(x)} = −E_F(x_F) + Σ_{l∈S} Σ_j softplus(z_{l,j}(x_F)),
//
// where F are the enumerated and clamped layers, S the summed-out ones, E_F
// the bias and coupling terms among F, and z_l = b_l + W_{l−1}ᵀx_{l−1} + W_l x_{l+1}.
// For log f(v) with L = 2 this enumerates h2 and sums out h1: cost 2^{n_2}.
type DBMExact struct {
	// MaxUnits bounds the number of enumerated units (the cost is
	// 2^MaxUnits terms); 0 means 20, and more than 40 is refused.
	MaxUnits int
	// Progress, if set, is told by LogProb the number of examples done (of
	// x.Len()) every 64 examples and at the end.
	Progress func(done, total int64)
}

func (e DBMExact) check(d *models.DBM) error {
	if e.MaxUnits < 0 || e.MaxUnits > 40 {
		return fmt.Errorf("exact DBM: MaxUnits = %d; want 0 (meaning 20) … 40", e.MaxUnits)
	}
	return checkDBMModel(d)
}

func (e DBMExact) maxUnits() int {
	if e.MaxUnits > 0 {
		return e.MaxUnits
	}
	return 20
}

// LogZ returns log Z = log Σ_x e^{−E(x)}.
func (e DBMExact) LogZ(d *models.DBM) (float64, error) {
	if err := e.check(d); err != nil {
		return 0, err
	}
	p, n := cheaperParity(d, false)
	if n > e.maxUnits() {
		return 0, fmt.Errorf("exact DBM log Z: would enumerate 2^%d states (the %s layers, sizes %v); more than MaxUnits = %d", n, parityName(p), d.Sizes, e.maxUnits())
	}
	return dbmEnumerate(d, nil, p), nil
}

// LogUnnorm returns log f(v) = log Σ_{h1…hL} e^{−E(v,h1,…,hL)}.
func (e DBMExact) LogUnnorm(d *models.DBM, v []float64) (float64, error) {
	if err := e.check(d); err != nil {
		return 0, err
	}
	if err := checkDBMVisible(d, v); err != nil {
		return 0, err
	}
	p, n := cheaperParity(d, true)
	if n > e.maxUnits() {
		return 0, fmt.Errorf("exact DBM log f(v): would enumerate 2^%d states (the %s hidden layers, sizes %v); more than MaxUnits = %d", n, parityName(p), d.Sizes, e.maxUnits())
	}
	return dbmEnumerate(d, v, p), nil
}

// DBMExactResult holds exact per-example values.
type DBMExactResult struct {
	LogZ float64
	LogF []float64 // log f(v_n)
	LogP []float64 // log p(v_n) = log f(v_n) − log Z
	Mean float64   // mean of LogP
}

// LogProb returns log Z and log f(v_n), log p(v_n) for every example.
func (e DBMExact) LogProb(d *models.DBM, x data.Examples) (DBMExactResult, error) {
	logZ, err := e.LogZ(d)
	if err != nil {
		return DBMExactResult{}, err
	}
	r := DBMExactResult{LogZ: logZ}
	v := make([]float64, d.NumVisible())
	for n := 0; n < x.Len(); n++ {
		if err := rowToFloat(v, x.Row(n), n); err != nil {
			return DBMExactResult{}, err
		}
		lf, err := e.LogUnnorm(d, v)
		if err != nil {
			return DBMExactResult{}, err
		}
		r.LogF = append(r.LogF, lf)
		r.LogP = append(r.LogP, lf-logZ)
		r.Mean += (lf - logZ - r.Mean) / float64(n+1)
		if e.Progress != nil && ((n+1)%64 == 0 || n+1 == x.Len()) {
			e.Progress(int64(n+1), int64(x.Len()))
		}
	}
	return r, nil
}

func parityName(p int) string {
	if p == 0 {
		return "even"
	}
	return "odd"
}

// cheaperParity returns the parity class with fewer free units to enumerate
// (layer 0 is not free when clamped) and that number.
func cheaperParity(d *models.DBM, clamped bool) (parity, units int) {
	var n [2]int
	for l, s := range d.Sizes {
		if l == 0 && clamped {
			continue
		}
		n[l%2] += s
	}
	if n[0] <= n[1] {
		return 0, n[0]
	}
	return 1, n[1]
}

// dbmEnumerate returns log Σ e^{−E} over all free layers, enumerating the
// free layers of the given parity and summing the others out; v, if not nil,
// clamps layer 0.
func dbmEnumerate(d *models.DBM, v []float64, parity int) float64 {
	L := d.NumLayers()
	xs := make([][]float64, L+1)
	fixed := make([]bool, L+1)
	var enum []int
	n := 0
	for l := 0; l <= L; l++ {
		xs[l] = make([]float64, d.Sizes[l])
		switch {
		case l == 0 && v != nil:
			copy(xs[0], v)
			fixed[0] = true
		case l%2 == parity:
			fixed[l] = true
			enum = append(enum, l)
			n += d.Sizes[l]
		}
	}
	scratch := make([]float64, maxInts(d.Sizes))
	var acc onlineLSE
	acc.reset()
	for s := uint64(0); s < 1<<uint(n); s++ {
		bit := 0
		for _, l := range enum {
			for j := range xs[l] {
				xs[l][j] = float64((s >> uint(bit)) & 1)
				bit++
			}
		}
		t := 0.0
		for l := 0; l <= L; l++ {
			if fixed[l] {
				t += dotF(d.B[l], xs[l])
				if l < L && fixed[l+1] {
					t += bilinearF(xs[l], d.W[l], xs[l+1])
				}
				continue
			}
			var below, above []float64
			if l > 0 {
				below = xs[l-1]
			}
			if l < L {
				above = xs[l+1]
			}
			z := scratch[:d.Sizes[l]]
			d.Preact(z, l, below, above)
			for _, zj := range z {
				t += nmath.Softplus(zj)
			}
		}
		acc.add(t)
	}
	return acc.value()
}

// onlineLSE accumulates log Σ e^{t} in one pass.
type onlineLSE struct{ m, s float64 }

func (a *onlineLSE) reset() { a.m, a.s = math.Inf(-1), 0 }

func (a *onlineLSE) add(t float64) {
	if t <= a.m {
		a.s += math.Exp(t - a.m)
		return
	}
	a.s = a.s*math.Exp(a.m-t) + 1
	a.m = t
}

func (a *onlineLSE) value() float64 { return a.m + math.Log(a.s) }

func maxInts(x []int) int {
	m := 0
	for _, v := range x {
		m = max(m, v)
	}
	return m
}

func dotF(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

func bilinearF(x, w, y []float64) float64 {
	m := len(y)
	s := 0.0
	for i, xi := range x {
		if xi != 0 {
			s += xi * dotF(w[i*m:(i+1)*m], y)
		}
	}
	return s
}

func checkDBMModel(d *models.DBM) error {
	if d == nil {
		return fmt.Errorf("DBM: nil model")
	}
	return d.Validate()
}

func checkDBMVisible(d *models.DBM, v []float64) error {
	if len(v) != d.NumVisible() {
		return fmt.Errorf("DBM: visible vector has %d values, the model has %d visible units", len(v), d.NumVisible())
	}
	for i, x := range v {
		if x != 0 && x != 1 {
			return fmt.Errorf("DBM: visible value v[%d] = %v; want 0 or 1", i, x)
		}
	}
	return nil
}

func rowToFloat(dst []float64, row []uint8, n int) error {
	if len(row) != len(dst) {
		return fmt.Errorf("DBM: example %d has %d values, the model has %d visible units", n, len(row), len(dst))
	}
	for i, b := range row {
		if b > 1 {
			return fmt.Errorf("DBM: example %d, value %d is %d; want 0 or 1", n, i, b)
		}
		dst[i] = float64(b)
	}
	return nil
}

// ---------------------------------------------------------------------------
// Mean field

// DBMMeanField fits the factorial approximation q(h) = Π_{l≥1} Π_j
// Bern(h_{l,j}; μ_{l,j}) to p(h | v) by the fixed-point equations
//
//	μ_l = σ(b_l + W_{l−1}ᵀμ_{l−1} + W_l μ_{l+1}),  μ_0 = v,
//
// updating all odd layers, then all even hidden layers, per iteration (same-
// parity layers do not interact, so each half-step is an exact block
// coordinate ascent and the bound never decreases). It starts from a
// bottom-up pass μ_l = σ(b_l + W_{l−1}ᵀμ_{l−1}). The variational lower bound is
//
//	log f(v) ≥ B(v) = −E_q[E(v,h)] + H(q)
//	               = Σ_l b_lᵀμ_l + Σ_l μ_lᵀW_l μ_{l+1} + Σ_{l≥1} Σ_j [softplus(z_{l,j}) − μ_{l,j} z_{l,j}],
//
// with μ = σ(z) (the entropy of Bern(σ(z)) written stably).
type DBMMeanField struct {
	Iters int     // maximum number of iterations; 0 means 50
	Tol   float64 // stop when no μ changes by more than Tol; 0 means 1e-8
}

// MeanFieldFit is the result of DBMMeanField.Fit.
type MeanFieldFit struct {
	// Mu[l] are the means of layer l (Mu[0] = v); Z[l] their logits, μ = σ(z)
	// (Z[0] is nil).
	Mu, Z [][]float64
	Bound float64 // B(v) ≤ log f(v)
	Iters int     // iterations done
}

func (m DBMMeanField) iters() int {
	if m.Iters > 0 {
		return m.Iters
	}
	return 50
}

func (m DBMMeanField) tol() float64 {
	if m.Tol > 0 {
		return m.Tol
	}
	return 1e-8
}

// Fit runs the fixed-point iterations for one visible vector.
func (m DBMMeanField) Fit(d *models.DBM, v []float64) (MeanFieldFit, error) {
	if m.Iters < 0 || m.Tol < 0 || math.IsNaN(m.Tol) {
		return MeanFieldFit{}, fmt.Errorf("DBM mean field: Iters = %d and Tol = %v; want both ≥ 0", m.Iters, m.Tol)
	}
	if err := checkDBMModel(d); err != nil {
		return MeanFieldFit{}, err
	}
	if err := checkDBMVisible(d, v); err != nil {
		return MeanFieldFit{}, err
	}
	L := d.NumLayers()
	f := MeanFieldFit{Mu: make([][]float64, L+1), Z: make([][]float64, L+1)}
	f.Mu[0] = append([]float64(nil), v...)
	for l := 1; l <= L; l++ {
		f.Mu[l] = make([]float64, d.Sizes[l])
		f.Z[l] = make([]float64, d.Sizes[l])
		d.Preact(f.Z[l], l, f.Mu[l-1], nil)
		for j, z := range f.Z[l] {
			f.Mu[l][j] = nmath.Sigmoid(z)
		}
	}
	for f.Iters < m.iters() {
		f.Iters++
		delta := 0.0
		for _, start := range []int{1, 2} {
			for l := start; l <= L; l += 2 {
				var above []float64
				if l < L {
					above = f.Mu[l+1]
				}
				d.Preact(f.Z[l], l, f.Mu[l-1], above)
				for j, z := range f.Z[l] {
					mu := nmath.Sigmoid(z)
					delta = math.Max(delta, math.Abs(mu-f.Mu[l][j]))
					f.Mu[l][j] = mu
				}
			}
		}
		if delta <= m.tol() {
			break
		}
	}
	f.Bound = meanFieldBound(d, f.Mu, f.Z)
	return f, nil
}

// meanFieldBound evaluates B(v) for means mu with logits z.
func meanFieldBound(d *models.DBM, mu, z [][]float64) float64 {
	L := d.NumLayers()
	b := 0.0
	for l := 0; l <= L; l++ {
		b += dotF(d.B[l], mu[l])
		if l < L {
			b += bilinearF(mu[l], d.W[l], mu[l+1])
		}
		if l > 0 {
			for j, zj := range z[l] {
				b += nmath.Softplus(zj) - mu[l][j]*zj
			}
		}
	}
	return b
}

// ---------------------------------------------------------------------------
// Importance sampling of f(v)

// DBMIS estimates f(v) by importance sampling over the even hidden layers
// with the odd layers summed out (RAISE §5.2; for L = 2: h2, summing out h1):
//
//	f(v) = E_q[ f(v, h_even) / q(h_even) ],  q(h_even) = Π_{l even ≥ 2} Bern(h_l; μ_l),
//
// with μ the mean-field means of DBMMeanField and log f(v, h_even) from
// models.DBM.LogUnnormEven. The estimate of f(v) is unbiased; its log is a
// stochastic lower bound on log f(v) (Jensen).
type DBMIS struct {
	Samples   int // S proposals per vector; 0 means 500
	MeanField DBMMeanField
	// Floor, if > 0, clips the proposal means to [Floor, 1−Floor] so that q
	// is never much narrower than p (heavier tails, bounded weights).
	Floor float64
	// Progress, if set, is called by LogUnnormAll from its workers with
	// the cumulative number of examples done (of x.Len()).
	Progress func(done, total int64)
}

// DBMISResult is one IS estimate of log f(v).
type DBMISResult struct {
	LogF  float64 // log((1/S) Σ_s w_s)
	Stats nmath.LogStats
	Bound float64 // the mean-field bound B(v) of the proposal
}

// LogUnnorm estimates log f(v), drawing from rng.
func (s DBMIS) LogUnnorm(d *models.DBM, v []float64, rng *rand.Rand) (DBMISResult, error) {
	return s.logUnnorm(d, v, rng, evenWeights(d))
}

// logUnnorm is LogUnnorm with the transposed weights of evenWeights(d).
func (s DBMIS) logUnnorm(d *models.DBM, v []float64, rng *rand.Rand, wt [][]float64) (DBMISResult, error) {
	if s.Samples < 0 || s.Floor < 0 || s.Floor >= 0.5 {
		return DBMISResult{}, fmt.Errorf("DBM IS: Samples = %d, Floor = %v; want Samples ≥ 0 and 0 ≤ Floor < 0.5", s.Samples, s.Floor)
	}
	fit, err := s.MeanField.Fit(d, v)
	if err != nil {
		return DBMISResult{}, err
	}
	S := s.Samples
	if S == 0 {
		S = 500
	}
	L := d.NumLayers()
	// Proposal logits (clipped if Floor > 0).
	zq := make([][]float64, L+1)
	xs := make([][]float64, L+1)
	xs[0] = fit.Mu[0]
	for l := 1; l <= L; l++ {
		xs[l] = make([]float64, d.Sizes[l])
		if l%2 == 1 {
			continue
		}
		zq[l] = append([]float64(nil), fit.Z[l]...)
		if s.Floor > 0 {
			c := nmath.Logit(1 - s.Floor)
			for j, z := range zq[l] {
				zq[l][j] = math.Max(-c, math.Min(c, z))
			}
		}
	}
	sc := newEvenScorer(d, wt, xs[0])
	logw := make([]float64, S)
	var lq [evenBatch]float64
	for lo := 0; lo < S; lo += evenBatch {
		B := min(evenBatch, S-lo)
		for i := range B {
			lq[i] = 0
			for l := 2; l <= L; l += 2 {
				x := sc.state(i, l)
				models.SampleBernoulli(x, zq[l], rng)
				for j, z := range zq[l] {
					lq[i] += x[j]*z - nmath.Softplus(z)
				}
			}
		}
		f := logw[lo : lo+B]
		sc.score(B, f)
		for i := range f {
			f[i] -= lq[i]
		}
	}
	st := nmath.Summarise(logw)
	return DBMISResult{LogF: st.LogMean, Stats: st, Bound: fit.Bound}, nil
}

// evenBatch is how many even states evenScorer scores together: the rows
// of each W_lᵀ they select are added in one pass over the matrix
// (kernel.AddSelected's tiles), which then stays in the cache.
const evenBatch = 32

// evenScorer computes d.LogUnnormEven for batches of binary even states
// that share the visible vector v, with its bits: each odd layer's input
// z_l = (W_{l−1}ᵀ x_{l−1} + W_l x_{l+1}) + b_l in LayerInput's order — the
// part from below by the rows of the units on, one after another (from v
// once per scorer), the part from above as the sum of the columns of W_l of
// the units on in x_{l+1} in increasing order, starting from 0, which is
// the dot product w_jᵀx_{l+1} term by term when x_{l+1} is 0/1 (a zero term
// adds nothing to it, a one adds the weight exactly); the sums Σ b_lᵀx_l
// and Σ softplus(z) in LogUnnormEven's order.
type evenScorer struct {
	d   *models.DBM
	wt  [][]float64 // wt[l] (l odd, l < L): W_l transposed (n_{l+1} × n_l)
	v1  []float64   // layer 1's input from v
	xs  [][][]float64
	t   []float64 // evenBatch × max n_l: the parts from above
	z   []float64
	on  []int32
	spn []int32
}

// evenWeights returns W_l transposed for every odd l < L (nil elsewhere),
// evenScorer's wt.
func evenWeights(d *models.DBM) [][]float64 {
	L := d.NumLayers()
	wt := make([][]float64, L+1)
	for l := 1; l < L; l += 2 {
		n, m := d.Sizes[l], d.Sizes[l+1]
		w, t := d.W[l], make([]float64, n*m)
		for j := range n {
			for k := range m {
				t[k*n+j] = w[j*m+k]
			}
		}
		wt[l] = t
	}
	return wt
}

// newEvenScorer returns a scorer of states with visible vector v and the
// transposed weights wt (evenWeights, shared read-only).
func newEvenScorer(d *models.DBM, wt [][]float64, v []float64) *evenScorer {
	L := d.NumLayers()
	e := &evenScorer{d: d, wt: wt, xs: make([][][]float64, evenBatch)}
	e.v1 = make([]float64, d.Sizes[1])
	d.LayerInput(e.v1, 1, v, nil)
	wide := maxInts(d.Sizes)
	for i := range e.xs {
		e.xs[i] = make([][]float64, L+1)
		e.xs[i][0] = v
		for l := 2; l <= L; l += 2 {
			e.xs[i][l] = make([]float64, d.Sizes[l])
		}
	}
	e.t, e.z = make([]float64, evenBatch*wide), make([]float64, wide)
	e.on, e.spn = make([]int32, 0, evenBatch*wide), make([]int32, 2*evenBatch)
	return e
}

// state is the buffer of even layer l of the batch's state i.
func (e *evenScorer) state(i, l int) []float64 { return e.xs[i][l] }

// score sets out[0:B] to log f of the batch's first B states.
func (e *evenScorer) score(B int, out []float64) {
	d := e.d
	L := d.NumLayers()
	for i := range B {
		s := 0.0
		for l := 0; l <= L; l += 2 {
			s += dotF(d.B[l], e.xs[i][l])
		}
		out[i] = s
	}
	for l := 1; l <= L; l += 2 {
		n := d.Sizes[l]
		binary := true
		if l < L {
			e.on = e.on[:0]
			for i := range B {
				e.spn[2*i] = int32(len(e.on))
				for k, x := range e.xs[i][l+1] {
					if x == 1 {
						e.on = append(e.on, int32(k))
					} else if x != 0 {
						binary = false
					}
				}
				e.spn[2*i+1] = int32(len(e.on))
			}
			if binary {
				t := e.t[:B*n]
				clear(t)
				kernel.AddSelected(t, n, e.wt[l], n, n, e.on, e.spn[:2*B])
			}
		}
		for i := range B {
			z := e.z[:n]
			if !binary {
				below, above := e.xs[i][l-1], []float64(nil)
				if l < L {
					above = e.xs[i][l+1]
				}
				d.LayerInput(z, l, below, above)
			} else {
				if l == 1 {
					copy(z, e.v1)
				} else {
					d.LayerInput(z, l, e.xs[i][l-1], nil)
				}
				if l < L {
					for j, a := range e.t[i*n : (i+1)*n] {
						z[j] += a
					}
				}
			}
			s := out[i]
			for j, b := range d.B[l] {
				s += nmath.Softplus(z[j] + b)
			}
			out[i] = s
		}
	}
}

// ---------------------------------------------------------------------------
// AIS for log Z

// DBMPath is the AIS path for a DBM with the odd layers summed out
// (inference.DBMPath: the state is the even layers x_E = (v, h2, …),
//
//	log f_β(x_E) = β Σ_{l even} b_lᵀx_l + (1−β) a_0ᵀv + Σ_{l odd} Σ_j softplus(β z_{l,j}(x_E)),
//
// a base with no weights, visible biases a_0 and zero hidden biases at β = 0,
// and block-Gibbs transitions odd | even, then even | odd). It implements
// inference.Path, so AIS.Run anneals it.
type DBMPath = inference.DBMPath

// NewDBMPath builds the path; baseVBias nil means zeros.
func NewDBMPath(d *models.DBM, baseVBias []float64) (*DBMPath, error) {
	return inference.NewDBMPath(d, baseVBias)
}

// DBMAISLogZ estimates log Z of a DBM by AIS along NewDBMPath(d,
// a.BaseVBias), with a's runs, schedule, seed and workers (see AIS).
func DBMAISLogZ(d *models.DBM, a AIS) (AISResult, error) {
	path, err := NewDBMPath(d, a.BaseVBias)
	if err != nil {
		return AISResult{}, fmt.Errorf("AIS: %w", err)
	}
	return a.Run(path)
}

// ---------------------------------------------------------------------------
// Per-example drivers

// forDBMExamples runs f(n, v) for every example n of x that units accepts
// (all when nil; see Units) on GOMAXPROCS goroutines, v being the example
// as float64 (a buffer owned by the goroutine), and returns the first error
// by example order. Results written by f at index n do not depend on the
// scheduling.
func forDBMExamples(d *models.DBM, x data.Examples, units Units, f func(n int, v []float64) error) error {
	N := x.Len()
	errs := make([]error, N)
	var next atomic.Int64
	var wg workgroup.Group
	for range max(1, min(runtime.GOMAXPROCS(0), N)) {
		wg.Go(func() {
			v := make([]float64, d.NumVisible())
			for {
				n := int(next.Add(1) - 1)
				if n >= N {
					return
				}
				if !Mine(units, n) {
					continue
				}
				row := x.Row(n)
				if len(row) != len(v) {
					errs[n] = fmt.Errorf("example %d has %d values, the model has %d visible units", n, len(row), len(v))
					continue
				}
				for i, b := range row {
					v[i] = float64(b)
				}
				errs[n] = f(n, v)
			}
		})
	}
	wg.Wait()
	for n, err := range errs {
		if err != nil {
			return fmt.Errorf("example %d: %w", n, err)
		}
	}
	return nil
}

// Bounds returns the mean-field bound B(v_n) ≤ log f(v_n) of every example
// (in parallel) and their mean with its standard error; log p(v_n) ≥
// B(v_n) − log Z.
func (m DBMMeanField) Bounds(d *models.DBM, x data.Examples) ([]float64, MeanStat, error) {
	out := make([]float64, x.Len())
	err := forDBMExamples(d, x, nil, func(n int, v []float64) error {
		fit, err := m.Fit(d, v)
		out[n] = fit.Bound
		return err
	})
	if err != nil {
		return out, MeanStat{}, err
	}
	if len(out) == 0 {
		return out, MeanStat{}, fmt.Errorf("DBM mean field: no examples")
	}
	var sum, sumSq float64
	for _, b := range out {
		sum += b
		sumSq += b * b
	}
	return out, meanStat(sum, sumSq, len(out)), nil
}

// LogUnnormAll runs LogUnnorm on every example that units accepts (all
// when nil; the others are left zero), in parallel, example n drawing from
// rand.New(rand.NewPCG(seed, n)) so that results are reproducible.
func (s DBMIS) LogUnnormAll(d *models.DBM, x data.Examples, seed uint64, units Units) ([]DBMISResult, error) {
	out := make([]DBMISResult, x.Len())
	var done atomic.Int64
	wt := evenWeights(d)
	err := forDBMExamples(d, x, units, func(n int, v []float64) error {
		r, err := s.logUnnorm(d, v, rand.New(rand.NewPCG(seed, uint64(n))), wt)
		out[n] = r
		if s.Progress != nil {
			s.Progress(done.Add(1), int64(x.Len()))
		}
		return err
	})
	return out, err
}

// ---------------------------------------------------------------------------
// Base rates of the even hidden layers

// DBMHiddenBaseRate returns a "data base rate" for the even hidden layers
// of d, the biases a_l of the AIS and RAISE base beside the visible data
// base rate (NewDBMPathBase, DBMRAISE.BaseHidden): for every even l ≥ 2,
// the smoothed log-odds log((Σ_n μ_{l,n} + 1)/(Σ_n (1 − μ_{l,n}) + 1)) of the
// mean-field posterior means μ_{l,n} = E_q[h_l | v_n] (DBMMeanField with its
// defaults) over at most maxExamples examples of x, evenly spaced (n = ⌊i·N/m⌋;
// all of them when maxExamples ≤ 0 or ≥ N). The odd entries are nil. Any
// base gives valid estimates; one close to the model's own marginals makes
// the first steps of the path short: on an MNIST DBM 784-500-1000 it raised
// the ESS of 100 AIS runs at 20,000 β from 1 to 30–40 (docs/reproductions.md).
// The result does not depend on workers or GOMAXPROCS.
func DBMHiddenBaseRate(d *models.DBM, x data.Examples, maxExamples, workers int) ([][]float64, error) {
	if err := checkDBMModel(d); err != nil {
		return nil, err
	}
	N := x.Len()
	if N == 0 {
		return nil, fmt.Errorf("DBM hidden base rate: no examples")
	}
	m := N
	if maxExamples > 0 && maxExamples < N {
		m = maxExamples
	}
	L := d.NumLayers()
	// Fixed chunks of examples, each summed in order, then the chunks in
	// order: the same sums whatever the scheduling.
	const chunk = 64
	nc := (m + chunk - 1) / chunk
	sums := make([][][]float64, nc)
	errs := make([]error, nc)
	workgroup.ForEach(nc, max(1, workers), func() func(int) {
		v := make([]float64, d.NumVisible())
		return func(c int) {
			s := make([][]float64, L+1)
			for l := 2; l <= L; l += 2 {
				s[l] = make([]float64, d.Sizes[l])
			}
			for i := c * chunk; i < min((c+1)*chunk, m); i++ {
				n := int(int64(i) * int64(N) / int64(m))
				if err := rowToFloat(v, x.Row(n), n); err != nil {
					errs[c] = err
					return
				}
				f, err := DBMMeanField{}.Fit(d, v)
				if err != nil {
					errs[c] = fmt.Errorf("example %d: %w", n, err)
					return
				}
				for l := 2; l <= L; l += 2 {
					for j, mu := range f.Mu[l] {
						s[l][j] += mu
					}
				}
			}
			sums[c] = s
		}
	})
	for _, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("DBM hidden base rate: %w", err)
		}
	}
	out := make([][]float64, L+1)
	for l := 2; l <= L; l += 2 {
		tot := make([]float64, d.Sizes[l])
		for _, s := range sums {
			for j, x := range s[l] {
				tot[j] += x
			}
		}
		out[l] = make([]float64, d.Sizes[l])
		for j, s := range tot {
			out[l][j] = math.Log(s+1) - math.Log(float64(m)-s+1)
		}
	}
	return out, nil
}
