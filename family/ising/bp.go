package ising

import (
	"fmt"
	"math"
	"time"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/estim"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/models"
)

// BPSettings is the settings of the bp estimator (eval.BetheBP).
type BPSettings struct {
	// Damping δ ∈ [0, 1): each message becomes (1−δ)·new + δ·old, in log
	// space.
	Damping float64 `yaml:"damping" want:"a number in [0, 1)"`
	// Tol: converged when no message's log-ratio changes by Tol or more
	// in one sweep.
	Tol float64 `yaml:"tol" want:"a positive number"`
	// MaxIter caps the sweeps; a run that reaches it unconverged warns.
	MaxIter int `yaml:"max_iter" want:"a positive integer"`
}

// Check reports bad settings.
func (s *BPSettings) Check(p family.Problems) {
	p.Check("damping", s.Damping >= 0 && s.Damping < 1, "a number in [0, 1)", s.Damping)
	p.Check("tol", s.Tol > 0 && !math.IsInf(s.Tol, 0), "a positive number", s.Tol)
	p.Check("max_iter", s.MaxIter >= 1 && s.MaxIter <= eval.MaxBPIter, fmt.Sprintf("an integer in [1, %d]", eval.MaxBPIter), s.MaxIter)
}

// BP is the Bethe approximation of log Z by loopy belief propagation.
var BP = estim.Define(estim.Def[*models.Ising, BPSettings]{
	Name: "bp",
	Leans: family.Leans{Why: "the Bethe approximation: exact on a chain, an approximation of either sign on a loopy grid " +
		"(tested against enumeration in eval/ising_bp_test.go)"},
	Unshared: true,
	Doc: "loopy belief propagation (damped synchronous sum-product in log space) and the Bethe free energy: " +
		"log Z ≈ −F_Bethe at the beliefs; exact on 1×n grids; warns when the messages did not converge",
	Defaults: BPSettings{Damping: eval.DefaultBetheBP.Damping, Tol: eval.DefaultBetheBP.Tol, MaxIter: eval.DefaultBetheBP.MaxIter},
	Run: func(env *evalenv.Env, m *models.Ising, s *BPSettings, j evalenv.Job) ([]report.Row, error) {
		start := time.Now()
		res, err := eval.BetheBP{Damping: s.Damping, Tol: s.Tol, MaxIter: s.MaxIter}.Run(m)
		if err != nil {
			return nil, err
		}
		base := j.Base
		base.LogZ = report.F(res.LogZ)
		base.Notes = append(base.Notes, fmt.Sprintf("loopy BP: %d sweeps of %d messages, last change %.2g", res.Iterations, res.Messages, res.Residual))
		if !res.Converged {
			base.Warnings = append(base.Warnings, fmt.Sprintf("loopy BP did not converge: after max_iter %d sweeps a message still changed by %.3g (tol %g); "+
				"the Bethe log Z %.4f is of unconverged beliefs — raise damping or max_iter, or do not use bp on this model", res.Iterations, res.Residual, s.Tol, res.LogZ))
		}
		if exact := estim.ExactLogZ(env); !math.IsNaN(exact) {
			base.ExactLogZ = report.F(exact)
			base.Notes = append(base.Notes, fmt.Sprintf("Bethe − exact log Z: %+.4f nats", res.LogZ-exact))
		}
		base.Seconds = time.Since(start).Seconds()
		return loglikRows(env, base, m, res.LogZ), nil
	},
})
