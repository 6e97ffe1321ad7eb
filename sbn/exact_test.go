package sbn

import (
	"math"
	"strings"
	"testing"

	"github.com/logz-ml/logz/internal/nmath"
)

// estRows is a set of examples backed by rows.
type estRows [][]uint8

func (r estRows) Len() int          { return len(r) }
func (r estRows) Row(n int) []uint8 { return r[n] }

// allVisible returns every visible vector of a net with D visible units.
func allVisible(D int) estRows {
	var r estRows
	for code := 0; code < 1<<D; code++ {
		row := make([]uint8, D)
		for i := range row {
			row[i] = uint8(code >> i & 1)
		}
		r = append(r, row)
	}
	return r
}

// bruteLogProbs returns log Σ_z p(x, z) for every visible vector x (in
// the order of allVisible) by LogJoint over every joint state.
func bruteLogProbs(n *Net) []float64 {
	sc := n.NewScratch()
	lps := make([][]float64, 1<<n.Sizes[0])
	allStates(n, func(h [][]float64) {
		code := 0
		for i, v := range h[0] {
			code |= int(v) << i
		}
		lps[code] = append(lps[code], n.LogJoint(h, 1, sc))
	})
	out := make([]float64, len(lps))
	for i, l := range lps {
		out[i] = nmath.LogSumExp(l)
	}
	return out
}

// TestExactAgainstBruteForce: ExactLogProb equals the brute-force sum of
// the joint over (x, z), for SBNs and ARSBNs with one and two latent
// layers, and the p(x) sum to 1. The 3-7-6 nets enumerate 2^13 states, so
// the Gray-code path crosses a recomputation of the inputs.
func TestExactAgainstBruteForce(t *testing.T) {
	cases := append(tiny[:len(tiny):len(tiny)],
		struct {
			name  string
			sizes []int
			ar    bool
		}{"sbn 3-7-6", []int{3, 7, 6}, false},
		struct {
			name  string
			sizes []int
			ar    bool
		}{"arsbn 3-7-6", []int{3, 7, 6}, true})
	for _, c := range cases {
		n := randomNet(c.sizes, c.ar, 1.5, 7)
		x := allVisible(c.sizes[0])
		got, err := ExactLogProb(n, x, 20, nil)
		if err != nil {
			t.Fatal(err)
		}
		brute := bruteLogProbs(n)
		for i, row := range x {
			if want := brute[i]; math.Abs(got[i]-want) > 1e-10 {
				t.Errorf("%s: x = %v: exact %.12f, brute force %.12f", c.name, row, got[i], want)
			}
		}
		if z := nmath.LogSumExp(got); math.Abs(z) > 1e-10 {
			t.Errorf("%s: log Σ_x p(x) = %g, want 0", c.name, z)
		}
	}
}

// TestExactRefusesLarge: more latent units than maxUnits is an error that
// names both; the progress reports reach the total.
func TestExactRefusesLarge(t *testing.T) {
	n := randomNet([]int{3, 2, 2}, false, 1, 1)
	_, err := ExactLogProb(n, allVisible(3), 3, nil)
	if err == nil || !strings.Contains(err.Error(), "2^4 latent states; more than max_units = 3") {
		t.Errorf("got %v", err)
	}
	var last, total int64
	if _, err := ExactLogProb(n, allVisible(3), 4, func(d, tot int64) { last, total = max(last, d), tot }); err != nil {
		t.Fatal(err)
	}
	if last != 8*16 || total != 8*16 {
		t.Errorf("progress ended at %d of %d, want 128 of 128", last, total)
	}
	if _, err := ExactLogProb(n, estRows{{0, 2, 1}}, 4, nil); err == nil || err.Error() != "sbn: example 0, value 1 is 2; want 0 or 1" {
		t.Errorf("bad value: %v", err)
	}
}
