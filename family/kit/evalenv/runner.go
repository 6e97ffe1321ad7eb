package evalenv

import (
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/models"
)

// Finisher is a Plugin that post-processes the rows of one evaluation
// (pairing AIS and RAISE rows into brackets, dropping repeated warnings).
type Finisher interface {
	Finish(m models.Model, rows []report.Row, ests []family.Configured) []report.Row
}

// Runner is an estimator's Impl: it evaluates m on the environment's
// splits.
type Runner interface {
	family.Impl
	Run(env *Env, m models.Model, s family.Settings, j Job) ([]report.Row, error)
}

// RunnerOf returns what runs estimator e (kit.Register made sure it is a
// Runner): for a family whose estimator builds on another family's.
func RunnerOf(e *family.Estimator) Runner { return e.Impl.(Runner) }

// Job is what one estimator entry of an evaluation gets besides its settings.
type Job struct {
	// Index is the entry's position in the list.
	Index int
	// Seed is the entry's own seed, or one derived from the evaluation's
	// seed, stage, epoch and Index.
	Seed uint64
	// Base holds the row fields every estimator shares (experiment, model,
	// stage, epoch, estimator name).
	Base report.Row
	// List is the whole list being evaluated (estimators that match their
	// cost to another one's, such as CSL, look at it).
	List []family.Configured
}
