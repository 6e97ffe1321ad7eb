package estim

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family/kit/evalenv"
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
			env := &evalenv.Env{SkipUnshared: c.shard}
			y := lp(c.idx, c.shift)
			st := MeanOf(y)
			row := report.Row{Experiment: "e", Stage: report.StageFinal, Estimator: "is", Split: "test",
				MeanLoglik: report.F(st.Mean), LoglikSE: report.F(st.SE), NExamples: len(c.idx)}
			if err := ExtendSubsample(env, &row, y, c.idx, N, c.exact, c.cheap); err != nil {
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
	env := &evalenv.Env{}
	row := report.Row{Estimator: "ais", NExamples: 2}
	err := ExtendSubsample(env, &row, []float64{-1, -2}, []int{0, 1}, 5, nil, func() (ControlX, error) { return ControlX{}, errors.New("boom") })
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

// TestExtendSubsampleNoisyX: a cheap X so noisy (here exact plus noise of
// sd 5, against a spread of log p of sd 1) that Y − X varies more than Y
// must not widen the error: ExtendSubsample then fits α by least squares,
// whose residual sum of squares is at most Y's in-sample, says so in a note and
// gives no warning; the estimate stays within 4 standard errors of the
// split's mean.
func TestExtendSubsampleNoisyX(t *testing.T) {
	const N, n = 2000, 100
	rng := rand.New(rand.NewPCG(3, 4))
	exact := make([]float64, N)
	x := make([]float64, N)
	for i := range exact {
		exact[i] = -100 + rng.NormFloat64()
		x[i] = exact[i] - 3 + 5*rng.NormFloat64()
	}
	idx := rng.Perm(N)[:n]
	y := make([]float64, n)
	for k, i := range idx {
		y[k] = exact[i] - 0.01
	}
	st := MeanOf(y)
	row := report.Row{Experiment: "e", Stage: report.StageFinal, Estimator: "ais", Split: "test",
		MeanLoglik: report.F(st.Mean), LoglikSE: report.F(st.SE), NExamples: n}
	env := &evalenv.Env{}
	if err := ExtendSubsample(env, &row, y, idx, N, nil, func() (ControlX, error) { return ControlX{X: x, Name: "a noisy bound"}, nil }); err != nil {
		t.Fatal(err)
	}
	if len(row.Warnings) != 0 {
		t.Errorf("warnings %q, want none", row.Warnings)
	}
	if !strings.Contains(strings.Join(row.Notes, "\n"), "α is fitted by least squares") {
		t.Errorf("notes %q do not say α was fitted", row.Notes)
	}
	// The fitted residuals' sum of squares is at most Y's; the fit uses
	// one more degree of freedom (n − 2 against n − 1).
	if lim := st.SE * math.Sqrt(float64(n-1)/float64(n-2)) * (1 + 1e-12); *row.LoglikSE > lim {
		t.Errorf("SE %.4f above the plain mean's %.4f (at most %.4f with the fit's degree of freedom)", *row.LoglikSE, st.SE, lim)
	}
	want := MeanOf(exact).Mean - 0.01
	if d := math.Abs(*row.MeanLoglik - want); d > 4**row.LoglikSE {
		t.Errorf("mean %.4f, the split's %.4f: %.2f SE off", *row.MeanLoglik, want, d / *row.LoglikSE)
	}
	t.Logf("plain %.4f ± %.4f, extended %.4f ± %.4f, split %.4f", st.Mean, st.SE, *row.MeanLoglik, *row.LoglikSE, want)
}

// TestSampleSameEveryEpoch: a run's per-epoch evaluations of a split see
// the same examples (a learning curve compares the model, not the draw),
// and different splits different ones.
func TestSampleSameEveryEpoch(t *testing.T) {
	a, err := (&evalenv.Env{Seed: 9, Epoch: 1}).Sample(evalenv.Split{Name: "test", Data: seqRows(1000)}, 50)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := (&evalenv.Env{Seed: 9, Epoch: 7}).Sample(evalenv.Split{Name: "test", Data: seqRows(1000)}, 50)
	c, _ := (&evalenv.Env{Seed: 9, Epoch: 7}).Sample(evalenv.Split{Name: "train", Data: seqRows(1000)}, 50)
	if !slices.Equal(a, b) {
		t.Errorf("epoch 1 and epoch 7 draw different examples: %v, %v", a[:5], b[:5])
	}
	if slices.Equal(b, c) {
		t.Error("splits 0 and 1 draw the same examples")
	}
}

// seqRows is n examples of one unit.
type seqRows int

func (s seqRows) Len() int          { return int(s) }
func (s seqRows) Row(n int) []uint8 { return []uint8{uint8(n & 1)} }
