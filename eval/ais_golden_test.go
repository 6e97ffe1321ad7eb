package eval

import (
	"encoding/binary"
	"hash/fnv"
	"math"
	"testing"

	"github.com/logz-ml/logz/inference"
	"github.com/logz-ml/logz/internal/kernel"
)

// TestAISGoldenBits pins the AIS chains' log weights bit for bit, in both
// precisions, by a hash of their bits: a refactoring of the engines (the
// exp and sigmoid kernels, the row sums, the samplers) must not change
// them. The model has 30 visible and 12 hidden units, so the eight-lane
// float32 kernels run on full blocks and leave a tail for the Go loops,
// which give the same bits (so the hashes hold with the build tag purego
// too). A deliberate change of arithmetic updates the hashes and says so.
func TestAISGoldenBits(t *testing.T) {
	m := testRBM(30, 12, 0.3, 0.5, 46)
	for _, c := range []struct {
		prec kernel.Precision
		want uint64
	}{
		{kernel.Float64, 0x74050d37a629a332},
		{kernel.Float32, 0x7709964d7f00947c},
	} {
		r, err := AIS{Runs: 7, Betas: inference.PiecewiseSchedule(500), Seed: 99, Precision: c.prec, Workers: 2}.LogZ(m)
		if err != nil {
			t.Fatal(err)
		}
		h := fnv.New64a()
		for _, w := range r.LogW {
			h.Write(binary.LittleEndian.AppendUint64(nil, math.Float64bits(w)))
		}
		if got := h.Sum64(); got != c.want {
			t.Errorf("%s: log weights %v hash to %#x, want %#x", c.prec, r.LogW, got, c.want)
		}
	}
}
