package eval

import (
	"testing"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/models"
)

// BenchmarkIsingLogZ5x5 compares, on one 5×5 model (fields in [−1, 1],
// couplings in [−0.5, 0.5], the ising-tracking setting), loopy BP to
// convergence with the AIS of configs/ising-coupling.yaml's per-epoch
// evaluation (11 runs × 100 β) and the transfer-matrix exact log Z.
func BenchmarkIsingLogZ5x5(b *testing.B) {
	m := isingModel(5, 5, models.SpinsPM1, 0.5, 3)
	b.Run("bp", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := DefaultBetheBP.Run(m); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ais-11x100", func(b *testing.B) {
		b.ReportAllocs()
		p, err := inference.NewIsingPath(m, nil)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := (AIS{Runs: 11, Betas: inference.LinearSchedule(100), Seed: 1, Workers: 1}).Run(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("exact-transfer", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := m.LogZTransfer(models.MaxIsingWidth); err != nil {
				b.Fatal(err)
			}
		}
	})
}
