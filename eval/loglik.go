package eval

import (
	"math"
	"math/rand/v2"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// MeanStat is a mean over examples with its standard error.
type MeanStat struct {
	Mean, SE float64
	N        int
}

func meanStat(sum, sumSq float64, n int) MeanStat {
	mean := sum / float64(n)
	se := math.NaN()
	if n > 1 {
		v := (sumSq - float64(n)*mean*mean) / float64(n-1)
		se = math.Sqrt(math.Max(v, 0) / float64(n))
	}
	return MeanStat{Mean: mean, SE: se, N: n}
}

// MeanLogUnnorm returns the mean over the examples of log f(v) = −F(v), the
// log unnormalised probability; the mean log-likelihood is this minus log Z
// (whose own error is reported separately).
func MeanLogUnnorm(m *models.RBM, x data.Examples) MeanStat {
	v := make([]float64, m.NVis)
	scratch := make([]float64, m.NHid)
	var s, s2 float64
	for n := range x.Len() {
		for i, b := range x.Row(n) {
			v[i] = float64(b)
		}
		l := m.LogUnnorm(v, scratch)
		s += l
		s2 += l * l
	}
	return meanStat(s, s2, x.Len())
}

// ReconError returns the mean over examples of Σ_i (v_i − p(v_i = 1 | h))²
// with h ~ p(h|v): one Gibbs step from the data. A cheap signal only.
func ReconError(m *models.RBM, x data.Examples, rng *rand.Rand) MeanStat {
	return ReconErrorProgress(m, x, rng, nil)
}

// reconProgressEvery is the number of examples between two calls of
// ReconErrorProgress's progress.
const reconProgressEvery = 1024

// ReconErrorProgress is ReconError telling progress, if set, the number of
// examples done (of x.Len()) every reconProgressEvery examples and at the
// end. It runs on one goroutine: the draws come from rng in example order.
func ReconErrorProgress(m *models.RBM, x data.Examples, rng *rand.Rand, progress func(done, total int64)) MeanStat {
	D, H := m.NVis, m.NHid
	v := make([]float64, D)
	h := make([]float64, H)
	pv := make([]float64, D)
	var s, s2 float64
	for n := range x.Len() {
		for i, b := range x.Row(n) {
			v[i] = float64(b)
		}
		m.HiddenPreact(h, v)
		models.SampleBernoulli(h, h, rng)
		m.VisiblePreact(pv, h)
		e := 0.0
		for i, p := range pv {
			d := v[i] - nmath.Sigmoid(p)
			e += d * d
		}
		s += e
		s2 += e * e
		if progress != nil && ((n+1)%reconProgressEvery == 0 || n+1 == x.Len()) {
			progress(int64(n+1), int64(x.Len()))
		}
	}
	return meanStat(s, s2, x.Len())
}
