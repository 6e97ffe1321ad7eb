package estim

import (
	"strings"
	"testing"

	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/familytest"
)

type problems = familytest.Problems

// TestAnnealLimits: counts that would exhaust memory or run for years are
// reported at their key with the limit, before anything is allocated.
func TestAnnealLimits(t *testing.T) {
	ais := func(edit func(*AIS)) family.Settings {
		a := DefaultAIS()
		edit(&a)
		return &a
	}
	raise := func(edit func(*RAISE)) family.Settings {
		r := DefaultRAISE()
		edit(&r)
		return &r
	}
	cases := []struct {
		name string
		s    family.Settings
		want string
	}{
		{"betas 1e12", ais(func(a *AIS) { a.Betas = 1_000_000_000_000 }),
			"betas: expected at most 10000000 (family.MaxBetas; the papers use at most 100,000), got 1000000000000"},
		{"runs", ais(func(a *AIS) { a.Runs = 1 << 40 }),
			"runs: expected at most 100000 (family.MaxRuns), got 1099511627776"},
		{"runs × betas", ais(func(a *AIS) { a.Runs, a.Betas = 100_000, 1_000_000 }),
			"@runs: runs × betas = 100000 × 1000000 = 100000000000 Gibbs sweeps is more than the limit of 10000000000 (family.MaxSweeps)"},
		{"sampled ais samples", &SampledAIS{AIS: DefaultAIS(), Samples: 1 << 30},
			"samples: expected at most 100000 (family.MaxRuns), got 1073741824"},
		{"raise betas", raise(func(r *RAISE) { r.Betas = 20_000_000 }), "betas: expected at most 10000000 (family.MaxBetas; the papers use at most 100,000), got 20000000"},
		{"raise chains", raise(func(r *RAISE) { r.Chains = 200_000 }), "chains: expected at most 100000 (family.MaxRuns), got 200000"},
		{"raise chains × betas", raise(func(r *RAISE) { r.Chains, r.Betas = 100_000, 200_000 }),
			"@chains: chains × betas = 100000 × 200000 = 20000000000 Gibbs sweeps is more than the limit"},
		{"raise examples × chains", raise(func(r *RAISE) { r.Chains, r.Betas, r.Examples = 100_000, 100, 2000 }),
			"@examples: examples × chains = 2000 × 100000 = 200000000 reverse chains is more than the limit of 134217728 (eval.MaxReverseChains)"},
	}
	for _, c := range cases {
		var p problems
		c.s.Check(&p)
		if got := strings.Join(p, "\n"); !strings.Contains(got, c.want) {
			t.Errorf("%s:\n got %q\nwant …%s…", c.name, got, c.want)
		}
	}
	// The limits themselves are accepted.
	var p problems
	a := DefaultAIS()
	a.Runs, a.Betas = 1000, family.MaxBetas
	a.Check(&p)
	if len(p) > 0 {
		t.Errorf("runs 1000, betas %d: %v", family.MaxBetas, p)
	}
	r := DefaultRAISE()
	r.Chains, r.Examples = 100_000, 1342
	r.Check(&p)
	if len(p) > 0 {
		t.Errorf("raise 1342 × 100000 chains: %v", p)
	}
}
