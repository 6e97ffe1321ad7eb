// Package evalenv is the evaluation environment: Env (the splits, seeds,
// sharding, progress and resumption of one evaluation) and its run loop,
// which runs each estimator entry (a Runner) and the family's Finisher, and
// Tracked, the estimator state kept across the evaluations of a run.
package evalenv

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"sync/atomic"

	"github.com/logz-ml/logz/data"
	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family"
	"github.com/logz-ml/logz/family/kit/sampling"
	"github.com/logz-ml/logz/internal/seeds"
	"github.com/logz-ml/logz/models"
)

// Split is one named data split to report mean log-likelihoods on.
type Split struct {
	Name string
	Data data.Examples
	// Source, if set, names the split's bits (data.Set.Fingerprint); every
	// row of the split carries it, so that results say which data they
	// measured.
	Source *data.Provenance
}

// Key is the split's label in the keys of random streams
// (seeds.Derive(…, Key, …)): fixed by the split's name, never by its place
// in evaluate.splits, so that a split's numbers do not change when other
// splits are evaluated beside it or the list is reordered. The usual
// splits have small fixed keys (test 0, train 1, valid 2); any other name
// is keyed by its 64-bit FNV-1a hash.
func (s Split) Key() uint64 {
	switch s.Name {
	case "test":
		return 0
	case "train":
		return 1
	case "valid":
		return 2
	}
	h := fnv.New64a()
	h.Write([]byte(s.Name))
	return h.Sum64() | 1<<63
}

// Env is everything the estimators of one evaluation need besides the model
// and their settings.
type Env struct {
	Experiment string
	Stage      string // report.StageEpoch or report.StageFinal
	Epoch      int
	Splits     []Split
	// BaseRate is the smoothed log-odds of the training data, the visible
	// biases of the AIS data-base-rate start.
	BaseRate []float64
	// Train is the training set (the top RBM of a DBN takes its base rate
	// from the training data propagated up by Q).
	Train data.Examples
	// Seed derives every estimator's seed (with the stage, epoch and
	// position) unless the estimator sets its own.
	Seed uint64
	// Positions, if set, gives each entry's position for its seed: entry i
	// draws as the Positions[i]-th entry of the list it was taken from
	// (logz eval re-running some of a run's final estimates draws what the
	// run drew). Nil: entry i is at position i.
	Positions []int
	// Progress, if set, is told about long estimators (label, total work)
	// and returns a function to report work done and one to call at the end.
	Progress func(label string, total int64) (add func(int64), done func())
	// Done holds the entries an earlier, interrupted run of this same
	// evaluation finished (by index into the estimator list): their rows are
	// reused instead of running them again — unless the entry shared results
	// with later entries (Remember) and a later entry still has to run, in
	// which case it runs again so that the later one sees what it would have
	// seen (same seeds, so the same rows).
	Done map[int]Entry
	// OnEntry, if set, is called when an entry has run, with its rows
	// before the family's Finish step; an error stops the evaluation.
	OnEntry func(Entry) error
	// Pieces holds, by entry index, the pieces of work an interrupted run of
	// this same evaluation finished for an entry that works in pieces (a
	// sandwich's rounds) and did not finish: the entry takes them instead
	// of computing them again (same seeds, so the same rows).
	Pieces map[int][][]report.Row
	// OnPiece, if set, is called when an entry that works in pieces has
	// finished its piece-th piece (0, 1, …), with its rows; an error stops
	// the evaluation. A run records them so that --resume continues at the
	// piece it reached.
	OnPiece func(entry int, estimator string, piece int, rows []report.Row) error
	// BeforePiece, if set, is called before an entry that works in pieces
	// computes a piece after its first; an error stops the evaluation (a
	// run's time limit: no round of a sandwich starts after it).
	BeforePiece func() error
	// Tracked, if set, holds estimator state kept across the evaluations
	// of one experiment (the fitted q of a chi2 entry with track: true);
	// the runner keeps it for the whole experiment, saves it in each
	// checkpoint and restores it on --resume. Nil: nothing is tracked
	// (`logz eval`).
	Tracked *Tracked
	// Notice, if set, shows a one-line message to the user at once, on a
	// terminal or not (e.g. how long a long estimator will take).
	Notice func(msg string)
	// Sharding, if set, makes this evaluation one process's part of a
	// sharded one: a shard that computes its share of every estimator's
	// units, or the merge that assembles the shards' (see Units).
	Sharding Sharding
	// SkipUnshared, set in a shard, skips the entries of Unshared
	// estimators: the merge runs them.
	SkipUnshared bool
	// Artifact, if set, receives the pictures estimators make beside
	// their rows (the runner sets it for the final evaluation and writes
	// each to files in the experiment's folder); nil: estimators make none.
	Artifact func(sampling.Artifact) error
	// ByLabel asks estimators whose rows are means of per-example values
	// they keep themselves (RAISE on its subsample) to break them down by
	// the split's labels (evaluate.by_label, logz eval --by-label); rows of
	// a shared log Z are broken down by the caller.
	ByLabel bool

	// memo holds what estimators of one evaluation share (an AIS log Z of
	// given settings, an exact log Z, per-example IS estimates).
	memo map[any]any
	// shared is set when the running entry calls Remember.
	shared bool
	// earlier holds the rows of the evaluation's entries before the
	// running one (a sandwich judges its rounds against an exact row).
	earlier []report.Row
	// entry and name are the running entry's index and estimator, calls
	// the number of times it has called Units.
	entry, calls int
	name         string
}

// Sharding is what a sharded evaluation needs of the process it runs in
// (package experiment provides it).
type Sharding interface {
	// Units shares the units of the call-th piece of shareable work (an
	// AIS, a RAISE, a CSL, an importance sampler; call = 0, 1, …) of the
	// entry-th estimator of the list, named estimator.
	Units(entry int, estimator string, call int) eval.Units
	// Ran is given the rows the entry-th estimator, named estimator,
	// produced (before the family's Finish step); it may set their Seconds.
	Ran(entry int, estimator string, rows []report.Row)
	// Partial reports whether this process's estimates are partial: true
	// in a shard, whose units of other shards are stand-ins, false in the
	// merge. An estimator that decides from its own estimates how much work
	// to do (the sandwich) cannot decide in a shard: there it does all the
	// work it might need, and in the merge it stops where a run without
	// shards would.
	Partial() bool
	// Unneeded tells the merge that the entry-th estimator, named
	// estimator, stopped before its call-th piece of work: the pieces from
	// call on that the shards computed are not used, and that is no error.
	Unneeded(entry int, estimator string, call int)
}

// Units returns what shares the units of the running estimator's next
// piece of shareable work among the shards of a sharded evaluation, or nil
// when the evaluation is not sharded. An estimator calls it once for each
// kernel it runs with Units (eval.AIS, eval.RAISE, eval.CSL, the importance
// samplers), in an order that does not depend on any random draw, so that
// every shard and the merge number the pieces alike.
func (env *Env) Units() eval.Units {
	if env.Sharding == nil {
		return nil
	}
	u := env.Sharding.Units(env.entry, env.name, env.calls)
	env.calls++
	return u
}

// Entry is what one estimator entry of an evaluation produced, kept so
// that an interrupted evaluation can resume without redoing it.
type Entry struct {
	Index     int    `json:"index"`
	Estimator string `json:"estimator"`
	// Shares says the entry left results for later entries (Remember).
	Shares bool         `json:"shares"`
	Rows   []report.Row `json:"rows"`
}

// Run evaluates m with the family's estimators in order and returns one row
// per (estimator, split), or a split-free row for an estimator of log Z
// alone. Estimators of one Run share results through Memo (e.g. AIS rows
// carry the exact log Z of an earlier exact entry).
func (env Env) Run(f *family.Family, m models.Model, ests []family.Configured) ([]report.Row, error) {
	env.memo = map[any]any{}
	label := Label(m)
	done := func(i int) (Entry, bool) {
		d, ok := env.Done[i]
		return d, ok && d.Estimator == ests[i].Name
	}
	lastToRun := -1
	for i := range ests {
		if _, ok := done(i); !ok {
			lastToRun = i
		}
	}
	var rows []report.Row
	for i, c := range ests {
		if d, ok := done(i); ok && !(d.Shares && i < lastToRun) {
			rows = append(rows, d.Rows...)
			continue
		}
		spec, ok := f.Estimator(c.Name)
		if !ok {
			return rows, fmt.Errorf("estimator %q is not available for model type %s (use %s)", c.Name, f.Name, strings.Join(f.EstimatorNames(), ", "))
		}
		if spec.Unshared && env.SkipUnshared {
			continue
		}
		seed, base := env.start(c, i, label)
		env.shared = false
		env.entry, env.name, env.calls = i, c.Name, 0
		env.earlier = rows
		rs, err := RunnerOf(spec).Run(&env, m, c.Settings, Job{Index: i, Seed: seed, Base: base, List: ests})
		env.markData(rs)
		if err == nil && env.Sharding != nil {
			env.Sharding.Ran(i, c.Name, rs)
		}
		rows = append(rows, rs...)
		if err != nil {
			return rows, fmt.Errorf("%s: %w", c.Name, err)
		}
		if env.OnEntry != nil {
			if err := env.OnEntry(Entry{Index: i, Estimator: c.Name, Shares: env.shared, Rows: rs}); err != nil {
				return rows, err
			}
		}
	}
	if fin, ok := f.Plugin.(Finisher); ok {
		rows = fin.Finish(m, rows, ests)
	}
	// Every family's rows: numbers that are not finite, means over one
	// example, bounds on the wrong side of exact.
	report.CheckRows(rows)
	return rows, nil
}

// RecordedPiece returns the rows of piece k of the running entry that an
// interrupted run recorded (Pieces), or false. A sharded evaluation
// computes every piece itself.
func (env *Env) RecordedPiece(k int) ([]report.Row, bool) {
	if env.Sharding != nil {
		return nil, false
	}
	ps := env.Pieces[env.entry]
	if k >= len(ps) || len(ps[k]) == 0 {
		return nil, false
	}
	rows := make([]report.Row, len(ps[k]))
	for i, r := range ps[k] {
		rows[i] = r.Clone()
	}
	return rows, true
}

// StartingPiece tells BeforePiece that the running entry is about to
// compute piece k (nothing for its first piece).
func (env *Env) StartingPiece(k int) error {
	if k == 0 || env.BeforePiece == nil || env.Sharding != nil {
		return nil
	}
	return env.BeforePiece()
}

// FinishedPiece tells OnPiece that the running entry finished piece k.
func (env *Env) FinishedPiece(k int, rows []report.Row) error {
	if env.OnPiece == nil || env.Sharding != nil {
		return nil
	}
	saved := make([]report.Row, len(rows))
	for i, r := range rows {
		saved[i] = r.Clone()
	}
	return env.OnPiece(env.entry, env.name, k, saved)
}

// Earlier returns the rows of the evaluation's entries before the running
// one (a sandwich judges its rounds against an exact row).
func (env *Env) Earlier() []report.Row { return env.earlier }

// Entering sets the rows of the entries before the running one, as the
// run loop does before each entry: for a test that runs an estimator's
// driver outside Run.
func (env *Env) Entering(earlier []report.Row) { env.earlier = earlier }

// Unneeded tells the merge of a sharded evaluation that the running entry
// stopped before its next piece of shareable work (see
// Sharding.Unneeded).
func (env *Env) Unneeded() { env.Sharding.Unneeded(env.entry, env.name, env.calls) }

// markData sets the Data of every row of a split whose Source is known.
func (env *Env) markData(rows []report.Row) {
	for k := range rows {
		for _, s := range env.Splits {
			if s.Source != nil && rows[k].Split == s.Name {
				rows[k].Data = s.Source
			}
		}
	}
}

// Memo returns what an earlier estimator of this evaluation remembered
// under key.
func (env *Env) Memo(key any) (any, bool) {
	v, ok := env.memo[key]
	return v, ok
}

// Remember stores v under key for the later estimators of this evaluation.
func (env *Env) Remember(key, v any) {
	if env.memo == nil {
		env.memo = map[any]any{}
	}
	env.memo[key] = v
	env.shared = true
}

// Label names a model with its sizes ("rbm 784-25", "dbn 784-500-2000")
// when it can, else with its type.
func Label(m models.Model) string {
	if l, ok := m.(interface{ Label() string }); ok {
		return l.Label()
	}
	return m.TypeName()
}

// start returns the seed of the i-th estimator of an evaluation — its own,
// or derived from the evaluation seed, the stage, the epoch and i — and the
// row fields every estimator shares.
func (env *Env) start(c family.Configured, i int, model string) (uint64, report.Row) {
	var seed uint64
	if s, ok := c.Settings.(interface{ OwnSeed() uint64 }); ok {
		seed = s.OwnSeed()
	}
	if seed == 0 {
		stage := uint64(1)
		if env.Stage == report.StageFinal {
			stage = 2
		}
		pos := i
		if i < len(env.Positions) {
			pos = env.Positions[i]
		}
		seed = seeds.Derive(env.Seed, stage, uint64(env.Epoch), uint64(pos))
	}
	return seed, report.Row{Experiment: env.Experiment, Model: model, Stage: env.Stage, Epoch: env.Epoch, Estimator: c.Name}
}

// BaseVBias returns the visible biases of an annealing start: the training
// data's log-odds for "base-rate" (checked against the model's visible
// units), nil (zeros) for "uniform".
func (env *Env) BaseVBias(init string, visible int) ([]float64, error) {
	if init != "base-rate" {
		return nil, nil
	}
	if len(env.BaseRate) != visible {
		return nil, fmt.Errorf("base-rate start needs the training data's log-odds (%d values for %d visible units)", len(env.BaseRate), visible)
	}
	return env.BaseRate, nil
}

// Bar opens a progress bar for a long estimator when the evaluation has
// one: it returns the estimators' cumulative (done, total) callback (nil
// without a bar) and a function to call at the end (a no-op without one).
func (env *Env) Bar(label string, total int64) (func(done, total int64), func()) {
	if env.Progress == nil {
		return nil, func() {}
	}
	add, done := env.Progress(label, total)
	return cumulative(add), done
}

// cumulative adapts an increment callback to estimators that report
// cumulative counts from several goroutines.
func cumulative(add func(int64)) func(done, total int64) {
	var last atomic.Int64
	return func(d, _ int64) {
		for old := last.Load(); d > old; old = last.Load() {
			if last.CompareAndSwap(old, d) {
				add(d - old)
				return
			}
		}
	}
}

// Subset is a view of some examples of a split.
type Subset struct {
	X   data.Examples
	Idx []int
}

func (s Subset) Len() int          { return len(s.Idx) }
func (s Subset) Row(n int) []uint8 { return s.X.Row(s.Idx[n]) }

// Sample draws the examples the subsampling estimators (RAISE, CSL, the
// sbn and vae families' per-example estimators) evaluate on a split: n of
// them, uniformly without replacement, from a generator that depends only
// on the evaluation seed and the split (Split.Key) — so every estimator of
// an evaluation, and every epoch of a run, sees the same examples: a
// learning curve then compares one set of examples from epoch to epoch
// (its points differ by the model, not by the draw of examples), and each
// point is still an unbiased estimate of the split's mean. n = 0 or n ≥ N
// means all, in order.
func (env *Env) Sample(split Split, n int) ([]int, error) {
	x := split.Data
	N := x.Len()
	if n <= 0 || n >= N {
		idx := make([]int, N)
		for i := range idx {
			idx[i] = i
		}
		return idx, nil
	}
	rng := rand.New(rand.NewPCG(seeds.Derive(env.Seed, 7, split.Key()), 0))
	return eval.SampleIndices(N, n, rng)
}
