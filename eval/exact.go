package eval

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/workgroup"
	"github.com/logz-ml/logz/models"
)

// Exact computes the log partition function of an RBM exactly by enumerating
// its smaller layer and summing the other one out analytically. With the
// enumerated layer s ∈ {0,1}^K (biases c_S) and the summed layer of N units
// (biases c_N, couplings M, where x_i(s) = c_{N,i} + Σ_j M_ij s_j),
//
//	log Z = log Σ_s exp( c_Sᵀs + Σ_i softplus(x_i(s)) ).
//
// The walk visits the 2^K states in Gray-code order, so consecutive states
// differ in one unit and x changes by one row of M. The zero value is ready to
// use: MaxUnits 0 means 30 and Workers 0 means GOMAXPROCS. The result is
// bit-identical whatever Workers or GOMAXPROCS: the state space is split into a
// fixed number of blocks by its top bits, each block is walked by one
// goroutine, and the block sums are combined in block order.
//
// Two summation paths exist. The multiplicative path (used when every |x_i|
// is bounded by 600, see below) writes 1 + e^{x} = e^{x}(e^{−x} + 1) and keeps
// s_i = e^{−x_i} and Σ_i x_i: a Gray flip of unit j multiplies s by the
// precomputed e^{∓M_ij} (no exp per element) and adds ±Σ_i M_ij. The lowest
// three enumerated units are handled as 8 simultaneous products
// Π_i (s_i + e^{m_ic}), m_ic = Σ_{j∈c} M_ij, one per combination c of those
// units, so s is updated once per 8 terms and each factor costs one addition
// and one multiplication; the products are accumulated with exponent tracking
// (split into mantissa and binary exponent every few factors) so that they
// cannot overflow or underflow, with one log per term. s is recomputed from
// scratch every 512 flips to bound the rounding drift. The additive path keeps
// x_i and sums softplus(x_i) = max(x_i,0) + log1p(e^{−|x_i|}) with one exp
// per element (the product of the (1+e^{−|x_i|}) ∈ (1,2] is taken in chunks,
// with one log per chunk); it is used when the bound
// B = max_i (|c_{N,i}| + Σ_j |M_ij|) exceeds 600, where e^{±x} could leave the
// range of normal float64 numbers, and for K < 3.
type Exact struct {
	// MaxUnits refuses models whose smaller layer has more units (0 means 30):
	// the cost is 2^min(D,H) · max(D,H).
	MaxUnits int
	// Workers is the number of goroutines; 0 means GOMAXPROCS.
	Workers int
	// Progress, if set, is called from the worker goroutines with the
	// cumulative number of states enumerated (done) out of 2^min(D,H)
	// (total), every ExactProgressStates states or so.
	Progress func(done, total int64)

	path           exactPath // testing hook: which summation path to use
	progressStates int64     // testing hook: states between reports (a power of 2, ≥ 8)
}

type exactPath int

const (
	pathAuto exactPath = iota
	pathMultiplicative
	pathAdditive
)

const (
	defaultMaxUnits = 30
	// multBoundMax is the largest bound B on |x_i| for the multiplicative path.
	multBoundMax = 600
	// refreshEvery is the number of Gray flips between recomputations from scratch.
	refreshEvery = 512
	// maxTopBits fixes the number of blocks (2^maxTopBits at most).
	maxTopBits = 6
	// termChunk is the number of terms combined by one exact logsumexp.
	termChunk = 1024
	// ExactProgressStates is how many states a worker enumerates between two
	// calls of Exact.Progress (a few milliseconds of work for 784 summed
	// units; the hot loop only tests a counter).
	ExactProgressStates = 1 << 15
)

// LogZ returns log Z = log Σ_{v,h} e^{−E(v,h)} in nats. It returns an error,
// naming the sizes, when min(D,H) exceeds MaxUnits, or when the model is
// malformed.
func (e Exact) LogZ(m *models.RBM) (float64, error) {
	p, err := e.problem(m)
	if err != nil {
		return 0, err
	}
	if e.Progress != nil {
		var done atomic.Int64
		total := int64(1) << p.K
		p.progress = func(n int64) { e.Progress(done.Add(n), total) }
		p.progressStates = ExactProgressStates
		if e.progressStates > 0 {
			p.progressStates = e.progressStates
		}
	}
	return p.logZ(e.workers(), e.path, nil), nil
}

// ExactPlan is the size of an exact enumeration and the time it will take
// at the rate measured by Exact.Plan.
type ExactPlan struct {
	// Units is the number of enumerated units K = min(D,H) (2^K states);
	// Summed the number summed out analytically for each state.
	Units, Summed int
	// HiddenEnumerated tells which layer is enumerated.
	HiddenEnumerated bool
	// Rate is the measured number of states enumerated per second (with
	// every worker), and Estimate = 2^Units / Rate.
	Rate     float64
	Estimate time.Duration
}

// calibWork is the size of Plan's calibration run in units of state ×
// summed unit (2^27, ~50 ms at the rates measured for 784 summed units).
const calibWork = 27

// Plan checks m as LogZ does and measures how fast its states can be
// enumerated by timing a calibration run: the same summed layer, summation
// path and workers, with only the first K' = 27 − ⌊log₂ N⌋ enumerated units
// (at least 16 and at most K, so about 2^27 state × unit products; tens of
// milliseconds for 784 summed units). The cost of a state is the same
// whatever K (one Gray flip and one product over the summed units), so the
// full enumeration takes about 2^(K−K') times as long. Measuring rather than
// using a fixed cost per state keeps the estimate right on any machine, with
// any GOMAXPROCS, and for either summation path.
func (e Exact) Plan(m *models.RBM) (ExactPlan, error) {
	p, err := e.problem(m)
	if err != nil {
		return ExactPlan{}, err
	}
	B := p.bound()
	path := p.choosePath(e.path, B)
	k := min(p.K, max(16, calibWork-bits.Len(uint(p.N))+1))
	sub := &enumProblem{K: k, N: p.N, cS: p.cS[:k], cN: p.cN, M: p.M[:k*p.N]}
	if path == pathMultiplicative {
		// The same products (renormalised every chunk factors, from the
		// full problem's bound) on the same path.
		path = sub.choosePath(path, B)
	}
	start := time.Now()
	sub.walk(e.workers(), path, B, nil)
	sec := max(time.Since(start).Seconds(), 1e-9)
	rate := float64(uint64(1)<<k) / sec
	return ExactPlan{
		Units: p.K, Summed: p.N, HiddenEnumerated: p.hiddenEnumerated,
		Rate: rate, Estimate: time.Duration(float64(uint64(1)<<p.K) / rate * 1e9),
	}, nil
}

// String says what will be enumerated and how long it will take:
// "enumerating 2^33 hidden states × 784 visible units: about 25 min
// (measured 5.6 M states/s)".
func (p ExactPlan) String() string {
	enum, sum := "visible", "hidden"
	if p.HiddenEnumerated {
		enum, sum = sum, enum
	}
	return fmt.Sprintf("enumerating 2^%d %s states × %d %s units: about %s (measured %s states/s)",
		p.Units, enum, p.Summed, sum, roughDuration(p.Estimate), siNumber(p.Rate))
}

// roughDuration writes d to two significant figures in the largest
// fitting unit: "40 s", "25 min", "3.2 h", "12 days".
func roughDuration(d time.Duration) string {
	s := d.Seconds()
	switch {
	case s < 1:
		return "1 s"
	case s < 90:
		return sig2(s) + " s"
	case s < 90*60:
		return sig2(s/60) + " min"
	case s < 48*3600:
		return sig2(s/3600) + " h"
	}
	return sig2(s/86400) + " days"
}

// siNumber writes x with two or three significant figures and an SI
// prefix: "950", "5.6 k", "5.6 M", "1.2 G".
func siNumber(x float64) string {
	for _, u := range []struct {
		f float64
		p string
	}{{1e9, " G"}, {1e6, " M"}, {1e3, " k"}} {
		if x >= u.f {
			return sig2(x/u.f) + u.p
		}
	}
	return sig2(x)
}

// sig2 writes x ≥ 0 with two significant figures, without an exponent:
// 5.6, 25, 950, 1200.
func sig2(x float64) string {
	if x < 9.95 {
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	p := math.Pow(10, math.Floor(math.Log10(x))-1)
	return strconv.FormatFloat(math.Round(x/p)*p, 'f', 0, 64)
}

func (e Exact) workers() int { return orMaxProcs(e.Workers) }

func (e Exact) problem(m *models.RBM) (*enumProblem, error) {
	if m == nil {
		return nil, fmt.Errorf("exact log Z: nil model")
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("exact log Z: %w", err)
	}
	maxU := e.MaxUnits
	if maxU <= 0 {
		maxU = defaultMaxUnits
	}
	k := min(m.NVis, m.NHid)
	if k > maxU {
		return nil, fmt.Errorf("exact log Z: the smaller layer of this %d visible × %d hidden RBM has %d units, more than MaxUnits = %d (enumeration would need 2^%d terms); use AIS",
			m.NVis, m.NHid, k, maxU, k)
	}
	if k > 62 {
		return nil, fmt.Errorf("exact log Z: %d units cannot be enumerated", k)
	}
	return newEnumProblem(m), nil
}

// enumProblem is log Z = log Σ_s exp(c_Sᵀs + Σ_i softplus(c_{N,i} + Σ_j M_ij s_j)).
type enumProblem struct {
	K, N int
	cS   []float64 // biases of the enumerated layer, length K
	cN   []float64 // biases of the summed layer, length N
	M    []float64 // K×N: row j holds the couplings of enumerated unit j
	// HiddenEnumerated tells which layer s is (true: s = h, the summed layer is v).
	hiddenEnumerated bool
	// progress, if set, is told about every progressStates states
	// enumerated (a power of 2, ≥ 8) and the rest of each block at its end.
	progress       func(states int64)
	progressStates int64
}

func newEnumProblem(m *models.RBM) *enumProblem {
	D, H := m.NVis, m.NHid
	p := &enumProblem{}
	if H <= D {
		p.K, p.N, p.hiddenEnumerated = H, D, true
		p.cS, p.cN = m.HBias, m.VBias
		p.M = make([]float64, H*D)
		for i := range D {
			for j := range H {
				p.M[j*D+i] = m.W[i*H+j]
			}
		}
	} else {
		p.K, p.N = D, H
		p.cS, p.cN = m.VBias, m.HBias
		p.M = m.W // row i of W couples v_i to every h_j
	}
	return p
}

// bound returns B = max_i (|c_{N,i}| + Σ_j |M_ij|) ≥ max_s |x_i(s)|.
func (p *enumProblem) bound() float64 {
	b := make([]float64, p.N)
	for i, c := range p.cN {
		b[i] = math.Abs(c)
	}
	for j := range p.K {
		for i, w := range p.M[j*p.N : (j+1)*p.N] {
			b[i] += math.Abs(w)
		}
	}
	mx := 0.0
	for _, v := range b {
		mx = max(mx, v)
	}
	return mx
}

// logZ enumerates all 2^K states. If table is non-nil (length 2^K) it also
// receives the log weight of every state s (indexed by the bit pattern of s,
// bit j = unit j).
func (p *enumProblem) logZ(workers int, path exactPath, table []float64) float64 {
	B := p.bound()
	return p.walk(workers, p.choosePath(path, B), B, table)
}

// choosePath resolves pathAuto for the bound B: multiplicative when K ≥ 3
// and B ≤ multBoundMax, else additive.
func (p *enumProblem) choosePath(path exactPath, B float64) exactPath {
	if path == pathAuto {
		path = pathAdditive
		if p.K >= 3 && B <= multBoundMax {
			path = pathMultiplicative
		}
	}
	if p.K < 3 {
		path = pathAdditive
	}
	return path
}

// walk enumerates the 2^K states on path (not pathAuto) with the bound B.
func (p *enumProblem) walk(workers int, path exactPath, B float64, table []float64) float64 {
	low := 0
	if path == pathMultiplicative {
		low = 3
	}
	top := min(maxTopBits, p.K-low)
	gray := p.K - low - top
	nblocks := 1 << top
	results := make([]float64, nblocks)

	var shared *multShared
	if path == pathMultiplicative {
		shared = p.newMultShared(B)
	}
	workers = max(1, min(workers, nblocks))
	var next atomic.Int64
	var wg workgroup.Group
	for range workers {
		wg.Go(func() {
			var ms *multScratch
			var as *addScratch
			acc := newLSEAcc()
			for {
				b := int(next.Add(1) - 1)
				if b >= nblocks {
					return
				}
				acc.reset()
				if path == pathMultiplicative {
					if ms == nil {
						ms = p.newMultScratch()
					}
					p.multBlock(b, gray, shared, ms, acc, table)
				} else {
					if as == nil {
						as = p.newAddScratch()
					}
					p.addBlock(b, gray, as, acc, table)
				}
				results[b] = acc.result()
			}
		})
	}
	wg.Wait()
	return nmath.LogSumExp(results)
}

// lseAcc accumulates log Σ e^{term} deterministically: terms are buffered in
// chunks of termChunk, each chunk reduced by an exact two-pass logsumexp, and
// the chunk results reduced the same way at the end.
type lseAcc struct {
	buf    []float64
	chunks []float64
}

func newLSEAcc() *lseAcc { return &lseAcc{buf: make([]float64, 0, termChunk)} }

func (a *lseAcc) reset() { a.buf, a.chunks = a.buf[:0], a.chunks[:0] }

func (a *lseAcc) add(t float64) {
	a.buf = append(a.buf, t)
	if len(a.buf) == termChunk {
		a.chunks = append(a.chunks, nmath.LogSumExp(a.buf))
		a.buf = a.buf[:0]
	}
}

func (a *lseAcc) result() float64 {
	if len(a.buf) > 0 {
		a.chunks = append(a.chunks, nmath.LogSumExp(a.buf))
		a.buf = a.buf[:0]
	}
	return nmath.LogSumExp(a.chunks)
}

// ---------------------------------------------------------------------------
// Multiplicative path.
//
// With x_i the pre-activation of the summed unit i for the current state of
// the units ≥ 3 and m_{ic} = Σ_{j∈c} M_ij for a combination c of units 0–2,
//
//	Σ_i softplus(x_i + m_ic) = Σ_i x_i + log Π_i (e^{−x_i} + e^{m_ic}),
//
// since 1 + e^{x+m} = e^{x}(e^{−x} + e^{m}). The walk keeps s_i = e^{−x_i}
// (a flip of unit j multiplies it by e^{∓M_ij}) and Σ_i x_i (a flip adds
// ±Σ_i M_ij), and each factor costs one addition and one multiplication.
// Every factor lies in [e^{−B}, 2e^{B}], so a product of `chunk` factors with
// chunk·(B+ln2) ≤ 700 − ln2 stays within the normal float64 range; it is then
// split into a mantissa in [1,2) and a binary exponent.

// multShared holds the read-only tables of the multiplicative path.
type multShared struct {
	// comb[i*8+c] = e^{m_ic}.
	comb []float64
	// combBias[c] = Σ_{j∈c} c_{S,j}.
	combBias [8]float64
	// eOn[j*N+i] = e^{−M_ij} (applied to s when unit j turns on), eOff[j*N+i] = e^{M_ij}.
	eOn, eOff []float64
	// rowSum[j] = Σ_i M_ij.
	rowSum []float64
	chunk  int
}

func (p *enumProblem) newMultShared(B float64) *multShared {
	N := p.N
	s := &multShared{
		comb:   make([]float64, N*8),
		eOn:    make([]float64, p.K*N),
		eOff:   make([]float64, p.K*N),
		rowSum: make([]float64, p.K),
	}
	for c := range 8 {
		for j := range 3 {
			if c>>j&1 == 1 {
				s.combBias[c] += p.cS[j]
			}
		}
		for i := range N {
			x := 0.0
			for j := range 3 {
				if c>>j&1 == 1 {
					x += p.M[j*N+i]
				}
			}
			s.comb[i*8+c] = math.Exp(x)
		}
	}
	for j := range p.K {
		for i := range N {
			w := p.M[j*N+i]
			s.eOn[j*N+i] = math.Exp(-w)
			s.eOff[j*N+i] = math.Exp(w)
			s.rowSum[j] += w
		}
	}
	s.chunk = int((700 - math.Ln2) / (B + math.Ln2))
	s.chunk = max(1, min(64, s.chunk))
	return s
}

type multScratch struct {
	x, s []float64
	on   []bool // current state of the enumerated units ≥ 3
}

func (p *enumProblem) newMultScratch() *multScratch {
	return &multScratch{x: make([]float64, p.N), s: make([]float64, p.N), on: make([]bool, p.K)}
}

// refresh recomputes x = c_N + Σ_{j on} M_j from scratch and returns
// Σ_{j on} c_{S,j}.
func (p *enumProblem) refresh(on []bool, x []float64) float64 {
	N := p.N
	copy(x, p.cN)
	bias := 0.0
	for j, o := range on {
		if !o {
			continue
		}
		bias += p.cS[j]
		row := p.M[j*N : (j+1)*N]
		for i, w := range row {
			x[i] += w
		}
	}
	return bias
}

// refreshMult recomputes x, s = e^{−x} and returns the bias sum and Σ_i x_i.
func (p *enumProblem) refreshMult(on []bool, x, s []float64) (bias, sumX float64) {
	bias = p.refresh(on, x)
	for i, v := range x {
		s[i] = math.Exp(-v)
		sumX += v
	}
	return bias, sumX
}

const (
	mantMask = 1<<52 - 1
	expOne   = 1023 << 52
)

// multBlock walks block b (its top bits fixed, 2^gray Gray states of units
// 3…3+gray−1, and the 8 combinations of units 0–2 at each).
func (p *enumProblem) multBlock(b, gray int, sh *multShared, sc *multScratch, acc *lseAcc, table []float64) {
	N := p.N
	on := sc.on
	for j := range on {
		on[j] = false
	}
	topShift := 3 + gray
	for j := topShift; j < p.K; j++ {
		on[j] = b>>(j-topShift)&1 == 1
	}
	x, s := sc.x, sc.s
	bias, sumX := p.refreshMult(on, x, s)
	comb := sh.comb[:N*8]
	chunk := sh.chunk
	sinceRefresh := 0
	report, reported := p.progress, int64(0)
	mask := int(p.progressStates/8 - 1) // Gray steps (8 states each) between reports, minus 1
	for g := range 1 << gray {
		var f []float64 // the factors e^{∓M_j} still to apply to s, if any
		if g > 0 {
			j := 3 + bits.TrailingZeros(uint(g))
			on[j] = !on[j]
			sinceRefresh++
			if sinceRefresh == refreshEvery {
				sinceRefresh = 0
				bias, sumX = p.refreshMult(on, x, s)
			} else {
				if on[j] {
					f = sh.eOn[j*N : (j+1)*N]
					bias += p.cS[j]
					sumX += sh.rowSum[j]
				} else {
					f = sh.eOff[j*N : (j+1)*N]
					bias -= p.cS[j]
					sumX -= sh.rowSum[j]
				}
			}
		}
		// Eight products Π_i (s_i + comb_{i,c}), renormalised every chunk factors.
		pr := [8]float64{1, 1, 1, 1, 1, 1, 1, 1}
		var ex [8]int
		for lo := 0; lo < N; lo += chunk {
			hi := min(lo+chunk, N)
			var fc []float64
			if f != nil {
				fc = f[lo:hi]
			}
			prod8(&pr, s[lo:hi], fc, comb[lo*8:hi*8])
			for c := range pr {
				pr[c], ex[c] = renorm(pr[c], ex[c])
			}
		}
		state := 0
		if table != nil {
			state = b<<topShift | int(uint(g)^uint(g)>>1)<<3
		}
		base := bias + sumX
		for c := range 8 {
			v := base + sh.combBias[c] + (math.Log(pr[c]) + float64(ex[c])*math.Ln2)
			acc.add(v)
			if table != nil {
				table[state|c] = v
			}
		}
		if report != nil && g&mask == mask {
			report(p.progressStates)
			reported += p.progressStates
		}
	}
	if report != nil && reported < 8<<gray {
		report(8<<gray - reported)
	}
}

// prod8 multiplies pr[c] by Π_i (s_i + comb[8i+c]) for c = 0…7.
func prod8(pr *[8]float64, s, f, comb []float64) {
	p0, p1, p2, p3 := pr[0], pr[1], pr[2], pr[3]
	comb = comb[:8*len(s)]
	if f != nil {
		f = f[:len(s)]
		for i := range s {
			si := s[i] * f[i]
			s[i] = si
			c := (*[8]float64)(comb[8*i:])
			p0 *= si + c[0]
			p1 *= si + c[1]
			p2 *= si + c[2]
			p3 *= si + c[3]
		}
	} else {
		for i, si := range s {
			c := (*[8]float64)(comb[8*i:])
			p0 *= si + c[0]
			p1 *= si + c[1]
			p2 *= si + c[2]
			p3 *= si + c[3]
		}
	}
	pr[0], pr[1], pr[2], pr[3] = p0, p1, p2, p3
	p0, p1, p2, p3 = pr[4], pr[5], pr[6], pr[7]
	for i, si := range s {
		c := (*[8]float64)(comb[8*i:])
		p0 *= si + c[4]
		p1 *= si + c[5]
		p2 *= si + c[6]
		p3 *= si + c[7]
	}
	pr[4], pr[5], pr[6], pr[7] = p0, p1, p2, p3
}

// renorm splits a positive normal p into a mantissa in [1,2) and adds its
// binary exponent to e.
func renorm(p float64, e int) (float64, int) {
	u := math.Float64bits(p)
	return math.Float64frombits(u&mantMask | expOne), e + int(u>>52) - 1023
}

// ---------------------------------------------------------------------------
// Additive path.

type addScratch struct {
	x  []float64
	on []bool
}

func (p *enumProblem) newAddScratch() *addScratch {
	return &addScratch{x: make([]float64, p.N), on: make([]bool, p.K)}
}

// addBlock walks block b of the additive path: 2^gray Gray states of units
// 0…gray−1 with the top units fixed by b; each term is
// c_Sᵀs + Σ_i max(x_i,0) + log Π_i (1+e^{−|x_i|}).
func (p *enumProblem) addBlock(b, gray int, sc *addScratch, acc *lseAcc, table []float64) {
	N := p.N
	on := sc.on
	for j := range on {
		on[j] = j >= gray && b>>(j-gray)&1 == 1
	}
	x := sc.x
	bias := p.refresh(on, x)
	sinceRefresh := 0
	report, reported := p.progress, int64(0)
	mask := int(p.progressStates - 1)
	for g := range 1 << gray {
		if g > 0 {
			j := bits.TrailingZeros(uint(g))
			on[j] = !on[j]
			sinceRefresh++
			if sinceRefresh == refreshEvery {
				sinceRefresh = 0
				bias = p.refresh(on, x)
			} else {
				row := p.M[j*N : (j+1)*N]
				row = row[:len(x)]
				if on[j] {
					bias += p.cS[j]
					for i := range x {
						x[i] += row[i]
					}
				} else {
					bias -= p.cS[j]
					for i := range x {
						x[i] -= row[i]
					}
				}
			}
		}
		v := bias + softplusSum(x)
		acc.add(v)
		if table != nil {
			table[b<<gray|int(uint(g)^uint(g)>>1)] = v
		}
		if report != nil && g&mask == mask {
			report(p.progressStates)
			reported += p.progressStates
		}
	}
	if report != nil && reported < 1<<gray {
		report(1<<gray - reported)
	}
}

// softplusSum returns Σ_i softplus(x_i) = Σ_i max(x_i,0) + log Π_i (1+e^{−|x_i|}),
// taking the product in chunks of 512 factors (each in (1,2], so a chunk is
// below 2^512) with one log per chunk.
func softplusSum(x []float64) float64 {
	s := 0.0
	for lo := 0; lo < len(x); lo += 512 {
		hi := min(lo+512, len(x))
		prod := 1.0
		for _, v := range x[lo:hi] {
			s += max(v, 0)
			prod *= 1 + inference.Exp(-math.Abs(v))
		}
		s += math.Log(prod)
	}
	return s
}
