package eval

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// isingModel returns an R×C model with fields uniform in [−1,1] and
// couplings uniform in [−c,c].
func isingModel(R, C int, sp models.Spins, c float64, seed uint64) *models.Ising {
	rng := rand.New(rand.NewPCG(seed, 13))
	m := models.NewIsing(R, C, sp)
	for i := range m.Fields {
		m.Fields[i] = 2*rng.Float64() - 1
	}
	for _, J := range [][]float64{m.CouplingH, m.CouplingV} {
		for i := range J {
			J[i] = c * (2*rng.Float64() - 1)
		}
	}
	return m
}

// TestIsingAISAgreesWithExact: AIS on a 4×4 grid (uniform and base-rate
// starts) brackets the transfer-matrix log Z within its ±3σ band, σ the
// standard error of the mean weight over the runs.
func TestIsingAISAgreesWithExact(t *testing.T) {
	for _, sp := range []models.Spins{models.SpinsPM1, models.Spins01} {
		m := isingModel(4, 4, sp, 0.6, 21)
		exact, err := m.LogZTransfer(models.MaxIsingWidth)
		if err != nil {
			t.Fatal(err)
		}
		base := make([]float64, 16)
		for i := range base {
			base[i] = 0.3 * float64(i%5-2)
		}
		for _, b := range [][]float64{nil, base} {
			p, err := inference.NewIsingPath(m, b)
			if err != nil {
				t.Fatal(err)
			}
			res, err := AIS{Runs: 200, Betas: inference.LinearSchedule(300), Seed: 4}.Run(p)
			if err != nil {
				t.Fatal(err)
			}
			if !(res.LogZLo3 <= exact && exact <= res.LogZHi3) {
				t.Errorf("%s base %v: AIS %.4f [%.4f, %.4f], exact %.4f", m.Label(), b != nil, res.LogZ, res.LogZLo3, res.LogZHi3, exact)
			}
			if res.ESS < 100 {
				t.Errorf("%s: ESS %.1f of 200", m.Label(), res.ESS)
			}
		}
	}
}

// TestIsingAISUnbiased: with K = 1, 2 and 3 intermediate steps the mean
// AIS weight equals Z/Z_0 (docs/methods.md#testing): the mean of w/(Z/Z_0) over many runs
// is 1 within 4 standard errors, all in log space.
func TestIsingAISUnbiased(t *testing.T) {
	for _, sp := range []models.Spins{models.SpinsPM1, models.Spins01} {
		m := isingModel(3, 3, sp, 0.5, 31)
		exact, err := m.LogZEnum(20, 0)
		if err != nil {
			t.Fatal(err)
		}
		base := []float64{0.5, -0.5, 0, 1, -1, 0.2, 0, 0, 0.7}
		for _, b := range [][]float64{nil, base} {
			for _, K := range []int{1, 2, 3} {
				p, _ := inference.NewIsingPath(m, b)
				res, err := AIS{Runs: 20000, Betas: inference.LinearSchedule(K), Seed: uint64(K)}.Run(p)
				if err != nil {
					t.Fatal(err)
				}
				ratio := exact - p.LogZ0()
				lw := make([]float64, len(res.LogW))
				for i, l := range res.LogW {
					lw[i] = l - ratio
				}
				st := nmath.Summarise(lw)
				// |mean − 1| in log space: log|e^{LogMean} − 1| vs log(4·SE).
				dev := nmath.LogSubExp(max(st.LogMean, 0), min(st.LogMean, 0))
				if dev > st.LogStdErr+math.Log(4) {
					t.Errorf("%s base %v K=%d: mean normalised weight %.4f, SE %.4f", m.Label(), b != nil, K, math.Exp(st.LogMean), math.Exp(st.LogStdErr))
				}
				// Power: these paths give SE 0.003–0.019 with 20,000 runs;
				// a noisier estimator would pass the 4σ check too easily.
				if se := math.Exp(st.LogStdErr); se > 0.03 {
					t.Errorf("%s base %v K=%d: SE %.4f of the mean normalised weight is above 0.03", m.Label(), b != nil, K, se)
				}
			}
		}
	}
}
