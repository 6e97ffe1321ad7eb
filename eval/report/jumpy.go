package report

import (
	"fmt"
	"math"
	"slices"
)

// The rule for per-epoch curves whose points jump by more than their bars
// allow: among the per-epoch estimates of one estimator on one split of an
// experiment that carry an error bar (AIS's from log(Ẑ ± 3σ̂), RAISE's and
// CSL's ± 3 standard errors; loglikBar), at least JumpyMinPoints of them,
// the median absolute change between consecutive epochs exceeds
// JumpyFactor times the median half-width of the ±3σ̂ bars.
//
// Why: if σ̂ were the estimates' true error and the model stood still, the
// change between two epochs would be the difference of two independent
// errors, of standard deviation √2·σ, whose median absolute value is
// 0.67·√2·σ ≈ 0.95σ — about a third of the ±3σ̂ half-width. A median
// change of 3 half-widths is 9σ̂, nine times what noise with honest bars
// gives, and ten times what it gives half the time; the model's own
// learning moves the curve that fast only early in training, which the
// median over the whole curve discounts. On MNIST the per-epoch AIS of
// 20 runs × 1,000 β swings 5–10 nats between epochs with bars of ±1 nat:
// its σ̂, the spread of a few heavy-tailed importance weights, misses
// most of its error.
const (
	JumpyFactor    = 3
	JumpyMinPoints = 4
)

// Jumpy is a per-epoch curve the rule flags.
type Jumpy struct {
	Experiment, Label, Split string
	// Points is the number of per-epoch estimates with a bar, at Epochs.
	Points int
	Epochs []int
	// MedianChange is the median |change| between consecutive estimates,
	// MedianHalfWidth the median half-width of their bars, in nats.
	MedianChange, MedianHalfWidth float64
}

// JumpyText is the start of every Jumpy warning (tests and the figure
// captions look for it).
const JumpyText = "consecutive per-epoch estimates differ by far more than their bars"

// Warning says what the rule found and what it means.
func (j Jumpy) Warning() string {
	return fmt.Sprintf("%s: %s — a median change of %.2f nats between epochs, %.1f× the median ±3σ̂ half-width %.2f (rule: more than %d×, over %d estimates): σ̂ of a small AIS (few runs) underestimates its error, so changes of this size between epochs may be noise, not learning; judge the curve by its trend and by the final trusted value",
		j.Label, JumpyText, j.MedianChange, j.MedianChange/j.MedianHalfWidth, j.MedianHalfWidth, JumpyFactor, j.Points)
}

// JumpyCurves applies the rule to every per-epoch curve of the rows, in
// the order of their experiments, then of first appearance.
func JumpyCurves(rows []Row) []Jumpy {
	type key struct{ exp, label, split string }
	type point struct{ epoch, y, half float64 }
	var order []key
	points := map[key][]point{}
	for i := range rows {
		r := &rows[i]
		if r.Stage != StageEpoch || r.MeanLoglik == nil {
			continue
		}
		lo, hi := loglikBar(r)
		if lo == nil || hi == nil || math.IsNaN(*r.MeanLoglik) {
			continue
		}
		k := key{r.Experiment, rowLabel(r), r.Split}
		if _, ok := points[k]; !ok {
			order = append(order, k)
		}
		if slices.ContainsFunc(points[k], func(p point) bool { return p.epoch == float64(r.Epoch) }) {
			continue // the first row of an epoch, as the figures draw it
		}
		points[k] = append(points[k], point{float64(r.Epoch), *r.MeanLoglik, (*hi - *lo) / 2})
	}
	var out []Jumpy
	for _, exp := range Experiments(rows) {
		for _, k := range order {
			ps := points[k]
			if k.exp != exp || len(ps) < JumpyMinPoints {
				continue
			}
			slices.SortStableFunc(ps, func(a, b point) int { return int(a.epoch - b.epoch) })
			changes := make([]float64, len(ps)-1)
			halves := make([]float64, len(ps))
			for i, p := range ps {
				halves[i] = p.half
				if i > 0 {
					changes[i-1] = math.Abs(p.y - ps[i-1].y)
				}
			}
			mc, mh := median(changes), median(halves)
			if mh > 0 && mc > JumpyFactor*mh {
				j := Jumpy{Experiment: k.exp, Label: k.label, Split: k.split, Points: len(ps), MedianChange: mc, MedianHalfWidth: mh}
				for _, p := range ps {
					j.Epochs = append(j.Epochs, int(p.epoch))
				}
				out = append(out, j)
			}
		}
	}
	return out
}

// median returns the median of x (the mean of the middle two for an even
// count); NaN for none.
func median(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	s := slices.Clone(x)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
