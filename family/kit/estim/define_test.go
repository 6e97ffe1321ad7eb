package estim

import (
	"testing"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
)

// TestDefineChecksTheModelType: an estimator defined for one model type
// (Def[*models.RBM, S]) gets its models as that type in Run, Feasible and
// Work, and Define refuses another type in one place: Run and Feasible
// return family.As's error naming both types, Work says it cannot foresee
// (0), and the typed functions are not called.
func TestDefineChecksTheModelType(t *testing.T) {
	var got []*models.RBM
	e := Define(Def[*models.RBM, family.NoSettings]{
		Name: "typed", Doc: "a test estimator",
		Run: func(env *evalenv.Env, r *models.RBM, _ *family.NoSettings, j evalenv.Job) ([]report.Row, error) {
			got = append(got, r)
			return nil, nil
		},
		Feasible: func(r *models.RBM, _ *family.NoSettings) error {
			got = append(got, r)
			return nil
		},
		Work: func(r *models.RBM, _ *family.NoSettings, _ []int) float64 {
			got = append(got, r)
			return float64(r.NVis)
		},
	})
	rbm := models.NewRBM(7, 3)
	dbm, err := models.NewDBM(7, 3, 2)
	if err != nil {
		t.Fatal(err)
	}
	s := e.New()
	run := evalenv.RunnerOf(e).Run
	if _, err := run(&evalenv.Env{}, rbm, s, evalenv.Job{}); err != nil {
		t.Fatal(err)
	}
	if err := e.Feasible(rbm, s); err != nil {
		t.Fatal(err)
	}
	if w := e.Work(rbm, s, nil); w != 7 {
		t.Fatalf("Work of the rbm = %v, want 7", w)
	}
	if len(got) != 3 || got[0] != rbm || got[1] != rbm || got[2] != rbm {
		t.Fatalf("the typed functions got %v, want the rbm three times", got)
	}
	want := "the model is a dbm (*models.DBM), not a *models.RBM"
	if _, err := run(&evalenv.Env{}, dbm, s, evalenv.Job{}); err == nil || err.Error() != want {
		t.Errorf("Run of a dbm: %v, want %q", err, want)
	}
	if err := e.Feasible(dbm, s); err == nil || err.Error() != want {
		t.Errorf("Feasible of a dbm: %v, want %q", err, want)
	}
	if w := e.Work(dbm, s, nil); w != 0 {
		t.Errorf("Work of a dbm = %v, want 0", w)
	}
	if len(got) != 3 {
		t.Errorf("the typed functions were called with a dbm (%d calls)", len(got))
	}
}
