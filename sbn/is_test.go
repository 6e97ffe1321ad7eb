package sbn

import (
	"math"
	"strings"
	"testing"
)

// meanWeight returns the mean of e^{lw} and its standard error, in
// probability space.
func meanWeight(lw []float64) (mean, se float64) {
	var s, s2 float64
	for _, v := range lw {
		w := math.Exp(v)
		s += w
		s2 += w * w
	}
	m := float64(len(lw))
	mean = s / m
	return mean, math.Sqrt((s2/m - mean*mean) / (m - 1))
}

// copies returns m copies of row.
func copies(row []uint8, m int) estRows {
	r := make(estRows, m)
	for i := range r {
		r[i] = row
	}
	return r
}

// TestISUnbiased: the IS estimate p̂(x) = e^{LogP} (a mean of S = 3
// weights) is unbiased for p(x): over many independent estimates (one per
// copy of x, each example has its own stream) its mean is p(x) within 4
// standard errors of that mean. Omitting −log S would make it 3 p(x).
func TestISUnbiased(t *testing.T) {
	for _, c := range tiny {
		n := randomNet(c.sizes, c.ar, 1.5, 11)
		x := []uint8{1, 0, 1}
		exact, err := ExactLogProb(n, estRows{x}, 20, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := IS{Samples: 3, Seed: 5}.LogProb(n, copies(x, 20000))
		if err != nil {
			t.Fatal(err)
		}
		mean, se := meanWeight(r.LogP)
		p := math.Exp(exact[0])
		if math.Abs(mean-p) > 4*se {
			t.Errorf("%s: mean IS estimate %.5f ± %.5f, exact p(x) %.5f (%.1f standard errors)", c.name, mean, se, p, (mean-p)/se)
		}
		// Power: relative standard error 0.013–0.030 with 20,000 estimates
		// here; a noisier estimator would pass the 4σ check too easily.
		if se > 0.05*p {
			t.Errorf("%s: standard error %.5f of the mean estimate is more than 5%% of p(x) %.5f", c.name, se, p)
		}
		if r.MinESS < 1 || r.MinESS > 3 {
			t.Errorf("%s: min ESS %g outside [1, 3]", c.name, r.MinESS)
		}
	}
}

// TestISConverges: with many samples (20 blocks, merged) and a
// proposal close to uniform (a random recognition net of scale 0.3), IS is
// within 4 standard errors of exact, the relative standard error of the
// mean weight estimated from the ESS as √(1/ESS − 1/S), and that is small.
func TestISConverges(t *testing.T) {
	n := randomNet([]int{3, 2, 2}, true, 1, 12)
	n.Rec = randomNet([]int{3, 2, 2}, true, 0.3, 13).Rec
	x := allVisible(3)
	exact, _ := ExactLogProb(n, x, 20, nil)
	const S = 20000
	r, err := IS{Samples: S, Seed: 1}.LogProb(n, x)
	if err != nil {
		t.Fatal(err)
	}
	for i := range x {
		tol := 4 * math.Sqrt(max(1/r.ESS[i]-1.0/S, 0))
		if d := r.LogP[i] - exact[i]; math.Abs(d) > tol || tol > 0.1 {
			t.Errorf("x = %v: IS %.4f, exact %.4f, 4 SE = %.4f", x[i], r.LogP[i], exact[i], tol)
		}
	}
}

// TestISNeedsRecognition: a net without a recognition network is refused
// with a message that says what is missing.
func TestISNeedsRecognition(t *testing.T) {
	n := randomNet([]int{3, 2}, false, 1, 1)
	n.Rec = nil
	_, err := IS{Samples: 10}.LogProb(n, allVisible(3))
	if err == nil || !strings.Contains(err.Error(), "no recognition network") {
		t.Errorf("got %v", err)
	}
}
