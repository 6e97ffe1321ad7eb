package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/internal/nmath"
)

// pairMRF is a fully connected binary pairwise MRF,
// log p̃(x) = Σ_i b_i x_i + Σ_{i<j} J_ij x_i x_j, parameters [b | J upper].
type pairMRF struct {
	d int
	p []float64
}

func (m *pairMRF) Dim() int          { return m.d }
func (m *pairMRF) Params() []float64 { return m.p }
func (m *pairMRF) Changed()          {}
func (m *pairMRF) NewLogP() func([]uint8) float64 {
	return func(x []uint8) float64 {
		s, k := 0.0, m.d
		for i := range m.d {
			s += m.p[i] * float64(x[i])
			for j := i + 1; j < m.d; j++ {
				s += m.p[k] * float64(x[i]*x[j])
				k++
			}
		}
		return s
	}
}
func (m *pairMRF) AddGradLogP(x []uint8, scale float64, g []float64) {
	k := m.d
	for i := range m.d {
		g[i] += scale * float64(x[i])
		for j := i + 1; j < m.d; j++ {
			g[k] += scale * float64(x[i]*x[j])
			k++
		}
	}
}

func newPairMRF(d int) *pairMRF { return &pairMRF{d: d, p: make([]float64, d+d*(d-1)/2)} }

// exactLoglik returns the mean exact log-likelihood of rows.
func exactLoglik(m *pairMRF, rows [][]uint8) float64 {
	logp := m.NewLogP()
	var all []float64
	x := make([]uint8, m.d)
	for s := 0; s < 1<<m.d; s++ {
		for i := range x {
			x[i] = uint8(s >> i & 1)
		}
		all = append(all, logp(x))
	}
	logZ := nmath.LogSumExp(all)
	t := 0.0
	for _, r := range rows {
		t += logp(r) - logZ
	}
	return t / float64(len(rows))
}

type rowsData [][]uint8

func (r rowsData) Len() int          { return len(r) }
func (r rowsData) Row(n int) []uint8 { return r[n] }

// plantedMRF is the random pairwise MRF plantedRows samples, and the
// generator its samples are then drawn from.
func plantedMRF(d int, seed uint64) (*pairMRF, *rand.Rand) {
	rng := rand.New(rand.NewPCG(seed, 1))
	m := newPairMRF(d)
	for i := range m.p {
		m.p[i] = 1.5 * rng.NormFloat64()
	}
	return m, rng
}

// plantedRows draws n exact samples of a random pairwise MRF by enumeration.
func plantedRows(d, n int, seed uint64) rowsData {
	m, rng := plantedMRF(d, seed)
	logp := m.NewLogP()
	lp := make([]float64, 1<<d)
	x := make([]uint8, d)
	for s := range lp {
		for i := range x {
			x[i] = uint8(s >> i & 1)
		}
		lp[s] = logp(x)
	}
	lz := nmath.LogSumExp(lp)
	var out rowsData
	for range n {
		u, c, s := rng.Float64(), 0.0, 0
		for s = range lp {
			c += math.Exp(lp[s] - lz)
			if u < c {
				break
			}
		}
		r := make([]uint8, d)
		for i := range r {
			r[i] = uint8(s >> i & 1)
		}
		out = append(out, r)
	}
	return out
}

func newTestLearner(t *testing.T, m *pairMRF, seed uint64) *Chi2Learner {
	t.Helper()
	q, err := chi2.NewMixture(m.d, 8, nil, 0.5, rand.New(rand.NewPCG(seed, 9)))
	if err != nil {
		t.Fatal(err)
	}
	l, err := NewChi2Learner(m, q, MRFChi2Options{BatchSize: 100, LearningRate: 0.05, QSteps: 10,
		Fit: chi2.FitOptions{Samples: 30, LearningRate: 0.05, Decay: 0.9}, Shuffle: true}, seed)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestChi2LearnerRaisesLoglik(t *testing.T) {
	data := plantedRows(8, 1000, 3)
	m := newPairMRF(8)
	before := exactLoglik(m, data)
	l := newTestLearner(t, m, 4)
	for range 30 {
		if _, err := l.TrainEpoch(data); err != nil {
			t.Fatal(err)
		}
	}
	after := exactLoglik(m, data)
	planted, _ := plantedMRF(8, 3)
	target := exactLoglik(planted, data)
	// The planted model's own log-likelihood is the target to approach.
	t.Logf("exact mean log-likelihood: %.4f at the start, %.4f after 30 epochs, %.4f for the planted model", before, after, target)
	// It closes 99.5% of the 4.1-nat gap here (−5.545 → −1.450 against
	// −1.431); 0.1 nats short of the planted model fails.
	if after < target-0.1 {
		t.Fatalf("χ² learning moved the exact log-likelihood from %.4f to %.4f, more than 0.1 nats short of the planted model's %.4f", before, after, target)
	}
}

func TestChi2LearnerResume(t *testing.T) {
	data := plantedRows(6, 300, 5)
	a := newTestLearner(t, newPairMRF(6), 6)
	for range 2 {
		a.TrainEpoch(data)
	}
	arrays, bytes, err := a.State()
	if err != nil {
		t.Fatal(err)
	}
	mb := newPairMRF(6)
	copy(mb.p, a.M.Params())
	b := newTestLearner(t, mb, 99)
	if err := b.Restore(arrays, bytes); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		ea, _ := a.TrainEpoch(data)
		eb, _ := b.TrainEpoch(data)
		if ea != eb {
			t.Fatalf("resumed learner diverges: %+v vs %+v", ea, eb)
		}
	}
	for i, v := range a.M.Params() {
		if mb.p[i] != v {
			t.Fatal("resumed learner's parameters differ")
		}
	}
}
