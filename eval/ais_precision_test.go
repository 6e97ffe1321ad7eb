package eval

import (
	"math"
	"testing"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/kernel"
	"github.com/logz-ml/logz/models"
)

// TestAISFloat32Paired runs AIS in float64 and in float32 with the same
// seeds (the same uniforms drive both chains: they follow one trajectory
// until a draw falls within rounding of its threshold) on models whose
// log Z is known exactly, and compares them run by run: the mean paired
// difference of the log weights, d_c = log w_c(float32) − log w_c(float64),
// must be within 4 of its own standard errors, or below a hundredth of the
// estimator's standard error of log Ẑ, whichever is larger; and both
// estimates must have the exact log Z inside their ±3σ bands. The models: a
// 784×12 RBM (784-term sums, as on MNIST) with small weights and a 20×16 RBM
// with large ones (|x| in the tens, where float32 rounding is largest).
func TestAISFloat32Paired(t *testing.T) {
	if testing.Short() {
		t.Skip("paired AIS runs")
	}
	for _, c := range []struct {
		name string
		m    *models.RBM
		runs int
		K    int
	}{
		{"784x12", testRBM(784, 12, 0.1, 1, 51), 200, 500},
		{"20x16", testRBM(20, 16, 1.5, 1, 52), 1000, 300},
	} {
		lz := exactLogZ(t, c.m)
		var res [2]AISResult
		for k, prec := range []kernel.Precision{kernel.Float64, kernel.Float32} {
			r, err := AIS{Runs: c.runs, Betas: inference.LinearSchedule(c.K), Seed: 5, Precision: prec}.LogZ(c.m)
			if err != nil {
				t.Fatal(err)
			}
			if r.Precision != prec {
				t.Fatalf("%s: ran in %s, asked for %s", c.name, r.Precision, prec)
			}
			if !(r.LogZLo3 <= lz && lz <= r.LogZHi3) {
				t.Errorf("%s %s: exact log Z %.4f outside [%.4f, %.4f]", c.name, prec, lz, r.LogZLo3, r.LogZHi3)
			}
			res[k] = r
		}
		d := make([]float64, c.runs)
		same := 0
		for i := range d {
			d[i] = res[1].LogW[i] - res[0].LogW[i]
			if math.Abs(d[i]) < 1e-3 {
				same++
			}
		}
		mean, se := meanSE(d)
		estSE := res[0].LogZHi1 - res[0].LogZ
		t.Logf("%s: log Z exact %.4f, float64 %.4f, float32 %.4f (SE %.3g); paired log-weight difference %.3g ± %.2g; %d of %d runs within 1e-3",
			c.name, lz, res[0].LogZ, res[1].LogZ, estSE, mean, se, same, c.runs)
		if math.Abs(mean) > max(4*se, 0.01*estSE) {
			t.Errorf("%s: float32 − float64 log weights differ by %.3g ± %.2g on average (estimator SE %.3g)", c.name, mean, se, estSE)
		}
	}
}
