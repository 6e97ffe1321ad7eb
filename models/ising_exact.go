package models

import (
	"fmt"
	"math"
	mbits "math/bits"
	"math/rand/v2"
	"runtime"
	"sync/atomic"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/workgroup"
)

// Limits of exact Ising computations.
const (
	// MaxIsingEnum bounds the sites LogZEnum may enumerate (2^40 terms).
	MaxIsingEnum = 40
	// MaxIsingWidth bounds the narrower side of a grid for the transfer
	// matrix: its messages have 2^width entries.
	MaxIsingWidth = 20
	// MaxIsingTable bounds (D+1)·2^width, the log-messages the exact
	// sampler and ExpectedStats keep (2^24 float64 = 128 MiB).
	MaxIsingTable = 1 << 24
)

// Width returns min(Rows, Cols), the width the transfer matrix runs over
// (the grid is transposed when Cols > Rows).
func (m *Ising) Width() int { return min(m.Rows, m.Cols) }

// TransferFeasible reports why the transfer matrix cannot compute log Z
// with width at most maxWidth (≤ MaxIsingWidth), or nil.
func (m *Ising) TransferFeasible(maxWidth int) error {
	if w := m.Width(); w > min(maxWidth, MaxIsingWidth) {
		return fmt.Errorf("the transfer matrix of a %dx%d grid runs over its narrower side, %d sites wide (2^%d states per message), above max_width %d", m.Rows, m.Cols, w, w, min(maxWidth, MaxIsingWidth))
	}
	return nil
}

// TableFeasible reports why the exact sampler and ExpectedStats cannot
// keep their table of (D+1)·2^width log-messages, or nil.
func (m *Ising) TableFeasible() error {
	if err := m.TransferFeasible(MaxIsingWidth); err != nil {
		return err
	}
	if n := (m.Rows*m.Cols + 1) << m.Width(); n > MaxIsingTable {
		return fmt.Errorf("a %dx%d grid needs a table of (D+1)·2^%d = %d log-messages, above the limit of %d (models.MaxIsingTable)", m.Rows, m.Cols, m.Width(), n, MaxIsingTable)
	}
	return nil
}

// LogZEnum returns log Z = log Σ_x p̃(x) by enumerating all 2^D states
// (D ≤ maxUnits ≤ MaxIsingEnum). The states are split by their top bits
// into a fixed number of blocks; each block is walked in Gray-code order
// (one site flips per step, changing log p̃ by (s' − s)·a_i) and summed in
// log space with a running maximum; the block sums are combined in block
// order, so the result does not depend on workers (0 = GOMAXPROCS) or
// GOMAXPROCS. log p̃ is recomputed from scratch every 1024 flips to
// bound the rounding drift.
func (m *Ising) LogZEnum(maxUnits, workers int) (float64, error) {
	if err := m.Validate(); err != nil {
		return 0, err
	}
	D := m.Rows * m.Cols
	if lim := min(maxUnits, MaxIsingEnum); D > lim {
		return 0, fmt.Errorf("enumerating a %dx%d grid takes 2^%d terms, above max_units %d", m.Rows, m.Cols, D, lim)
	}
	top := min(D, 8)
	low := D - top
	blocks := 1 << top
	sums := make([]float64, blocks)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg workgroup.Group
	for range min(workers, blocks) {
		wg.Go(func() {
			x := make([]uint8, D)
			for {
				b := int(next.Add(1) - 1)
				if b >= blocks {
					return
				}
				for i := range x {
					x[i] = 0
				}
				for k := range top {
					x[low+k] = uint8(b >> k & 1)
				}
				sums[b] = m.grayBlock(x, low)
			}
		})
	}
	wg.Wait()
	return nmath.LogSumExp(sums), nil
}

// grayBlock returns log Σ p̃(x) over the 2^low settings of the first low
// sites of x (the others fixed), starting from x with those sites 0.
func (m *Ising) grayBlock(x []uint8, low int) float64 {
	lp := m.LogUnnorm(x)
	mx, s := lp, 1.0
	for g := uint64(1); g < 1<<low; g++ {
		i := mbits.TrailingZeros64(g)
		a := m.LocalField(x, i)
		old := m.Spins.Value(x[i])
		x[i] ^= 1
		lp += (m.Spins.Value(x[i]) - old) * a
		if g&1023 == 0 {
			lp = m.LogUnnorm(x)
		}
		if lp > mx {
			s = s*math.Exp(mx-lp) + 1
			mx = lp
		} else {
			s += math.Exp(lp - mx)
		}
	}
	return mx + math.Log(s)
}

// oriented returns m, or its transpose when Cols > Rows, so that the
// transfer matrix runs over the narrower side; flip says which.
func (m *Ising) oriented() (o *Ising, flip bool) {
	if m.Cols > m.Rows {
		return m.transposed(), true
	}
	return m, false
}

// The transfer matrix adds one site at a time in raster order. After t
// sites the frontier f holds the last w = Cols bits, site t' at bit
// t' mod w, so site t = (r, c) overwrites bit c, which held its upper
// neighbour (r−1, c), and bit c−1 holds its left neighbour. With
//
//	φ_t(x_t, x_left, x_up) = h_t s_t + [c>0] J_h s_t s_left + [r>0] J_v s_t s_up,
//
// the forward log-messages are α_0 = log δ(f = 0) and
//
//	α_{t+1}(f') = log Σ_{x_up} exp(α_t(f'[c ← x_up]) + φ_t(f'_c, f'_{c−1}, x_up)),
//
// so that log Z = log Σ_f α_D(f); a site of the first row has no upper
// neighbour and α_t is −∞ unless its bit c is 0. Each step costs 2^w
// log-add-exps: D·2^w in all.

// phi returns φ_t for site (r, c) of the oriented model o.
func (o *Ising) phi(r, c int, xn, xl, xo uint8) float64 {
	C, sp := o.Cols, o.Spins
	s := sp.Value(xn)
	a := o.Fields[r*C+c]
	if c > 0 {
		a += o.CouplingH[r*(C-1)+c-1] * sp.Value(xl)
	}
	if r > 0 {
		a += o.CouplingV[(r-1)*C+c] * sp.Value(xo)
	}
	return s * a
}

// forwardStep computes α_{t+1} (dst) from α_t (src) for site t of o.
func (o *Ising) forwardStep(dst, src []float64, t int) {
	C := o.Cols
	r, c := t/C, t%C
	bit := 1 << c
	for f := range dst {
		xn := uint8(f >> c & 1)
		var xl uint8
		if c > 0 {
			xl = uint8(f >> (c - 1) & 1)
		}
		f0 := f &^ bit
		dst[f] = nmath.LogAddExp(src[f0]+o.phi(r, c, xn, xl, 0), src[f0|bit]+o.phi(r, c, xn, xl, 1))
	}
}

func initAlpha(a []float64) {
	for f := range a {
		a[f] = math.Inf(-1)
	}
	a[0] = 0
}

// LogZTransfer returns log Z by the transfer matrix over the narrower
// side (width ≤ maxWidth ≤ MaxIsingWidth), in log space: D·2^width
// log-add-exps and two messages of 2^width values.
func (m *Ising) LogZTransfer(maxWidth int) (float64, error) {
	if err := m.Validate(); err != nil {
		return 0, err
	}
	if err := m.TransferFeasible(maxWidth); err != nil {
		return 0, err
	}
	o, _ := m.oriented()
	n := 1 << o.Cols
	a, b := make([]float64, n), make([]float64, n)
	initAlpha(a)
	for t := range o.Rows * o.Cols {
		o.forwardStep(b, a, t)
		a, b = b, a
	}
	return nmath.LogSumExp(a), nil
}

// alphaTable returns α_0 … α_D of the oriented model, each 2^w values.
func (o *Ising) alphaTable() [][]float64 {
	D, n := o.Rows*o.Cols, 1<<o.Cols
	buf := make([]float64, (D+1)*n)
	al := make([][]float64, D+1)
	for t := range al {
		al[t] = buf[t*n : (t+1)*n]
	}
	initAlpha(al[0])
	for t := range D {
		o.forwardStep(al[t+1], al[t], t)
	}
	return al
}

// ExpectedStats returns log Z and E_p[T(x)], the expected sufficient
// statistics (laid out like Params: E[s_i], then E[s_i s_j] over the
// horizontal and the vertical edges) — the gradient of log Z. It runs the
// forward messages α_t and the backward messages
//
//	β_D = 0,  β_t(f) = log Σ_{x_t} exp(φ_t(x_t, f_{c−1}, f_c) + β_{t+1}(f[c ← x_t])),
//
// and reads the marginals from p(f_t, f_{t+1}) = exp(α_t(f_t) + φ_t +
// β_{t+1}(f_{t+1}) − log Z), exponentials of normalised log-probabilities.
func (m *Ising) ExpectedStats() (logZ float64, stats []float64, err error) {
	if err := m.Validate(); err != nil {
		return 0, nil, err
	}
	if err := m.TableFeasible(); err != nil {
		return 0, nil, err
	}
	o, flip := m.oriented()
	al := o.alphaTable()
	D, C, n := o.Rows*o.Cols, o.Cols, 1<<o.Cols
	logZ = nmath.LogSumExp(al[D])
	st := make([]float64, len(o.params))
	nh := o.Rows * (C - 1)
	beta, prev := make([]float64, n), make([]float64, n) // β_{t+1}, β_t
	sp := o.Spins
	for t := D - 1; t >= 0; t-- {
		r, c := t/C, t%C
		bit := 1 << c
		var e1, eh, ev float64
		for f := range n { // f = f_{t+1}
			xn := uint8(f >> c & 1)
			var xl uint8
			if c > 0 {
				xl = uint8(f >> (c - 1) & 1)
			}
			f0 := f &^ bit
			sn := sp.Value(xn)
			for xo := range uint8(2) {
				lp := al[t][f0|int(xo)<<c] + o.phi(r, c, xn, xl, xo) + beta[f] - logZ
				if math.IsInf(lp, -1) {
					continue
				}
				p := math.Exp(lp)
				e1 += p * sn
				if c > 0 {
					eh += p * sn * sp.Value(xl)
				}
				if r > 0 {
					ev += p * sn * sp.Value(xo)
				}
			}
		}
		st[t] = e1
		if c > 0 {
			st[D+r*(C-1)+c-1] = eh
		}
		if r > 0 {
			st[D+nh+(r-1)*C+c] = ev
		}
		for f := range n { // f = f_t
			xo := uint8(f >> c & 1)
			var xl uint8
			if c > 0 {
				xl = uint8(f >> (c - 1) & 1)
			}
			f0 := f &^ bit
			prev[f] = nmath.LogAddExp(o.phi(r, c, 0, xl, xo)+beta[f0], o.phi(r, c, 1, xl, xo)+beta[f0|bit])
		}
		beta, prev = prev, beta
	}
	if !flip {
		return logZ, st, nil
	}
	// Map the statistics of the transposed grid back (see transposed).
	R, Cm := m.Rows, m.Cols
	out := make([]float64, len(st))
	Dm, nhm := R*Cm, R*(Cm-1)
	for r := range R {
		for c := range Cm {
			out[r*Cm+c] = st[c*R+r]
			if c+1 < Cm {
				out[Dm+r*(Cm-1)+c] = st[D+nh+c*R+r]
			}
			if r+1 < R {
				out[Dm+nhm+r*Cm+c] = st[D+c*(R-1)+r]
			}
		}
	}
	return logZ, out, nil
}

// IsingSampler draws exact samples of an Ising model by forward
// filtering, backward sampling on the transfer matrix: the last frontier
// f_D from p(f_D) ∝ exp(α_D(f_D)), then for t = D−1 … 0 the bit that site t
// overwrote (its upper neighbour) from
//
//	p(x_up | f_{t+1}) ∝ exp(α_t(f_{t+1}[c ← x_up]) + φ_t(f_{t+1,c}, f_{t+1,c−1}, x_up)),
//
// which fixes f_t; site t's bit is bit c of f_{t+1}. Every sample draws
// exactly D+1 uniforms. A sampler is read-only after NewIsingSampler:
// goroutines may share it, each with its own generator.
type IsingSampler struct {
	m, o  *Ising
	flip  bool
	alpha [][]float64
	cdf   []float64
	LogZ  float64
}

// NewIsingSampler builds the exact sampler (needs TableFeasible).
func NewIsingSampler(m *Ising) (*IsingSampler, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	if err := m.TableFeasible(); err != nil {
		return nil, err
	}
	o, flip := m.oriented()
	al := o.alphaTable()
	last := al[len(al)-1]
	logZ := nmath.LogSumExp(last)
	cdf := make([]float64, len(last))
	acc := 0.0
	for f, l := range last {
		acc += math.Exp(l - logZ) // a normalised probability
		cdf[f] = acc
	}
	return &IsingSampler{m: m, o: o, flip: flip, alpha: al, cdf: cdf, LogZ: logZ}, nil
}

// Sample replaces x (D bits, the original grid's raster order) by an
// exact draw from p. It does not allocate.
func (s *IsingSampler) Sample(x []uint8, rng *rand.Rand) {
	o := s.o
	C, D := o.Cols, o.Rows*o.Cols
	u := rng.Float64() * s.cdf[len(s.cdf)-1]
	lo, hi := 0, len(s.cdf)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if s.cdf[mid] > u {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	for lo > 0 && math.IsInf(s.alpha[D][lo], -1) { // rounding at the top end
		lo--
	}
	f := lo
	for t := D - 1; t >= 0; t-- {
		r, c := t/C, t%C
		bit := 1 << c
		xn := uint8(f >> c & 1)
		var xl uint8
		if c > 0 {
			xl = uint8(f >> (c - 1) & 1)
		}
		f0 := f &^ bit
		l := s.alpha[t][f0|bit] + o.phi(r, c, xn, xl, 1) - (s.alpha[t][f0] + o.phi(r, c, xn, xl, 0))
		u := rng.Float64()
		f = f0
		if !math.IsNaN(l) && u < sigmoid(l) {
			f = f0 | bit
		}
		if s.flip { // site (r,c) of the transpose is (c,r) of the model
			x[c*s.m.Cols+r] = xn
		} else {
			x[t] = xn
		}
	}
}
