package eval

import (
	"runtime"
	"testing"

	"github.com/logz-ml/logz/inference"
)

// TestLogRatioExactStartPinned pins LogRatio with exact starts to the
// numbers it gave (linux/amd64) before approximate Gibbs starts were added,
// for Workers 1 and 2: the exact path must not change. Mutation check: a
// change to the start's draws or to the seeding of the runs moves every
// number.
func TestLogRatioExactStartPinned(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("pinned on amd64; architectures that fuse multiply-adds may round differently")
	}
	mA, mB := testRBM(12, 8, 0.5, 0.4, 51), testRBM(12, 10, 0.5, 0.4, 52)
	for _, w := range []int{1, 2} {
		r, err := AIS{Runs: 16, Betas: inference.LinearSchedule(200), Seed: 3, Workers: w}.LogRatio(mA, mB)
		if err != nil {
			t.Fatal(err)
		}
		if r.LogRatio != 1.365165884508873 || r.LogZBase != 16.663888168900769 || r.LogZHi3 != 18.166708238097279 {
			t.Errorf("workers %d: log ratio %.17g, log Z_A %.17g, log(Ẑ+3σ̂) %.17g; pinned 1.365165884508873, 16.663888168900769, 18.166708238097279",
				w, r.LogRatio, r.LogZBase, r.LogZHi3)
		}
	}
}
