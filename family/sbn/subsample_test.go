package sbn_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	fsbn "github.com/logz-ml/logz/family/sbn"
	belief "github.com/logz-ml/logz/sbn"
)

type exampleRows [][]uint8

func (r exampleRows) Len() int          { return len(r) }
func (r exampleRows) Row(n int) []uint8 { return r[n] }

// randomNet is a 6-3 SBN with N(0, 1) parameters, with a recognition
// network when rec.
func randomNet(rec bool) *belief.Net {
	rng := rand.New(rand.NewPCG(4, 1))
	n := belief.New([]int{6, 3}, false)
	fill := func(x []float64) {
		for i := range x {
			x[i] = rng.NormFloat64()
		}
	}
	fill(n.B[0])
	fill(n.B[1])
	fill(n.W[1])
	if rec {
		n.Rec = belief.NewRecognition(n.Sizes, false)
		fill(n.Rec.R[1])
		fill(n.Rec.C[1])
	}
	return n
}

// TestSubsampleExtended pins issue 25, item 4 for sbn: is and ais on a
// random subsample of the split are extended to the whole split by a
// control variate — exact when an earlier exact entry computed it, else IS
// with the recognition network (or, without one, a one-chain AIS) with a
// few draws on every example — so that they are comparable with exact's
// whole-split mean; the rows keep the subsample's own mean and exact's on
// it. Mutation checked: making ExtendSubsample return before extending
// fails it.
func TestSubsampleExtended(t *testing.T) {
	var x exampleRows
	for c := range 64 {
		v := make([]uint8, 6)
		for i := range v {
			v[i] = uint8(c >> i & 1)
		}
		x = append(x, v)
	}
	is := family.Configured{Name: "is", Settings: &fsbn.ISSettings{Samples: 500, Examples: 16}}
	ais := family.Configured{Name: "ais", Settings: &fsbn.AISSettings{Chains: 8, Betas: 100, Examples: 16}}
	exact := fsbn.SBN.Entry("exact")
	for _, c := range []struct {
		name string
		rec  bool
		ests []family.Configured
		cv   map[string]string
	}{
		{"exact first: X = exact", true, []family.Configured{exact, is, ais},
			map[string]string{"is": estim.ExactX, "ais": estim.ExactX}},
		{"exact last: X = IS with the recognition network", true, []family.Configured{is, ais, exact},
			map[string]string{"is": "IS with the recognition network, 10 proposals per example", "ais": "IS with the recognition network, 10 proposals per example"}},
		{"no recognition network: X = a one-chain AIS", false, []family.Configured{ais, exact},
			map[string]string{"ais": "AIS with 1 chain × 20 β per example"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := evalenv.Env{Experiment: "t", Stage: report.StageFinal, Seed: 9, Splits: []evalenv.Split{{Name: "test", Data: x}}}
			rows, err := env.Run(fsbn.SBN, randomNet(c.rec), c.ests)
			if err != nil {
				t.Fatal(err)
			}
			var ex report.Row
			for _, r := range rows {
				if r.Estimator == "exact" {
					ex = r
				}
			}
			for _, r := range rows {
				want, ok := c.cv[r.Estimator]
				if !ok {
					continue
				}
				if r.ControlVariate != want || r.NExamples != 16 || r.SplitExamples != 64 || r.SubsampleMean == nil {
					t.Errorf("%s: control_variate %q (want %q), n %d of %d, subsample_mean %v", r.Estimator, r.ControlVariate, want, r.NExamples, r.SplitExamples, r.SubsampleMean)
				}
				// (The random recognition network is a poor proposal, which
				// the ESS warning of is says; nothing else may warn.)
				for _, w := range r.Warnings {
					if !strings.Contains(w, "effective sample size") {
						t.Errorf("%s warns: %v", r.Estimator, w)
					}
				}
				if d := *r.MeanLoglik - *ex.MeanLoglik; math.Abs(d) > 4**r.LoglikSE+0.02 || d > report.Tolerance(*r.LoglikSE, *ex.MeanLoglik) {
					t.Errorf("%s %.4f ± %.4f, exact %.4f on the whole split", r.Estimator, *r.MeanLoglik, *r.LoglikSE, *ex.MeanLoglik)
				}
				if !strings.Contains(strings.Join(r.Notes, "\n"), "extended to all 64 by the control variate X = "+want) {
					t.Errorf("%s notes: %q", r.Estimator, r.Notes)
				}
			}
		})
	}
}

// TestFinishChecksLowerBounds: the family's Finish warns on an is, ais or
// mf-bound row above the exact row listed after it (so never compared
// example by example) beyond noise. Mutations checked: dropping the Finish
// fails it, and so does leaving mf-bound out of its check.
func TestFinishChecksLowerBounds(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, fam := range []*family.Family{fsbn.SBN, fsbn.ARSBN} {
		base := report.Row{Experiment: "e", Stage: report.StageFinal, Epoch: 1, Split: "test", NExamples: 100}
		is, ais, ex := base, base, base
		is.Estimator, is.MeanLoglik, is.LoglikSE = "is", f(-9.2), f(0.01)
		is.SplitExamples, is.NExamples, is.ControlVariate = 100, 10, "IS with the recognition network, 10 proposals per example"
		ais.Estimator, ais.MeanLoglik, ais.LoglikSE = "ais", f(-9.95), f(0.2)
		ex.Estimator, ex.MeanLoglik, ex.LoglikSE = "exact", f(-9.9), f(0.2)
		fin, ok := fam.Plugin.(evalenv.Finisher)
		if !ok {
			t.Fatalf("%s has no Finish", fam.Name)
		}
		mf := base
		mf.Estimator, mf.MeanLoglik, mf.LoglikSE = "mf-bound", f(-8.9), f(0.2)
		rows := fin.Finish(nil, []report.Row{is, ais, mf, ex}, nil)
		if len(rows[0].Warnings) != 1 || !strings.Contains(rows[0].Warnings[0], "is is 0.70 nats above exact") {
			t.Errorf("%s: is warnings %q", fam.Name, rows[0].Warnings)
		}
		if len(rows[2].Warnings) != 1 || !strings.Contains(rows[2].Warnings[0], "mf-bound is 1.00 nats above exact") {
			t.Errorf("%s: mf-bound warnings %q", fam.Name, rows[2].Warnings)
		}
		if len(rows[1].Warnings)+len(rows[3].Warnings) > 0 {
			t.Errorf("%s: ais %q exact %q", fam.Name, rows[1].Warnings, rows[3].Warnings)
		}
	}
}
