package dbn

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/internal/sampletest"
	"github.com/logz-ml/logz/models/modeltest"
)

// TestAISLogZAgainstExact: a DBN's exact row and its ais row carry the same
// log Z — the top RBM's, exact and by AIS — so every evaluation's check
// (report.CheckRows, in evalenv.Env.Run) compares them: on a small DBN the AIS
// log Ẑ is within 3 of its errors of exact (and not warned), and the same
// rows with the AIS log Ẑ moved 10 of its errors above exact get the
// warning naming AIS. Mutation checked: leaving LogZ off the DBN exact row
// (row.Split, row.LogZ = sp.Name, nil) fails it.
func TestAISLogZAgainstExact(t *testing.T) {
	m, err := modeltest.RandomDBN(1.0, rand.New(rand.NewPCG(4, 1)), 6, 4, 3)
	if err != nil {
		t.Fatal(err)
	}
	x := sampletest.Rows{{1, 1, 1, 0, 0, 0}, {0, 0, 0, 1, 1, 1}, {1, 0, 1, 0, 1, 0}, {1, 1, 0, 0, 1, 1}}
	a := CheapAIS()
	a.Runs, a.Betas, a.Init, a.Samples = 200, 500, "uniform", 100
	env := evalenv.Env{Experiment: "d", Stage: report.StageFinal, Epoch: 1, Seed: 5, Splits: []evalenv.Split{{Name: "test", Data: x}}}
	rows, err := env.Run(Family, m, []family.Configured{{Name: "exact", Settings: Exact.New()}, {Name: "ais", Settings: a}})
	if err != nil {
		t.Fatal(err)
	}
	ai := slices.IndexFunc(rows, func(r report.Row) bool { return r.Estimator == "ais" })
	ei := slices.IndexFunc(rows, func(r report.Row) bool { return r.Estimator == "exact" })
	if ai < 0 || ei < 0 || rows[ai].LogZ == nil || rows[ei].LogZ == nil || rows[ai].LogZHi1 == nil {
		t.Fatalf("rows %+v", rows)
	}
	sigma, _ := report.LoglikError(&rows[ai])
	d := *rows[ai].LogZ - *rows[ei].LogZ
	t.Logf("AIS log Ẑ %.4f, exact %.4f, σ %.4f", *rows[ai].LogZ, *rows[ei].LogZ, sigma)
	if math.Abs(d) > 3*sigma+0.01 || report.ViolatesExact(&rows[ai]) {
		t.Fatalf("AIS log Ẑ %.4f is %+.4f from exact (σ %.4f), warnings %q", *rows[ai].LogZ, d, sigma, rows[ai].Warnings)
	}
	moved := slices.Clone(rows)
	moved[ai] = rows[ai].Clone()
	z, hi := *rows[ei].LogZ+10*sigma, *rows[ei].LogZ+11*sigma
	moved[ai].LogZ, moved[ai].LogZHi1 = &z, &hi
	report.CheckRows(moved)
	if !slices.ContainsFunc(moved[ai].Warnings, func(w string) bool {
		return strings.Contains(w, "nats above the exact log Z") && strings.Contains(w, "(10.0σ;")
	}) {
		t.Errorf("AIS log Ẑ 10σ above exact: warnings %q", moved[ai].Warnings)
	}
}
