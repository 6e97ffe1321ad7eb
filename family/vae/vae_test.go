package vae

import (
	"math"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/internal/brute"
	"github.com/logz-ml/logz/models"
	"github.com/logz-ml/logz/models/modeltest"
)

// tinyVAE is modeltest.RandomVAE: X = 6, Z = 4, one hidden layer of 5, and an
// RBM(4, priorHidden) prior (0: a Bernoulli prior), every parameter N(0, scale²).
func tinyVAE(t *testing.T, priorHidden int, seed uint64, scale float64) *models.VAE {
	t.Helper()
	m, err := modeltest.RandomVAE(priorHidden, seed, scale)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

type rows [][]uint8

func (r rows) Len() int          { return len(r) }
func (r rows) Row(n int) []uint8 { return r[n] }

// allX is every x ∈ {0,1}^6.
func allX() rows {
	var x rows
	for c := range 1 << 6 {
		x = append(x, brute.Bits(c, 6))
	}
	return x
}

// bruteLogP is log p(x) by direct enumeration (modeltest.VAE).
func bruteLogP(m *models.VAE, x []uint8) float64 {
	lu, logZ := modeltest.VAE(m, x)
	return lu - logZ
}

// exactELBO is E_q(z|x)[log p(x|z) + log p(z) − log q(z|x)] by enumerating
// z, with log p(z) = log p̃(z) − log Z.
func exactELBO(m *models.VAE, x []uint8, logZ float64) float64 {
	s := m.NewScratch()
	Z := m.NumLatent()
	kappa := append([]float64(nil), m.EncoderLogits(s, x)...)
	e := 0.0
	for zc := range 1 << Z {
		z := brute.Bits(zc, Z)
		lq := models.BernoulliLogProb(z, kappa)
		e += math.Exp(lq) * (m.LogLikelihood(s, x, z) + m.LogPrior(s, z) - logZ - lq)
	}
	return e
}

// evaluate runs the family's estimators on split "test" of x.
func evaluate(t *testing.T, m *models.VAE, x rows, seed uint64, ests ...family.Configured) map[string]report.Row {
	t.Helper()
	env := evalenv.Env{Experiment: "t", Stage: report.StageFinal, Seed: seed, Splits: []evalenv.Split{{Name: "test", Data: x}}}
	rs, err := env.Run(VAE, m, ests)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]report.Row{}
	for _, r := range rs {
		out[r.Estimator] = r
	}
	return out
}

// TestExactMatchesBruteForce: exact's per-example log p(x) (2^Z terms, the
// prior's exact log Z subtracted) equals the double enumeration over z and
// h, for an RBM and a Bernoulli prior (per example: eval's
// TestVAEExactLogUnnormMatchesBruteForce); the exact row's mean is their mean.
// Mutation checked: dropping "lp[n] -= z.value" in Exact.Run fails it.
func TestExactMatchesBruteForce(t *testing.T) {
	x := allX()
	for _, H := range []int{3, 0} {
		m := tinyVAE(t, H, 11, 1.0)
		r := evaluate(t, m, x, 1, VAE.Entry("exact"))["exact"]
		want := 0.0
		for n := range x {
			want += bruteLogP(m, x[n])
		}
		want /= float64(len(x))
		if math.Abs(*r.MeanLoglik-want) > 1e-10 {
			t.Errorf("H=%d: exact mean %.12f, brute force %.12f", H, *r.MeanLoglik, want)
		}
	}
}

// TestEstimatorsAgainstExact: on every x of a tiny VAE with an RBM prior,
// the is row agrees with exact (K = 2000 proposals: its bias is far below
// its noise), the elbo row agrees with the ELBO computed by enumerating z
// and lies below exact, IS lies above ELBO, every row carries the prior's
// exact log Z, and nothing warns. Mutations checked: dropping "lp[n] -=
// z.value" in sampled fails it (is and elbo high by log Z ≈ 4 nats, and
// is warns above exact); using MeanLogW for is fails "IS ≥ ELBO".
func TestEstimatorsAgainstExact(t *testing.T) {
	m := tinyVAE(t, 3, 7, 1.0)
	x := allX()
	is := family.Configured{Name: "is", Settings: &ISSettings{Samples: 2000, PriorLogZ: defaultPriorLogZ()}}
	elbo := family.Configured{Name: "elbo", Settings: &ISSettings{Samples: 200, PriorLogZ: defaultPriorLogZ()}}
	r := evaluate(t, m, x, 3, VAE.Entry("exact"), is, elbo)
	ex, ri, re := r["exact"], r["is"], r["elbo"]
	logZ := *ex.LogZ
	wantELBO := 0.0
	for n := range x {
		e := exactELBO(m, x[n], logZ)
		if lp := bruteLogP(m, x[n]); e > lp+1e-12 {
			t.Errorf("x=%v: ELBO %.6f above log p(x) %.6f", x[n], e, lp)
		}
		wantELBO += e
	}
	wantELBO /= float64(len(x))
	for _, row := range []report.Row{ri, re} {
		if row.LogZ == nil || *row.LogZ != logZ || row.ExactLogZ == nil {
			t.Errorf("%s: log Z %v, want the exact %.6f", row.Estimator, row.LogZ, logZ)
		}
		if len(row.Warnings) > 0 {
			t.Errorf("%s warns: %v", row.Estimator, row.Warnings)
		}
	}
	// The per-example noise of is and elbo is below the spread over
	// examples, so the row's standard error bounds it.
	if d := *ri.MeanLoglik - *ex.MeanLoglik; math.Abs(d) > 4**ri.LoglikSE || d > 0.02 {
		t.Errorf("is %.4f, exact %.4f (SE %.4f)", *ri.MeanLoglik, *ex.MeanLoglik, *ri.LoglikSE)
	}
	if d := *re.MeanLoglik - wantELBO; math.Abs(d) > 4**re.LoglikSE {
		t.Errorf("elbo %.4f, enumerated ELBO %.4f (SE %.4f)", *re.MeanLoglik, wantELBO, *re.LoglikSE)
	}
	if !(*re.MeanLoglik < *ex.MeanLoglik && *re.MeanLoglik < *ri.MeanLoglik) {
		t.Errorf("elbo %.4f should lie below exact %.4f and is %.4f", *re.MeanLoglik, *ex.MeanLoglik, *ri.MeanLoglik)
	}
	if !strings.Contains(strings.Join(ri.Notes, " "), "exact on the same 64 examples") {
		t.Errorf("is notes lack the comparison with exact: %v", ri.Notes)
	}
}

// TestPriorLogZByAIS: with max_units below min(Z, H) the prior's log Z
// comes from AIS, within its ±3σ band of the exact value, and the chi2 row
// of the prior brackets it from above; is's notes show the bracket.
func TestPriorLogZByAIS(t *testing.T) {
	m := tinyVAE(t, 3, 7, 1.0)
	x := allX()
	s := ISSettings{Samples: 500, PriorLogZ: defaultPriorLogZ()}
	s.MaxUnits, s.Runs, s.Betas = 2, 200, 500
	c := estim.DefaultChi2()
	c.Steps, c.Samples = 300, 4000
	r := evaluate(t, m, x, 4, family.Configured{Name: "chi2", Settings: &c}, family.Configured{Name: "is", Settings: &s})
	exact := *evaluate(t, m, x[:1], 1, VAE.Entry("exact"))["exact"].LogZ
	ri, rc := r["is"], r["chi2"]
	if ri.ExactLogZ != nil || ri.LogZLo == nil || !(*ri.LogZLo <= exact && exact <= *ri.LogZHi) {
		t.Errorf("AIS log Z %v [%v, %v], exact %.4f", *ri.LogZ, ri.LogZLo, ri.LogZHi, exact)
	}
	if rc.Split != "" || rc.LogZ == nil || *rc.LogZ < exact-0.05 {
		t.Errorf("chi2 row: split %q log Z %v, exact %.4f", rc.Split, rc.LogZ, exact)
	}
	if ri.LogZBracketHi == nil || *ri.LogZBracketHi != *rc.LogZ || !strings.Contains(strings.Join(ri.Notes, " "), "prior log Z bracket [AIS, χ²]") {
		t.Errorf("is row lacks the χ² bracket: %v", ri.Notes)
	}
}

// TestBadInput: exact of too many latent units and chi2 of a Bernoulli
// prior are infeasible (bad examples: eval's TestVAEBadInput).
func TestBadInput(t *testing.T) {
	big, _ := models.NewVAE(6, 30, []int{5}, 0)
	if err := Exact.Feasible(big, Exact.New()); err == nil || !strings.Contains(err.Error(), "max_units") {
		t.Errorf("exact of Z = 30: %v", err)
	}
	if err := Chi2.Feasible(tinyVAE(t, 0, 1, 1), Chi2.New()); err == nil || !strings.Contains(err.Error(), "Bernoulli prior") {
		t.Errorf("chi2 of a Bernoulli prior: %v", err)
	}
}

// TestLogSpace: with weights of e^−1000 and below (parameters of scale
// 300), exact, is and elbo stay finite, and is stays within its noise of
// exact from below: every logsumexp is shifted by its maximum. Mutation
// checked: an unshifted accumulation (s1 += e^{lw}) in eval's vaeLogAcc.add gives
// −Inf and fails it.
func TestLogSpace(t *testing.T) {
	m := tinyVAE(t, 3, 13, 300)
	x := allX()
	is := family.Configured{Name: "is", Settings: &ISSettings{Samples: 50, PriorLogZ: defaultPriorLogZ()}}
	r := evaluate(t, m, x, 3, VAE.Entry("exact"), is, VAE.Entry("elbo"))
	for _, k := range []string{"exact", "is", "elbo"} {
		if v := *r[k].MeanLoglik; math.IsNaN(v) || math.IsInf(v, 0) || v > -100 {
			t.Errorf("%s: %v, want a finite value far below 0", k, v)
		}
	}
	if *r["is"].MeanLoglik > *r["exact"].MeanLoglik+1e-9 || len(r["is"].Warnings) > 0 {
		t.Errorf("is %.3f above exact %.3f: %v", *r["is"].MeanLoglik, *r["exact"].MeanLoglik, r["is"].Warnings)
	}
}

// TestSubsampleExtended pins issue 25, item 4 for the vae family: is and
// elbo on a random subsample of the split are extended to the whole split
// by a control variate — exact when an earlier exact entry computed it,
// else the same estimator with a few proposals on every example — so that
// their row is comparable with exact's; on one example (no control
// variate possible) the row keeps its own n and exact on the same example,
// and warns that it is one example's estimate.
// Mutation checked: making ExtendSubsample return before extending fails
// it.
func TestSubsampleExtended(t *testing.T) {
	m := tinyVAE(t, 3, 7, 1.0)
	x := allX()
	sub := func(name string, samples, examples int) family.Configured {
		return family.Configured{Name: name, Settings: &ISSettings{Samples: samples, Examples: examples, PriorLogZ: defaultPriorLogZ()}}
	}
	for _, c := range []struct {
		name        string
		exactFirst  bool
		examples    int
		isCV, elbCV string // want control_variate of is and elbo ("" = not extended)
	}{
		{"exact first: X = exact", true, 16, estim.ExactX, estim.ExactX},
		{"exact last: X = the cheap estimator", false, 16, "IS with q(z|x), 10 proposals per example", "ELBO from 1 draw of q(z|x) per example"},
		{"one example: not extended", true, 1, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			ests := []family.Configured{sub("is", 2000, c.examples), sub("elbo", 40, c.examples)}
			if c.exactFirst {
				ests = append([]family.Configured{VAE.Entry("exact")}, ests...)
			} else {
				ests = append(ests, VAE.Entry("exact"))
			}
			r := evaluate(t, m, x, 5, ests...)
			ex := r["exact"]
			for _, k := range []struct {
				row report.Row
				cv  string
			}{{r["is"], c.isCV}, {r["elbo"], c.elbCV}} {
				row := k.row
				if row.NExamples != c.examples || row.SplitExamples != len(x) || row.SubsampleMean == nil {
					t.Fatalf("%s: n_examples %d, split_examples %d, subsample_mean %v", row.Estimator, row.NExamples, row.SplitExamples, row.SubsampleMean)
				}
				if row.ControlVariate != k.cv {
					t.Errorf("%s: control_variate %q, want %q", row.Estimator, row.ControlVariate, k.cv)
				}
				if (row.ExactOnSubsample != nil) != c.exactFirst {
					t.Errorf("%s: exact_on_subsample %v with exact first %v", row.Estimator, row.ExactOnSubsample, c.exactFirst)
				}
				// One example: the only warning says n = 1, no standard error.
				if w := row.Warnings; c.examples == 1 && (len(w) != 1 || !strings.Contains(w[0], "ran on 1 example (n = 1)")) || c.examples > 1 && len(w) > 0 {
					t.Errorf("%s warns: %v", row.Estimator, row.Warnings)
				}
				if k.cv == "" {
					if !strings.HasPrefix(row.SubsampleTag(), "n = 1 of 64; exact ") {
						t.Errorf("%s: tag %q", row.Estimator, row.SubsampleTag())
					}
					continue
				}
				// Extended, the mean is of the whole split: the is row
				// within its error of exact (below it, up to noise), the
				// elbo row below.
				d := *row.MeanLoglik - *ex.MeanLoglik
				if row.Estimator == "is" && (math.Abs(d) > 4**row.LoglikSE+0.02 || d > report.Tolerance(*row.LoglikSE, *ex.MeanLoglik)) {
					t.Errorf("is %.4f ± %.4f, exact %.4f", *row.MeanLoglik, *row.LoglikSE, *ex.MeanLoglik)
				}
				if row.Estimator == "elbo" && d >= 0 {
					t.Errorf("elbo %.4f not below exact %.4f", *row.MeanLoglik, *ex.MeanLoglik)
				}
				if *row.LoglikSE >= *row.SubsampleSE {
					t.Errorf("%s: the control variate did not reduce the standard error: %.4f vs %.4f", row.Estimator, *row.LoglikSE, *row.SubsampleSE)
				}
			}
		})
	}
}

// TestFinishChecksLowerBounds: the family's Finish warns on an is or elbo
// row above the exact row listed after it beyond noise. Mutation checked:
// dropping the CheckLowerBounds call from finish fails it.
func TestFinishChecksLowerBounds(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	base := report.Row{Experiment: "e", Stage: report.StageFinal, Epoch: 1, Split: "test", NExamples: 500}
	elbo, ex := base, base
	elbo.Estimator, elbo.MeanLoglik, elbo.LoglikSE = "elbo", f(-7.0), f(0.01)
	elbo.SplitExamples, elbo.NExamples, elbo.ControlVariate = 500, 50, "ELBO from 1 draw of q(z|x) per example"
	ex.Estimator, ex.MeanLoglik, ex.LoglikSE = "exact", f(-7.45), f(0.1)
	rows := Plugin{}.Finish(nil, []report.Row{elbo, ex}, nil)
	if len(rows[0].Warnings) != 1 || !strings.Contains(rows[0].Warnings[0], "elbo is 0.45 nats above exact") {
		t.Errorf("elbo warnings %q", rows[0].Warnings)
	}
}
