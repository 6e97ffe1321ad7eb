package rbm

import (
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/familytest"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
)

// sandwichOf returns the rbm's sandwich settings at their defaults, changed
// by set.
func sandwichOf(set func(s *estim.Sandwich[AISSettings, estim.RAISE])) *estim.Sandwich[AISSettings, estim.RAISE] {
	s := Sandwich.New().(*estim.Sandwich[AISSettings, estim.RAISE])
	set(s)
	return s
}

// runSandwich evaluates m on x with exact and the sandwich s; it returns
// exact's test row and the sandwich's rows after the family's Finish step.
func runSandwich(t *testing.T, m *models.RBM, x examples, s *estim.Sandwich[AISSettings, estim.RAISE]) (report.Row, []report.Row) {
	t.Helper()
	var p familytest.Problems
	s.Check(&p)
	if len(p) > 0 {
		t.Fatalf("settings: %v", p)
	}
	env := evalenv.Env{Experiment: "blocks", Stage: report.StageFinal, Epoch: 1, Seed: 11,
		Splits: []evalenv.Split{{Name: "test", Data: x}}, BaseRate: logOdds(x)}
	rows, err := env.Run(Family, m, []family.Configured{{Name: "exact", Settings: Exact.New()}, {Name: "sandwich", Settings: s}})
	if err != nil {
		t.Fatal(err)
	}
	var exact report.Row
	var sw []report.Row
	for _, r := range rows {
		switch {
		case r.Estimator == "exact" && r.Split == "test":
			exact = r
		case r.Round > 0:
			sw = append(sw, r)
		}
	}
	if exact.MeanLoglik == nil || len(sw) == 0 {
		t.Fatalf("rows %+v", rows)
	}
	return exact, sw
}

// TestSandwichStopsWhenClosed: on the 16-mode block RBM, which AIS and
// RAISE from the uniform start anneal badly with few β, the sandwich raises
// K from 10 (×4) until |AIS − RAISE| + σ ≤ 0.1 and stops there, well before
// its budget of 100,000: it ran more than one round and fewer than all,
// each round's pair is reported, only the last says it closed, and that
// final pair brackets exact within 3 combined standard errors, RAISE below
// and AIS above. (Mutation check: judging closure by |gap| − σ instead of
// |gap| + σ stops a round early, with a final gap + σ above the tolerance,
// which the test catches.)
func TestSandwichStopsWhenClosed(t *testing.T) {
	x := make(examples, 40)
	for i := range x {
		x[i] = blockData(1, 0, 0)[0] // 40 copies: RAISE's σ is its own noise
	}
	s := sandwichOf(func(s *estim.Sandwich[AISSettings, estim.RAISE]) {
		s.UntilGap, s.StartBetas, s.MaxBetas, s.Init = 0.1, 10, 100_000, "uniform"
		s.AIS.Runs, s.RAISE.Chains, s.RAISE.Examples = 200, 20, 0
	})
	exact, rows := runSandwich(t, blockRBM(8), x, s)
	last := rows[len(rows)-1].Round
	ks := s.Rounds()
	t.Logf("exact %.3f; rounds %d of %d (K %v)", *exact.MeanLoglik, last, len(ks), ks)
	for _, r := range rows {
		t.Logf("round %d K %d %s %.3f notes %q warnings %q", r.Round, r.Betas, r.Estimator, *r.MeanLoglik, r.Notes, r.Warnings)
	}
	if last < 2 || last >= len(ks) {
		t.Fatalf("the sandwich ran %d of %d rounds: the test should see it loop and stop early", last, len(ks))
	}
	var ais, raise *report.Row
	for i := range rows {
		r := &rows[i]
		if r.Betas != ks[r.Round-1] {
			t.Errorf("round %d row with K = %d, want %d", r.Round, r.Betas, ks[r.Round-1])
		}
		closedNote := slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "the bracket closed at K") })
		if closedNote != (r.Round == last) {
			t.Errorf("round %d %s: closed note %v, notes %q", r.Round, r.Estimator, closedNote, r.Notes)
		}
		if r.Round == last && r.Estimator == "ais" {
			ais = r
		}
		if r.Round == last && r.Estimator == "raise" {
			raise = r
		}
	}
	if ais == nil || raise == nil {
		t.Fatalf("no final pair in %+v", rows)
	}
	sigma := report.CombinedError(raise, ais)
	gap := *ais.MeanLoglik - *raise.MeanLoglik
	if math.Abs(gap)+sigma > s.UntilGap {
		t.Errorf("final gap %.3f + σ %.3f above until_gap %g", gap, sigma, s.UntilGap)
	}
	ex := *exact.MeanLoglik
	if *raise.MeanLoglik > ex+3*sigma+1e-9 || *ais.MeanLoglik < ex-3*sigma-1e-9 {
		t.Errorf("final pair [%.3f, %.3f] does not bracket exact %.3f within 3σ = %.3f", *raise.MeanLoglik, *ais.MeanLoglik, ex, 3*sigma)
	}
}

// TestSandwichBudgetWarns: with a tolerance no pair can meet, the sandwich
// runs every round up to max_betas and warns on the final pair that the
// bracket did not close.
func TestSandwichBudgetWarns(t *testing.T) {
	x := blockData(30, 0.02, 3)
	s := sandwichOf(func(s *estim.Sandwich[AISSettings, estim.RAISE]) {
		s.UntilGap, s.StartBetas, s.MaxBetas, s.Growth, s.Init = 1e-6, 5, 50, 3, "uniform"
		s.AIS.Runs, s.RAISE.Chains, s.RAISE.Examples = 20, 4, 0
	})
	_, rows := runSandwich(t, blockRBM(3), x, s)
	ks := s.Rounds()
	if !slices.Equal(ks, []int{5, 15, 45, 50}) {
		t.Fatalf("rounds %v, want [5 15 45 50]", ks)
	}
	if n := len(rows); n != 2*len(ks) {
		t.Fatalf("%d rows, want an ais and a raise row in each of %d rounds", n, len(ks))
	}
	for _, r := range rows {
		warned := slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "did not close by K = 50") })
		if warned != (r.Round == len(ks)) {
			t.Errorf("round %d %s: budget warning %v, warnings %q", r.Round, r.Estimator, warned, r.Warnings)
		}
	}
}

// TestSandwichSettings: the sandwich owns the path and seeds of its ais and
// raise, and checks its own keys.
func TestSandwichSettings(t *testing.T) {
	for _, c := range []struct {
		set  func(s *estim.Sandwich[AISSettings, estim.RAISE])
		want string
	}{
		{func(s *estim.Sandwich[AISSettings, estim.RAISE]) { s.AIS.Betas = 1000 }, "ais.betas"},
		{func(s *estim.Sandwich[AISSettings, estim.RAISE]) { s.RAISE.Init = "uniform" }, "raise.init"},
		{func(s *estim.Sandwich[AISSettings, estim.RAISE]) { s.RAISE.Seed = 3 }, "raise.seed"},
		{func(s *estim.Sandwich[AISSettings, estim.RAISE]) { s.AIS.Runs = 1 }, "ais.runs"},
		{func(s *estim.Sandwich[AISSettings, estim.RAISE]) { s.MaxBetas = 500 }, "max_betas"},
		{func(s *estim.Sandwich[AISSettings, estim.RAISE]) { s.Growth = 1 }, "growth"},
		{func(s *estim.Sandwich[AISSettings, estim.RAISE]) { s.UntilGap = 0 }, "until_gap"},
		{func(s *estim.Sandwich[AISSettings, estim.RAISE]) { s.Schedule = "2008"; s.StartBetas = 2 }, "start_betas"},
	} {
		var p familytest.Problems
		sandwichOf(c.set).Check(&p)
		if len(p) != 1 || !strings.Contains(p[0], c.want) {
			t.Errorf("want one problem at %s, got %q", c.want, p)
		}
	}
	var p familytest.Problems
	sandwichOf(func(*estim.Sandwich[AISSettings, estim.RAISE]) {}).Check(&p)
	if len(p) != 0 {
		t.Errorf("defaults: %q", p)
	}
}

// TestSandwichResumesAtItsRound: an evaluation interrupted in a sandwich's
// third round, resumed with the two rounds it recorded (Env.Pieces, as
// final.progress.json keeps them), runs only the third round and gives the
// rows of the uninterrupted evaluation, bit for bit. (Mutation check:
// ignoring the recorded pieces runs rounds 1 and 2 again, which the
// progress labels show.)
func TestSandwichResumesAtItsRound(t *testing.T) {
	x := examples(blockData(6, 0, 0))
	s := sandwichOf(func(s *estim.Sandwich[AISSettings, estim.RAISE]) {
		s.UntilGap, s.StartBetas, s.MaxBetas, s.Init = 1e-9, 10, 160, "uniform" // never closes: all three rounds
		s.AIS.Runs, s.RAISE.Chains, s.RAISE.Examples = 50, 5, 0
	})
	list := []family.Configured{{Name: "exact", Settings: Exact.New()}, {Name: "sandwich", Settings: s}}
	var labels []string
	env := evalenv.Env{Experiment: "blocks", Stage: report.StageFinal, Epoch: 1, Seed: 11,
		Splits: []evalenv.Split{{Name: "test", Data: x}}, BaseRate: logOdds(x),
		Progress: func(label string, total int64) (func(int64), func()) {
			labels = append(labels, label)
			return func(int64) {}, func() {}
		}}
	pieces := map[int][][]report.Row{}
	env.OnPiece = func(entry int, name string, k int, rows []report.Row) error {
		if name != "sandwich" || k != len(pieces[entry]) {
			t.Errorf("piece %d of entry %d (%s) out of order", k, entry, name)
		}
		pieces[entry] = append(pieces[entry], rows)
		return nil
	}
	want, err := env.Run(Family, blockRBM(8), list)
	if err != nil {
		t.Fatal(err)
	}
	if len(pieces[1]) != 3 {
		t.Fatalf("%d rounds recorded, want 3 (K %v)", len(pieces[1]), s.Rounds())
	}
	full := slices.Clone(labels)

	labels = nil
	env.OnPiece = nil
	env.Pieces = map[int][][]report.Row{1: pieces[1][:2]}
	got, err := env.Run(Family, blockRBM(8), list)
	if err != nil {
		t.Fatal(err)
	}
	early := regexp.MustCompile(`× ?(10|40)( |$)`) // AIS 50×10, RAISE … × 40 β
	if len(labels) != 2 {
		t.Errorf("resumed at round 3: %d progress bars %q, want round 3's AIS and RAISE", len(labels), labels)
	}
	for _, l := range labels {
		if early.MatchString(l) {
			t.Errorf("resumed at round 3, the evaluation ran %q again (all labels %q; uninterrupted %q)", l, labels, full)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("resumed: %d rows, uninterrupted %d", len(got), len(want))
	}
	for i := range want {
		a, b := want[i], got[i]
		a.Seconds, b.Seconds = 0, 0
		if !reflectEqualRows(a, b) {
			t.Errorf("row %d differs:\n uninterrupted %+v\n resumed       %+v", i, a, b)
		}
	}
}

// reflectEqualRows compares two rows field by field (their pointers'
// values, every bit).
func reflectEqualRows(a, b report.Row) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}
