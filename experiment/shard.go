package experiment

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/logz-ml/logz/eval"
	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family/kit/evalenv"
)

// Shard is one of Count processes that share a run or an evaluation:
// shard Index (0 ≤ Index < Count) trains the experiments whose position in
// the config is Index mod Count, and computes the units u of every piece
// of shareable work of a final evaluation (the AIS runs, RAISE's
// (example, chain) pairs, CSL's chain groups, the examples of importance
// sampling) with u mod Count = Index.
type Shard struct{ Index, Count int }

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// MaxShards bounds the number of shards (a part file per shard and
// experiment).
const MaxShards = 10000

// ShardEnv lists the environment variables `--shard env/N` takes the
// shard's index from, first set first, each with what is added to make it
// count from 0: Slurm job arrays, Sun/Univa Grid Engine (which counts
// from 1), PBS Pro job arrays and Kubernetes indexed jobs.
var ShardEnv = []struct {
	Name   string
	Offset int
}{
	{"SLURM_ARRAY_TASK_ID", 0},
	{"SGE_TASK_ID", -1},
	{"PBS_ARRAY_INDEX", 0},
	{"JOB_COMPLETION_INDEX", 0},
}

// ParseShard reads a shard "i/n" (0 ≤ i < n), or "env/n": the index i from
// the first variable of ShardEnv that getenv finds set, the total n always
// from the command line.
func ParseShard(s string, getenv func(string) string) (Shard, error) {
	idx, total, ok := strings.Cut(s, "/")
	if !ok {
		return Shard{}, fmt.Errorf("want i/n (shard i of n, 0 ≤ i < n) or env/n (i from $%s and the like), got %q", ShardEnv[0].Name, s)
	}
	n, err := strconv.Atoi(total)
	if err != nil || n < 1 || n > MaxShards {
		return Shard{}, fmt.Errorf("the number of shards in %q is not an integer in [1, %d]", s, MaxShards)
	}
	var i int
	if idx == "env" {
		var from string
		for _, v := range ShardEnv {
			val := getenv(v.Name)
			if val == "" {
				continue
			}
			k, err := strconv.Atoi(val)
			if err != nil {
				return Shard{}, fmt.Errorf("$%s is %q, not an integer", v.Name, val)
			}
			i, from = k+v.Offset, fmt.Sprintf("$%s = %s", v.Name, val)
			break
		}
		if from == "" {
			names := make([]string, len(ShardEnv))
			for k, v := range ShardEnv {
				names[k] = "$" + v.Name
			}
			return Shard{}, fmt.Errorf("%q takes the shard's index from the environment, and none of %s is set (outside a job array, give it: i/%d)", s, strings.Join(names, ", "), n)
		}
		if i < 0 || i >= n {
			return Shard{}, fmt.Errorf("%s gives shard %d, not in [0, %d): the job array and the shard count %d disagree", from, i, n, n)
		}
		return Shard{i, n}, nil
	}
	if i, err = strconv.Atoi(idx); err != nil || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("the shard index in %q is not an integer in [0, %d)", s, n)
	}
	return Shard{i, n}, nil
}

// recorder is the evalenv.Sharding of one shard's evaluation: of every
// piece of shareable work it computes the units u with u mod Count =
// Index, and keeps their values for the shard's part.
type recorder struct {
	shard   Shard
	mu      sync.Mutex
	entries []partEntry
}

func (r *recorder) entry(i int, name string) *partEntry {
	for k := range r.entries {
		if r.entries[k].Index == i {
			return &r.entries[k]
		}
	}
	r.entries = append(r.entries, partEntry{Index: i, Estimator: name, Work: []partWork{}})
	return &r.entries[len(r.entries)-1]
}

// Units implements evalenv.Sharding.
func (r *recorder) Units(entry int, name string, call int) eval.Units {
	return &shardUnits{r: r, entry: entry, name: name, call: call}
}

// Ran implements evalenv.Sharding: it records the time spent on each row.
func (r *recorder) Ran(entry int, name string, rows []report.Row) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.entry(entry, name)
	e.RowSeconds = make([]float64, len(rows))
	for k, row := range rows {
		e.RowSeconds[k] = row.Seconds
	}
}

// Partial implements evalenv.Sharding: a shard's estimates hold the other
// shards' stand-ins.
func (r *recorder) Partial() bool { return true }

// Unneeded implements evalenv.Sharding; a shard never stops early (Partial),
// so there is nothing to record.
func (r *recorder) Unneeded(int, string, int) {}

// shardUnits is one piece of work of a shard.
type shardUnits struct {
	r           *recorder
	entry, call int
	name        string
}

func (u *shardUnits) Mine(i int) bool { return i%u.r.shard.Count == u.r.shard.Index }

// Complete records this shard's units and fills the others with copies of
// them (stand-ins of the right kind, so that the shard's own, discarded
// estimate stays finite), or zeros when the shard has none.
func (u *shardUnits) Complete(n, width int, vals []float64) error {
	if len(vals) != n*width {
		return fmt.Errorf("sharding: %d values for %d units of width %d", len(vals), n, width)
	}
	r := u.r
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.entry(u.entry, u.name)
	for _, w := range e.Work {
		if w.Call == u.call {
			return fmt.Errorf("sharding: work %d of entry %d (%s) completed twice", u.call, u.entry, u.name)
		}
	}
	if i := computedElsewhere(vals, n, width, u.Mine); i >= 0 {
		return fmt.Errorf("sharding: %s of entry %d computed unit %d, which is not shard %s's (an estimator that ignores Units.Mine)", u.name, u.entry, i, r.shard)
	}
	w := partWork{Call: u.call, N: n, Width: width, Units: []int{}, Values: exactFloats{}}
	for i := u.r.shard.Index; i < n; i += u.r.shard.Count {
		w.Units = append(w.Units, i)
		w.Values = append(w.Values, vals[i*width:(i+1)*width]...)
	}
	e.Work = append(e.Work, w)
	for i := range n {
		if u.Mine(i) {
			continue
		}
		dst := vals[i*width : (i+1)*width]
		if len(w.Units) == 0 {
			clear(dst)
			continue
		}
		src := w.Units[i%len(w.Units)]
		copy(dst, vals[src*width:(src+1)*width])
	}
	return nil
}

// computedElsewhere returns a unit that mine does not accept but whose
// values are not all zero — computed by an estimator that does not ask
// Mine — or −1.
func computedElsewhere(vals []float64, n, width int, mine func(int) bool) int {
	for i := range n {
		if mine(i) {
			continue
		}
		for _, v := range vals[i*width : (i+1)*width] {
			if v != 0 {
				return i
			}
		}
	}
	return -1
}

// merger is the evalenv.Sharding of a merge: it computes nothing and gives
// every piece of work the values the shards' parts hold, checking that
// each unit is in exactly one part.
type merger struct {
	parts []*evalPart // by shard index
	files []string    // their paths
	used  map[[2]int]bool
	// unneeded holds, by entry, the first piece of work the entry did not
	// need (it stopped early: Unneeded).
	unneeded map[int]int
}

func newMerger(parts []*evalPart, files []string) *merger {
	return &merger{parts: parts, files: files, used: map[[2]int]bool{}, unneeded: map[int]int{}}
}

// Partial implements evalenv.Sharding: the merge has every shard's values.
func (m *merger) Partial() bool { return false }

// Unneeded implements evalenv.Sharding: the entry's pieces of work from call
// on are not asked for, and unused does not count them.
func (m *merger) Unneeded(entry int, _ string, call int) { m.unneeded[entry] = call }

// Units implements evalenv.Sharding.
func (m *merger) Units(entry int, name string, call int) eval.Units {
	return &mergeUnits{m: m, entry: entry, name: name, call: call}
}

// Ran implements evalenv.Sharding: a merged row's time is the longest any
// shard spent on it (the wall time of the shards run side by side).
func (m *merger) Ran(entry int, _ string, rows []report.Row) {
	secs := make([]float64, len(rows))
	for _, p := range m.parts {
		e := p.entry(entry)
		// A shard may have more rows than the merge: a sandwich runs every
		// round in a shard and stops early in the merge (the rows of its
		// rounds come first, in order).
		if e == nil || len(e.RowSeconds) < len(rows) {
			return // keep the merge's own times
		}
		for k, s := range e.RowSeconds[:len(rows)] {
			secs[k] = max(secs[k], s)
		}
	}
	for k := range rows {
		rows[k].Seconds = secs[k]
	}
}

func (p *evalPart) entry(i int) *partEntry {
	for k := range p.Entries {
		if p.Entries[k].Index == i {
			return &p.Entries[k]
		}
	}
	return nil
}

// check reports what is wrong with the parts as a whole, before a merge
// runs: each piece of work must be in every part (unless that shard
// failed) with the same number of units and width, and each of its units
// in exactly one part.
func (m *merger) check() []string {
	type piece struct {
		name     string
		n, width int
		owner    []int
		parts    int
	}
	pieces := map[[2]int]*piece{}
	var keys [][2]int
	var problems []string
	failed := 0
	for s, p := range m.parts {
		if p.Failed != "" {
			failed++
		}
		for _, e := range p.Entries {
			for _, w := range e.Work {
				k := [2]int{e.Index, w.Call}
				pc := pieces[k]
				what := fmt.Sprintf("work %d of entry %d (%s)", w.Call, e.Index, e.Estimator)
				if pc == nil {
					pc = &piece{name: e.Estimator, n: w.N, width: w.Width, owner: make([]int, w.N)}
					for i := range pc.owner {
						pc.owner[i] = -1
					}
					pieces[k] = pc
					keys = append(keys, k)
				} else if pc.name != e.Estimator || pc.n != w.N || pc.width != w.Width {
					problems = append(problems, fmt.Sprintf("%s: %s has %d units of %d values, another part's %d of %d (of %s): the shards ran different evaluations; remove the parts and run the shards again", m.files[s], what, w.N, w.Width, pc.n, pc.width, pc.name))
					continue
				}
				pc.parts++
				for _, i := range w.Units {
					switch {
					case i < 0 || i >= w.N:
						problems = append(problems, fmt.Sprintf("%s: %s has unit %d, outside [0, %d)", m.files[s], what, i, w.N))
					case pc.owner[i] >= 0:
						problems = append(problems, fmt.Sprintf("unit %d of %s is in both %s and %s: a unit must be computed by exactly one shard", i, what, m.files[pc.owner[i]], m.files[s]))
					default:
						pc.owner[i] = s
					}
				}
			}
		}
	}
	for _, k := range keys {
		pc := pieces[k]
		what := fmt.Sprintf("work %d of entry %d (%s)", k[1], k[0], pc.name)
		if pc.parts < len(m.parts)-failed {
			problems = append(problems, fmt.Sprintf("%s is in %d of the %d parts: the shards ran different evaluations; remove the parts and run the shards again", what, pc.parts, len(m.parts)))
			continue
		}
		var missing []string
		for i, o := range pc.owner {
			if o < 0 {
				if len(missing) == 5 {
					missing = append(missing, "…")
					break
				}
				missing = append(missing, strconv.Itoa(i))
			}
		}
		if len(missing) > 0 && failed == 0 {
			problems = append(problems, fmt.Sprintf("units %s of %s are in no part", strings.Join(missing, ", "), what))
		}
	}
	return problems
}

// unused reports the work in the parts that the merge did not ask for.
func (m *merger) unused() error {
	for s, p := range m.parts {
		for _, e := range p.Entries {
			for _, w := range e.Work {
				if c, ok := m.unneeded[e.Index]; ok && w.Call >= c {
					continue
				}
				if !m.used[[2]int{e.Index, w.Call}] {
					return &PartsError{fmt.Sprintf("%s holds work %d of entry %d (%s) that the merge did not use: the shards ran another evaluation than the merge (another logz?); remove the parts and run the shards again", m.files[s], w.Call, e.Index, e.Estimator)}
				}
			}
		}
	}
	return nil
}

type mergeUnits struct {
	m           *merger
	entry, call int
	name        string
}

func (u *mergeUnits) Mine(int) bool { return false }

func (u *mergeUnits) Complete(n, width int, vals []float64) error {
	m := u.m
	what := fmt.Sprintf("work %d of entry %d (%s)", u.call, u.entry, u.name)
	if i := computedElsewhere(vals, n, width, u.Mine); i >= 0 {
		return fmt.Errorf("merging: %s computed unit %d, which the shards computed (an estimator that ignores Units.Mine)", what, i)
	}
	owner := make([]int, n)
	for i := range owner {
		owner[i] = -1
	}
	for s, p := range m.parts {
		e := p.entry(u.entry)
		var w *partWork
		if e != nil {
			for k := range e.Work {
				if e.Work[k].Call == u.call {
					w = &e.Work[k]
				}
			}
		}
		if w == nil {
			if p.Failed != "" {
				return fmt.Errorf("shard %d/%d failed (%s): %s", p.Shard, p.Shards, m.files[s], p.Failed)
			}
			return &PartsError{fmt.Sprintf("%s holds no %s: the shards ran another evaluation than the merge; remove the parts and run the shards again", m.files[s], what)}
		}
		if e.Estimator != u.name || w.N != n || w.Width != width {
			return &PartsError{fmt.Sprintf("%s: %s is of %s with %d units of %d values, the merge's of %s with %d of %d; remove the parts and run the shards again", m.files[s], what, e.Estimator, w.N, w.Width, u.name, n, width)}
		}
		for k, i := range w.Units {
			if i < 0 || i >= n {
				return &PartsError{fmt.Sprintf("%s: %s has unit %d, outside [0, %d)", m.files[s], what, i, n)}
			}
			if owner[i] >= 0 {
				return &PartsError{fmt.Sprintf("unit %d of %s is in both %s and %s: a unit must be computed by exactly one shard", i, what, m.files[owner[i]], m.files[s])}
			}
			owner[i] = s
			copy(vals[i*width:(i+1)*width], w.Values[k*width:(k+1)*width])
		}
	}
	var missing []string
	for i, o := range owner {
		if o < 0 {
			if len(missing) == 5 {
				missing = append(missing, "…")
				break
			}
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return &PartsError{fmt.Sprintf("units %s of %s are in no part", strings.Join(missing, ", "), what)}
	}
	m.used[[2]int{u.entry, u.call}] = true
	return nil
}

// PartsError says the parts of a merge do not fit the evaluation the merge
// runs; the merge stops.
type PartsError struct{ Msg string }

func (e *PartsError) Error() string { return e.Msg }

// errNotTrained says an experiment's training is not finished.
var errNotTrained = errors.New("not trained yet")

var _ evalenv.Sharding = (*recorder)(nil)
var _ evalenv.Sharding = (*merger)(nil)
