package eval

import (
	"sync/atomic"
	"testing"
)

// BenchmarkExactLogZ784x25 enumerates the 2^25 hidden states of a 784×25 RBM
// (the size of the 2008 paper's CD1(25)) with the benchmark model of benchRBM.
func BenchmarkExactLogZ784x25(b *testing.B) {
	m := benchRBM(784, 25)
	b.ReportAllocs()
	var lz float64
	for b.Loop() {
		var err error
		lz, err = Exact{}.LogZ(m)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(lz, "logZ")
}

// BenchmarkExactLogZ784x25Progress is BenchmarkExactLogZ784x25 with a
// Progress callback (a progress bar's cost: an atomic add per report), to
// compare with the plain walk.
func BenchmarkExactLogZ784x25Progress(b *testing.B) {
	m := benchRBM(784, 25)
	var reports atomic.Int64
	e := Exact{Progress: func(done, total int64) { reports.Add(1) }}
	b.ReportAllocs()
	var lz float64
	for b.Loop() {
		var err error
		lz, err = e.LogZ(m)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(lz, "logZ")
	b.ReportMetric(float64(reports.Load())/float64(b.N), "reports/op")
}
