// Package estim defines estimators: Define turns a typed definition into
// a family.Estimator, and the settings and drivers several families share
// live here — annealing (Anneal, AIS), RAISE and the AIS/RAISE sandwich,
// the χ² upper bound (Chi2), exact enumeration (Exact), the subsample
// extension with control variates, and the statistics and timing of rows.
// The evaluation they run in is package family/kit/evalenv.
package estim

import (
	"fmt"
	"math"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
)

// impl is the Impl of an estimator of settings *S: an evalenv.Runner, as
// the compiler checks below. Every family's estimators are built by
// Define, so kit.Register's check at start-up (kept for an Estimator
// written by hand) holds for all of them by construction.
type impl[S any] func(env *evalenv.Env, m models.Model, s family.Settings, j evalenv.Job) ([]report.Row, error)

func (f impl[S]) Run(env *evalenv.Env, m models.Model, s family.Settings, j evalenv.Job) ([]report.Row, error) {
	return f(env, m, s, j)
}

var _ evalenv.Runner = impl[family.NoSettings](nil)

// Takes reports whether s is a *S.
func (impl[S]) Takes(s family.Settings) bool {
	_, ok := any(s).(*S)
	return ok
}

// Def is an estimator of the models of type M with typed settings *S;
// see Define. M is the model type its functions work on (*models.RBM,
// ...), or models.Model for one that takes several.
type Def[M models.Model, S any] struct {
	Name, Doc string
	// Leans: see family.Estimator.
	Leans family.Leans
	// Defaults are the settings of an entry that sets nothing.
	Defaults S
	// Feasible and CheckModel are optional; see Estimator.
	Feasible   func(m M, s *S) error
	CheckModel func(p family.Problems, s *S, model family.Settings, visible int)
	Run        func(env *evalenv.Env, m M, s *S, j evalenv.Job) ([]report.Row, error)
	// Unshared: see Estimator.
	Unshared bool
	// Work: see Estimator.
	Work func(m M, s *S, examples []int) float64
}

// Define turns a typed definition into an Estimator. *S must implement
// Settings. The one check of the model's type is here: Run and Feasible
// of a model that is not an M return family.As's error, and Work says it
// cannot foresee one (0).
func Define[M models.Model, S any](d Def[M, S]) *family.Estimator {
	if _, ok := any(new(S)).(family.Settings); !ok {
		panic(fmt.Sprintf("family: estimator %s: *%T does not implement Settings", d.Name, d.Defaults))
	}
	typed := func(s family.Settings) *S {
		p, ok := any(s).(*S)
		if !ok {
			panic(fmt.Sprintf("family: estimator %s got settings %T, want *%T", d.Name, s, d.Defaults))
		}
		return p
	}
	e := &family.Estimator{
		Name: d.Name, Doc: d.Doc, Unshared: d.Unshared, Leans: d.Leans,
		New: func() family.Settings {
			s := d.Defaults
			return any(&s).(family.Settings)
		},
		Impl: impl[S](func(env *evalenv.Env, m models.Model, s family.Settings, j evalenv.Job) ([]report.Row, error) {
			mm, err := family.As[M](m)
			if err != nil {
				return nil, err
			}
			return d.Run(env, mm, typed(s), j)
		}),
	}
	if d.Feasible != nil {
		e.Feasible = func(m models.Model, s family.Settings) error {
			mm, err := family.As[M](m)
			if err != nil {
				return err
			}
			return d.Feasible(mm, typed(s))
		}
	}
	if d.CheckModel != nil {
		e.CheckModel = func(p family.Problems, s family.Settings, model family.Settings, visible int) {
			d.CheckModel(p, typed(s), model, visible)
		}
	}
	if d.Work != nil {
		e.Work = func(m models.Model, s family.Settings, examples []int) float64 {
			mm, err := family.As[M](m)
			if err != nil {
				return 0
			}
			return d.Work(mm, typed(s), examples)
		}
	}
	return e
}

// ListWork foresees the wall time, on the reference machine, of the
// entries of list that skip does not skip (nil: none) for model m and
// splits of the given sizes (see family.Estimator.Work): the sum of the
// entries that can say, and how many cannot (unknown estimators included).
func ListWork(f *family.Family, m models.Model, list []family.Configured, examples []int, skip func(i int) bool) (secs float64, unknown int) {
	for i, c := range list {
		if skip != nil && skip(i) {
			continue
		}
		e, ok := f.Estimator(c.Name)
		w := 0.0
		if ok && e.Work != nil {
			w = e.Work(m, c.Settings, examples)
		}
		if !(w > 0) || math.IsInf(w, 0) {
			unknown++
			continue
		}
		secs += w
	}
	return secs, unknown
}
