package rbm

import (
	"math"
	"testing"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/models"
)

// TestDefaultFinalListForeseen: every estimator of an rbm's default final
// list (exact, ais, pll, recon) foresees its work, so the run's ETA covers
// the final evaluation; on the MNIST 784×25 model with 70,000 images the
// reference times are those the benchmarks measured (exact's 2^25·784
// terms 33 s; pll 28 ms per 200 examples), and pll's grows as N·D·(H+82).
// (Mutation: an estimator of the list without Work fails the first check.)
func TestDefaultFinalListForeseen(t *testing.T) {
	m := models.NewRBM(784, 25)
	splits := []int{60000, 10000}
	list := Family.Final()
	secs, unknown := estim.ListWork(Family, m, list, splits, nil)
	if unknown != 0 || !(secs > 0) {
		t.Fatalf("default final list %v: %d estimators cannot foresee their work (%.3g s foreseen)", names(list), unknown, secs)
	}
	work := func(name string, s family.Settings, n ...int) float64 {
		e, _ := Family.Estimator(name)
		return e.Work(m, s, n)
	}
	if w := work("exact", Exact.New()); math.Abs(w-33.1) > 1.5 {
		t.Errorf("exact 784×25: %.3g s foreseen, the benchmark took 33 s", w)
	}
	if w := work("pll", PLL.New(), 200); math.Abs(w-0.028) > 0.01 {
		t.Errorf("pll on 200 examples: %.3g s foreseen, the benchmark took 0.028 s", w)
	}
	if a, b := work("pll", PLL.New(), 1000), work("pll", PLL.New(), 2000); math.Abs((b-nsEntry*1e-9)/(a-nsEntry*1e-9)-2) > 1e-9 {
		t.Errorf("pll's work does not double with the examples: %v, %v", a, b)
	}
	t.Logf("default final list %v on 784×25, %v examples: %.1f s on the reference machine", names(list), splits, secs)
}

func names(list []family.Configured) []string {
	var s []string
	for _, c := range list {
		s = append(s, c.Name)
	}
	return s
}
