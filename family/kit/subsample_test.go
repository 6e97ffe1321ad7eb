package kit

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
)

// TestExtendSubsample pins issue 25, item 4: a stochastic lower bound
// evaluated on a random subsample must not sit silently beside whole-split
// values. The split's exact values rise with the index, and the subsample
// is the last half (the "lucky" examples): their plain mean lies far above
// exact's whole-split mean, as IS −9.23 and AIS −9.21 lay above exact
// −9.89. Extended by a control variate the row's mean is the split's again
// (just below exact); where it cannot be extended the row says n of N and
// carries exact on the same examples.
func TestExtendSubsample(t *testing.T) {
	const N = 20
	exact := make([]float64, N)
	for i := range exact {
		exact[i] = -11 + 0.1*float64(i) // whole-split mean −10.05
	}
	exactMean := MeanOf(exact).Mean
	sub := []int{10, 11, 12, 13, 14, 15, 16, 17, 18, 19} // exact's mean on them: −9.55
	lp := func(idx []int, shift float64) []float64 {
		y := make([]float64, len(idx))
		for k, i := range idx {
			y[k] = exact[i] - shift - 0.002*float64(k%2) // a lower bound: a little below exact
		}
		return y
	}
	cheapOK := func() (ControlX, error) {
		x := make([]float64, N)
		for i := range x {
			x[i] = exact[i] - 0.5 // a cheap, looser lower bound
		}
		return ControlX{X: x, Name: "a cheap bound"}, nil
	}
	cheapBad := func() (ControlX, error) {
		x := make([]float64, N)
		x[3] = math.Inf(-1)
		return ControlX{X: x, Name: "a broken bound"}, nil
	}
	for _, c := range []struct {
		name      string
		idx       []int
		shift     float64
		exact     []float64
		cheap     func() (ControlX, error)
		shard     bool
		cv        string  // want ControlVariate ("" = not extended)
		mean      float64 // want MeanLoglik (±1e-9)
		exactSub  bool    // want ExactOnSubsample
		tag, note string  // substrings of SubsampleTag and of the notes
		warn      string  // substring of a warning ("" = none)
	}{
		{name: "whole split: only compared with exact", idx: seq(N), shift: 0.01, exact: exact,
			mean: exactMean - 0.011, note: "exact on the same 20 examples"},
		{name: "lucky subsample, exact known: X = exact", idx: sub, shift: 0.01, exact: exact, cheap: cheapOK,
			cv: ExactX, mean: exactMean - 0.011, exactSub: true, tag: "10 of 20 + cv", note: "extended to all 20 by the control variate X = exact log p(x)"},
		{name: "lucky subsample, no exact: the cheap X", idx: sub, shift: 0.01, cheap: cheapOK,
			cv: "a cheap bound", mean: exactMean - 0.011, tag: "10 of 20 + cv", note: "X = a cheap bound"},
		{name: "one example: n = 1 of 20 and exact on it", idx: []int{19}, shift: 0.01, exact: exact, cheap: cheapOK,
			mean: exact[19] - 0.01, exactSub: true, tag: "n = 1 of 20; exact -9.10", note: "too few for a control variate"},
		{name: "one example above exact: no σ, so the floor, and a warning that says so", idx: []int{19}, shift: -0.05, exact: exact, cheap: cheapOK,
			mean: exact[19] + 0.05, exactSub: true, tag: "n = 1 of 20; exact -9.10", warn: "is 0.05 nats above exact on the same examples, more than the 0.01-nat floor; σ = 0: no spread"},
		{name: "no control variate at all", idx: sub, shift: 0.01,
			mean: -9.55 - 0.011, tag: "n = 10 of 20", note: "no control variate is available"},
		{name: "a non-finite X: the subsample's mean, and a warning", idx: sub, shift: 0.01, cheap: cheapBad,
			mean: -9.55 - 0.011, tag: "n = 10 of 20", warn: "xAll[3] is -Inf"},
		{name: "in a shard nothing is extended (the merge does it)", idx: sub, shift: 0.01, cheap: cheapOK, shard: true,
			mean: -9.55 - 0.011, tag: "n = 10 of 20"},
		{name: "above exact on the same examples beyond noise: a warning", idx: sub, shift: -0.05, exact: exact, cheap: cheapOK,
			cv: ExactX, mean: exactMean + 0.049, exactSub: true, tag: "10 of 20 + cv", warn: "nats above exact on the same examples"},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := &Env{SkipUnshared: c.shard}
			y := lp(c.idx, c.shift)
			st := MeanOf(y)
			row := report.Row{Experiment: "e", Stage: report.StageFinal, Estimator: "is", Split: "test",
				MeanLoglik: report.F(st.Mean), LoglikSE: report.F(st.SE), NExamples: len(c.idx)}
			if err := env.ExtendSubsample(&row, y, c.idx, N, c.exact, c.cheap); err != nil {
				t.Fatal(err)
			}
			if row.ControlVariate != c.cv {
				t.Errorf("control_variate %q, want %q", row.ControlVariate, c.cv)
			}
			if row.MeanLoglik == nil || math.Abs(*row.MeanLoglik-c.mean) > 1e-9 {
				t.Errorf("mean %v, want %.6f", fmtp(row.MeanLoglik), c.mean)
			}
			if got := row.SubsampleTag(); !strings.Contains(got, c.tag) || (c.tag == "") != (got == "") {
				t.Errorf("tag %q, want %q", got, c.tag)
			}
			if (row.ExactOnSubsample != nil) != c.exactSub {
				t.Errorf("exact_on_subsample %v, want set: %v", fmtp(row.ExactOnSubsample), c.exactSub)
			}
			if len(c.idx) < N && (row.SplitExamples != N || row.SubsampleMean == nil || math.Abs(*row.SubsampleMean-st.Mean) > 1e-12) {
				t.Errorf("split_examples %d, subsample_mean %v; want %d, %.6f", row.SplitExamples, fmtp(row.SubsampleMean), N, st.Mean)
			}
			if len(c.idx) == N && (row.SplitExamples != 0 || row.SubsampleMean != nil) {
				t.Errorf("a whole-split row gained subsample fields: %d, %v", row.SplitExamples, fmtp(row.SubsampleMean))
			}
			if c.note != "" && !strings.Contains(strings.Join(row.Notes, "\n"), c.note) {
				t.Errorf("notes %q lack %q", row.Notes, c.note)
			}
			switch ws := strings.Join(row.Warnings, "\n"); {
			case c.warn == "" && ws != "":
				t.Errorf("warnings %q, want none", row.Warnings)
			case !strings.Contains(ws, c.warn):
				t.Errorf("warnings %q lack %q", row.Warnings, c.warn)
			}
			if err := row.Validate(); err != nil {
				t.Error(err)
			}
			// The invariant of the issue: a row whose mean lies above exact's
			// whole-split mean beyond noise either covers the whole split
			// (and then warns) or says in its tag that it does not.
			if *row.MeanLoglik > exactMean+report.Tolerance(0, exactMean) && row.Subsampled() && row.ControlVariate != "" && c.warn == "" {
				t.Errorf("an extended lower bound %.3f above exact %.3f without a warning", *row.MeanLoglik, exactMean)
			}
		})
	}
}

// TestExtendSubsampleCheapError: an error computing the cheap control
// variate is the estimator's error.
func TestExtendSubsampleCheapError(t *testing.T) {
	env := &Env{}
	row := report.Row{Estimator: "ais", NExamples: 2}
	err := env.ExtendSubsample(&row, []float64{-1, -2}, []int{0, 1}, 5, nil, func() (ControlX, error) { return ControlX{}, errors.New("boom") })
	if err == nil || !strings.Contains(err.Error(), "control variate: boom") {
		t.Errorf("error %v", err)
	}
}

func TestCheapDraws(t *testing.T) {
	for _, c := range []struct {
		budget  int64
		N, most int
		want    int
	}{
		{1000 * 10, 10000, 10, 1},    // mnist-vae's epoch elbo: 1 draw
		{1000 * 5000, 10000, 10, 10}, // its final is: capped at 10
		{50 * 500, 1000, 10, 2},      // a tenth of the budget over N
		{100 * 16 * 1000, 1000, 100, 100},
		{0, 0, 10, 1},
	} {
		if got := CheapDraws(c.budget, c.N, c.most); got != c.want {
			t.Errorf("CheapDraws(%d, %d, %d) = %d, want %d", c.budget, c.N, c.most, got, c.want)
		}
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func fmtp(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
