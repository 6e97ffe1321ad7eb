package train

import (
	"math"
	"testing"

	"github.com/logz-ml/logz/models"
)

// TestFastUpdateMatchesReference: with the reference's draws (legacyDraws),
// the row-sum/scatter-add update agrees with the update before the rewrite
// (rbm_ref_test.go) to 1e-12 relative over several updates, for CD-k and
// PCD, k = 1 and 3, with and without input scales, on binary and real data.
func TestFastUpdateMatchesReference(t *testing.T) {
	old := legacyDraws
	legacyDraws = true
	defer func() { legacyDraws = old }()
	data := mnistLike(60)
	for i := range data {
		data[i] = data[i][:40]
	}
	real := &realRows{d: 40, data: make([]float32, 60*40)}
	for i := range real.data {
		real.data[i] = float32(0.5 + 0.45*math.Sin(float64(7*i+3)))
	}
	for _, c := range []struct {
		pcd      bool
		k        int
		up, down float64
		realData bool
	}{{false, 1, 0, 0, false}, {true, 1, 0, 0, false}, {false, 3, 2, 0, false}, {true, 3, 0, 2, false}, {true, 1, 0, 0, true}, {false, 2, 2, 2, true}} {
		var d Data = data
		if c.realData {
			d = real
		}
		mk := func() *RBMTrainer {
			tr, err := NewRBMTrainer(models.NewRBM(40, 30), RBMOptions{
				Persistent: c.pcd, Chains: 35, BatchSize: 60, WeightDecay: 1e-3, UpScale: c.up, DownScale: c.down,
				Schedule: constSchedule{k: c.k, lr: 0.1, mom: 0.5}, Workers: 2,
			}, 7)
			if err != nil {
				t.Fatal(err)
			}
			tr.InitParams(0.3, nil)
			tr.setup()
			return tr
		}
		a, b := mk(), mk()
		idx := make([]int, 60)
		for i := range idx {
			idx[i] = i
		}
		for u := range 5 {
			sa := a.refBatch(d, idx[:50], c.k, 0.1, 0.5)
			sb := b.batch(d, idx[:50], c.k, 0.1, 0.5)
			if !closeRel(sa, sb, 1e-12) {
				t.Fatalf("%+v update %d: reconstruction error %v, reference %v", c, u, sb, sa)
			}
			for _, p := range [][2][]float64{{a.M.W, b.M.W}, {a.M.VBias, b.M.VBias}, {a.M.HBias, b.M.HBias}, {a.velW, b.velW}, {a.chains, b.chains}} {
				for i := range p[0] {
					if !closeRel(p[0][i], p[1][i], 1e-12) {
						t.Fatalf("%+v update %d: entry %d is %v, reference %v", c, u, i, p[1][i], p[0][i])
					}
				}
			}
		}
	}
}

// closeRel reports |a−b| ≤ tol·max(|a|,|b|,1e-3): relative, with an
// absolute floor for entries near 0 (a weight of 1e-3 is far below the
// scale of the parameters).
func closeRel(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*max(math.Abs(a), math.Abs(b), 1e-3)
}
