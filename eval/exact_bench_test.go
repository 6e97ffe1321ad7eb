package eval

import "testing"

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
