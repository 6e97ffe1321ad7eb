package inference

import (
	"fmt"
	"math"
)

// LinearSchedule returns K+1 inverse temperatures β_k = k/K, k = 0…K
// (β_0 = 0 and β_K = 1 exactly). It returns nil for K < 1.
func LinearSchedule(K int) []float64 {
	if K < 1 {
		return nil
	}
	b := make([]float64, K+1)
	for k := range b {
		b[k] = float64(k) / float64(K)
	}
	b[K] = 1
	return b
}

// Schedule2008 returns the schedule of Salakhutdinov & Murray (2008, §5.1):
// 500 values spaced uniformly in [0, 0.5), 4,000 in [0.5, 0.9) and 10,000 in
// [0.9, 1], 14,500 values in all (14,499 transitions), starting at 0 and
// ending exactly at 1. It equals PiecewiseSchedule(14499).
func Schedule2008() []float64 { return PiecewiseSchedule(14499) }

// PiecewiseSchedule returns K+1 inverse temperatures (K transitions) with the
// shape of Schedule2008 scaled to K: n1 = round((K+1)·500/14500) values
// uniformly spaced in [0, 0.5) (0, 0.5/n1, …), n2 = round((K+1)·4000/14500) in
// [0.5, 0.9) and the remaining n3 = K+1−n1−n2 in [0.9, 1], the last being
// exactly 1 (spacing 0.1/(n3−1)). Each segment keeps at least one value (two
// in the last); for K < 3 it returns LinearSchedule(K), and nil for K < 1.
func PiecewiseSchedule(K int) []float64 { return segmentSchedule(K, 500, 4000, 14500) }

// segmentSchedule returns K+1 inverse temperatures spaced uniformly within
// the three segments [0, 0.5), [0.5, 0.9) and [0.9, 1], the segments
// holding about w1/w, w2/w and the rest of the values (at least one, and two
// in the last), the last exactly 1; LinearSchedule(K) for K < 3.
func segmentSchedule(K int, w1, w2, w float64) []float64 {
	if K < 3 {
		return LinearSchedule(K)
	}
	n := K + 1
	n1 := max(1, int(math.Round(float64(n)*w1/w)))
	n2 := max(1, int(math.Round(float64(n)*w2/w)))
	n3 := n - n1 - n2
	for n3 < 2 { // only for tiny K
		if n2 > 1 {
			n2--
		} else {
			n1--
		}
		n3++
	}
	b := make([]float64, 0, n)
	for k := range n1 {
		b = append(b, 0.5*float64(k)/float64(n1))
	}
	for k := range n2 {
		b = append(b, 0.5+0.4*float64(k)/float64(n2))
	}
	for k := range n3 {
		b = append(b, 0.9+0.1*float64(k)/float64(n3-1))
	}
	b[n-1] = 1
	return b
}

// Shape is a spacing of the β_k that scales to any K: the share of the
// values in each of the segments [0, 0.5), [0.5, 0.9) and [0.9, 1] of the
// 2008 schedule's kind.
type Shape struct {
	// Name is how rows and notes call the shape.
	Name string
	// W1, W2, W are the weights of the first two segments out of W; W = 0
	// means uniform spacing (LinearSchedule).
	W1, W2, W float64
}

// Schedule returns the shape's K+1 inverse temperatures.
func (s Shape) Schedule(K int) []float64 {
	if s.W == 0 {
		return LinearSchedule(K)
	}
	return segmentSchedule(K, s.W1, s.W2, s.W)
}

// PilotShapes are the spacings a pilot run chooses among (Salakhutdinov &
// Murray 2008 §5 picked theirs "by quickly running a few preliminary
// experiments" to minimise the variance of the log weights): from the
// 2008 schedule's, which puts 69% of the β in [0.9, 1], through shares
// 60% and 40% there, to the uniform spacing (10%) and one denser still at
// small β (5%).
var PilotShapes = []Shape{
	{Name: "2008", W1: 500, W2: 4000, W: 14500},
	{Name: "segments 10/30/60", W1: 10, W2: 30, W: 100},
	{Name: "segments 15/45/40", W1: 15, W2: 45, W: 100},
	{Name: "linear"},
	{Name: "segments 70/25/5", W1: 70, W2: 25, W: 100},
}

// ValidateSchedule checks that betas is a usable annealing schedule: at least
// two values, β_0 = 0, β_K = 1, strictly increasing, all finite. The error
// names the first offending index.
func ValidateSchedule(betas []float64) error {
	if len(betas) < 2 {
		return fmt.Errorf("schedule: need at least 2 inverse temperatures (β_0 = 0 … β_K = 1), got %d", len(betas))
	}
	if betas[0] != 0 {
		return fmt.Errorf("schedule: β_0 = %v, want 0", betas[0])
	}
	if last := betas[len(betas)-1]; last != 1 {
		return fmt.Errorf("schedule: last β (index %d) = %v, want 1", len(betas)-1, last)
	}
	for k := 1; k < len(betas); k++ {
		if !(betas[k] > betas[k-1]) || math.IsNaN(betas[k]) {
			return fmt.Errorf("schedule: β_%d = %v does not exceed β_%d = %v; the schedule must be strictly increasing",
				k, betas[k], k-1, betas[k-1])
		}
	}
	return nil
}
