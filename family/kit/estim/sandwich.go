package estim

import (
	"fmt"
	"math"
	"strings"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
)

func init() {
	family.RegisterFlag(family.Flag{Name: "until-gap", Usage: "sandwich: stop raising K when |AIS − RAISE| + its σ is at most this many nats (default 0.5)"})
	family.RegisterFlag(family.Flag{Name: "start-betas", Usage: "sandwich: K of the first round (default 1000)"})
	family.RegisterFlag(family.Flag{Name: "max-betas", Usage: "sandwich: the largest K, the budget (default 100000)"})
}

// Annealed is implemented by the settings of AIS and RAISE (every settings
// type that embeds Anneal): the sandwich sets their path each round.
type Annealed interface {
	family.Settings
	AnnealPath() *Anneal
	OwnSeed() uint64
}

// AnnealPath returns the annealing path settings themselves.
func (a *Anneal) AnnealPath() *Anneal { return a }

// Sandwich is the settings of a sandwich entry: AIS (from above) and RAISE
// (from below) on one annealing path, run in rounds at K = start_betas,
// growth·start_betas, growth²·start_betas, … and finally max_betas, until
// the bracket closes — the size of the gap AIS − RAISE plus its standard
// error σ is at most until_gap nats, and RAISE is not above AIS beyond
// noise — or the budget ends. A and R are the family's ais and raise settings; their
// counts (runs, chains, examples, samples, …) are set under ais: and
// raise:, their path (betas, schedule, init) and seeds by the sandwich.
type Sandwich[A, R any] struct {
	// UntilGap is the tolerance in nats on |gap| + σ.
	UntilGap float64 `yaml:"until_gap" want:"a positive number (nats)" flag:"until-gap"`
	// StartBetas is K of the first round.
	StartBetas int `yaml:"start_betas" want:"a positive integer" flag:"start-betas"`
	// MaxBetas is the largest K, that of the last round.
	MaxBetas int `yaml:"max_betas" want:"an integer ≥ start_betas" flag:"max-betas"`
	// Growth is the factor by which K grows from round to round.
	Growth int `yaml:"growth" want:"an integer ≥ 2"`
	// Schedule and Init are the path of both estimators (see Anneal).
	Schedule string `yaml:"schedule" want:"linear or 2008" cfg:"intstr" flag:"schedule"`
	Init     string `yaml:"init" want:"base-rate or uniform" flag:"init"`
	// AIS and RAISE are the two estimators' own settings.
	AIS           A `yaml:"ais"`
	RAISE         R `yaml:"raise"`
	family.Seeded `yaml:",inline"`
}

// Rounds returns the K of each round: start_betas·growth^r while below
// max_betas, then max_betas.
func (s *Sandwich[A, R]) Rounds() []int {
	var ks []int
	for k := s.StartBetas; k < s.MaxBetas; k *= s.Growth {
		ks = append(ks, k)
	}
	return append(ks, s.MaxBetas)
}

// Check reports bad settings: its own, and those of ais: and raise: at the
// largest K (the budget's limits), which must leave betas, schedule, init
// and seed to the sandwich.
func (s *Sandwich[A, R]) Check(p family.Problems) {
	p.Check("until_gap", s.UntilGap > 0, "a positive number (nats)", s.UntilGap)
	p.Check("start_betas", s.StartBetas >= 1, "a positive integer", s.StartBetas)
	family.CheckMax(p, "start_betas", s.StartBetas, family.MaxBetas, "family.MaxBetas")
	p.Check("growth", s.Growth >= 2, "an integer ≥ 2", s.Growth)
	family.CheckMax(p, "growth", s.Growth, 1000, "1000")
	p.Check("max_betas", s.MaxBetas >= s.StartBetas, fmt.Sprintf("an integer ≥ start_betas (%d)", s.StartBetas), s.MaxBetas)
	family.CheckMax(p, "max_betas", s.MaxBetas, family.MaxBetas, "family.MaxBetas; the papers use at most 100,000")
	if p.Enum("schedule", s.Schedule, Schedules) && s.Schedule == "2008" && s.StartBetas >= 1 && s.StartBetas < 3 {
		p.Crossf("", "start_betas", "schedule \"2008\" (three segments) needs start_betas ≥ 3, got %d", s.StartBetas)
	}
	p.Enum("init", s.Init, Inits)
	for _, sub := range []struct {
		key string
		set Annealed
	}{{"ais", any(&s.AIS).(Annealed)}, {"raise", any(&s.RAISE).(Annealed)}} {
		a := sub.set.AnnealPath()
		for _, k := range []struct {
			key string
			set bool
		}{{"betas", a.Betas != 0}, {"schedule", a.Schedule != ""}, {"init", a.Init != ""}, {"seed", sub.set.OwnSeed() != 0}} {
			if k.set {
				p.Errorf(sub.key+"."+k.key, "set by the sandwich (start_betas, max_betas, schedule, init, seed); remove it here")
			}
		}
	}
	if s.StartBetas < 1 || s.MaxBetas < s.StartBetas || s.MaxBetas > family.MaxBetas || s.Growth < 2 {
		return // the rounds are undefined; the problems are reported above
	}
	a, r := s.at(s.MaxBetas)
	a.Check(under{p, "ais"})
	r.Check(under{p, "raise"})
}

// at returns copies of the ais and raise settings on the sandwich's path
// with K intermediate distributions.
func (s *Sandwich[A, R]) at(k int) (Annealed, Annealed) {
	a, r := s.AIS, s.RAISE
	pa, pr := any(&a).(Annealed), any(&r).(Annealed)
	*pa.AnnealPath() = Anneal{Betas: k, Schedule: s.Schedule, Init: s.Init}
	*pr.AnnealPath() = Anneal{Betas: k, Schedule: s.Schedule, Init: s.Init}
	return pa, pr
}

// under reports problems of a nested section at key.
type under struct {
	p   family.Problems
	key string
}

func (u under) rel(r string) string {
	if r == "" {
		return u.key
	}
	return u.key + "." + r
}

func (u under) Check(rel string, ok bool, want string, got any) { u.p.Check(u.rel(rel), ok, want, got) }
func (u under) Enum(rel, val string, allowed []string) bool {
	return u.p.Enum(u.rel(rel), val, allowed)
}
func (u under) Errorf(rel, format string, args ...any) { u.p.Errorf(u.rel(rel), format, args...) }
func (u under) Crossf(rel, lineRel, format string, args ...any) {
	u.p.Crossf(u.rel(rel), u.rel(lineRel), format, args...)
}

// SandwichRAISE is RAISE's defaults with the path left to the sandwich.
func SandwichRAISE() RAISE {
	r := DefaultRAISE()
	r.Anneal = Anneal{}
	return r
}

// SandwichDef is the sandwich estimator of a family whose ais and raise
// estimators take settings *A and *R (both embedding Anneal); defaults are
// their settings with the path left to the sandwich (zero betas, schedule,
// init).
func SandwichDef[A, R any](ais, raise *family.Estimator, aisDefaults A, raiseDefaults R) *family.Estimator {
	return Define(Def[models.Model, Sandwich[A, R]]{
		Name: "sandwich",
		Leans: family.Leans{Bracket: true,
			Why: "AIS (above) and RAISE (below) of one start at growing K until their gap closes: the pair brackets the truth in expectation"},
		Doc: "AIS and RAISE at K growing ×growth from start_betas until |AIS − RAISE| + σ ≤ until_gap or K reaches max_betas (every round's pair is reported)",
		Defaults: Sandwich[A, R]{UntilGap: 0.5, StartBetas: 1000, MaxBetas: 100_000, Growth: 4, Schedule: "linear", Init: "base-rate",
			AIS: aisDefaults, RAISE: raiseDefaults},
		Run: func(env *evalenv.Env, m models.Model, s *Sandwich[A, R], j evalenv.Job) ([]report.Row, error) {
			return runSandwich(env, m, s.Rounds(), s.UntilGap, s.at, evalenv.RunnerOf(ais), evalenv.RunnerOf(raise), j)
		},
	})
}

// runSandwich runs the rounds: in round r, the ais runner and then the
// raise runner at K = ks[r], each with its own seed derived from the
// entry's and r (fresh draws every round), their rows marked with the
// round; it stops after the first round whose brackets close on every
// split. A bracket does not close while a member lies beyond noise on the
// wrong side of an exact row earlier in the evaluation (againstExact). A
// shard cannot judge (its estimates hold the other shards' stand-ins), so
// it runs every round, and the merge stops where a run without shards does
// and tells the shards' extra work is not needed.
func runSandwich(env *evalenv.Env, m models.Model, ks []int, tol float64, at func(int) (Annealed, Annealed), ais, raise evalenv.Runner, j evalenv.Job) ([]report.Row, error) {
	var rows []report.Row
	partial := env.Sharding != nil && env.Sharding.Partial()
	if env.Notice != nil && len(ks) > 1 {
		env.Notice(fmt.Sprintf("%s sandwich: AIS and RAISE at K = %s until |AIS − RAISE| + σ ≤ %g nats", env.Experiment, joinInts(ks), tol))
	}
	for r, k := range ks {
		a, ra := at(k)
		// A round an interrupted run finished is taken as it was recorded
		// (its seeds are the entry's and r, so computing it again would
		// give the same rows).
		round, recorded := env.RecordedPiece(r)
		if !recorded {
			if err := env.StartingPiece(r); err != nil {
				return rows, err
			}
		}
		for n, e := range []struct {
			name string
			run  evalenv.Runner
			set  Annealed
		}{{"ais", ais, a}, {"raise", raise, ra}} {
			if recorded {
				break
			}
			sub := j
			sub.Seed = seeds.Derive(j.Seed, uint64(n+1), uint64(r))
			sub.Base.Estimator = e.name
			rs, err := e.run.Run(env, m, e.set, sub)
			if err != nil {
				return rows, fmt.Errorf("round %d (K = %d): %s: %w", r+1, k, e.name, err)
			}
			round = append(round, rs...)
		}
		if !recorded {
			for i := range round {
				round[i].Round = r + 1
			}
			if err := env.FinishedPiece(r, round); err != nil {
				return rows, err
			}
		}
		last := r == len(ks)-1
		if !partial {
			againstExact(env.Earlier(), round)
		}
		closed, verdicts := judgeRound(round, tol)
		if !partial && (closed || last) {
			for i := range round {
				v := verdicts[round[i].Split]
				if closed {
					round[i].Notes = append(round[i].Notes, fmt.Sprintf("sandwich: the bracket closed at K = %d in round %d of at most %d: %s", k, r+1, len(ks), v))
				} else {
					round[i].Warnings = append(round[i].Warnings, fmt.Sprintf("sandwich: the bracket did not close by K = %d, the budget (max_betas): %s; neither number can be trusted to better than the gap", k, v))
				}
			}
			rows = append(rows, round...)
			if !last && env.Sharding != nil {
				env.Unneeded()
			}
			return rows, nil
		}
		for i := range round {
			round[i].Notes = append(round[i].Notes, fmt.Sprintf("sandwich round %d of at most %d (K = %d): %s", r+1, len(ks), k, verdicts[round[i].Split]))
		}
		rows = append(rows, round...)
	}
	return rows, nil
}

// againstExact warns on the rows of a round that lie beyond noise on the
// wrong side of an exact row among earlier (report.CheckAgainstExact), so
// that judgeRound does not call their bracket closed.
func againstExact(earlier, round []report.Row) {
	var all []report.Row
	for _, e := range earlier {
		if e.Estimator == "exact" {
			all = append(all, e)
		}
	}
	n := len(all)
	if n == 0 {
		return
	}
	all = append(all, round...)
	report.CheckAgainstExact(all)
	copy(round, all[n:])
}

// judgeRound says whether the AIS and RAISE rows of one round close their
// brackets on every split — |gap| + σ ≤ tol (a reversed gap within noise
// counts by its size), RAISE not above AIS beyond noise (report.Judge), and
// neither beyond noise on the wrong side of exact (report.ViolatesExact) —
// and describes each split's pair.
func judgeRound(rows []report.Row, tol float64) (bool, map[string]string) {
	verdicts := map[string]string{}
	closed := true
	for i := range rows {
		r := &rows[i]
		if r.Estimator != "raise" {
			continue
		}
		j := report.AISPartner(rows, r)
		if r.Subsampled() && r.ControlVariate == "" {
			closed = false
			verdicts[r.Split] = fmt.Sprintf("RAISE's mean is over %d of the split's %d examples, not comparable with AIS's (raise.examples)", r.NExamples, r.SplitExamples)
			continue
		}
		if j < 0 || r.MeanLoglik == nil {
			closed = false
			verdicts[r.Split] = "no AIS estimate to pair RAISE with"
			continue
		}
		gap := *rows[j].MeanLoglik - *r.MeanLoglik
		sigma := report.CombinedError(r, &rows[j])
		v := fmt.Sprintf("gap %.2f ± %.2f nats", gap, sigma)
		switch e := report.Judge(-gap, sigma, *rows[j].MeanLoglik); {
		case report.ViolatesExact(r) || report.ViolatesExact(&rows[j]):
			closed = false
			who := "RAISE"
			if !report.ViolatesExact(r) {
				who = "AIS"
			}
			v += fmt.Sprintf(" (%s lies beyond noise on the wrong side of exact: no bracket)", who)
		case gap < 0 && e.Beyond:
			closed = false
			v += " (RAISE above AIS beyond noise: not converged, or the annealed model beats the model)"
		case math.Abs(gap)+sigma > tol:
			closed = false
			v += fmt.Sprintf(", |gap| + σ above %g", tol)
			if sigma > tol {
				v += " (σ alone is: more AIS runs or RAISE chains or examples, not more β, would lower it)"
			}
		default:
			v += fmt.Sprintf(", |gap| + σ ≤ %g", tol)
		}
		verdicts[r.Split] = v
	}
	if len(verdicts) == 0 {
		return false, verdicts
	}
	return closed, verdicts
}

func joinInts(ks []int) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = fmt.Sprint(k)
	}
	return strings.Join(s, ", ")
}
