package experiment

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/logz-ml/logz/eval/report"
	"github.com/logz-ml/logz/family/kit/evalenv"
	"github.com/logz-ml/logz/internal/atomicfile"
)

// Status tracks what a run has safely on disk, so that an interrupted run
// can say what it kept. Its zero value is ready to use; it is safe for
// concurrent use (a signal handler reads it while the run goes on).
type Status struct {
	mu    sync.Mutex // guards the fields and serialises writes to disk
	out   string
	order []string
	state map[string]string
}

func (s *Status) start(out string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = out
}

// set records the state of an experiment, as a phrase.
func (s *Status) set(exp, what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == nil {
		s.state = map[string]string{}
	}
	if _, ok := s.state[exp]; !ok {
		s.order = append(s.order, exp)
	}
	s.state[exp] = what
}

// write runs a write to the run folder while holding the lock, so that
// Stop waits for it to finish.
func (s *Status) write(f func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return f()
}

// Kept returns what is on disk, one phrase per experiment that has
// anything.
func (s *Status) Kept() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.kept()
}

func (s *Status) kept() (kept []string) {
	for _, e := range s.order {
		kept = append(kept, s.state[e])
	}
	return kept
}

// Stop waits for a write in progress to finish, blocks all later ones (the
// process is about to exit) and returns what is on disk, one phrase per
// experiment that has anything. Call it at most once.
func (s *Status) Stop() (out string, kept []string) {
	s.mu.Lock() // never unlocked: nothing is written after Stop
	return s.out, s.kept()
}

// finalProgress is an experiment's final.progress.json: the final
// estimators finished so far on the model after Epoch.
type finalProgress struct {
	Epoch   int             `json:"epoch"`
	Entries []evalenv.Entry `json:"entries"`
	// Pieces are the finished pieces (a sandwich's rounds) of entries not
	// finished yet, by entry index; an entry's are dropped when it is.
	Pieces map[int][][]report.Row `json:"pieces,omitempty"`
}

// setPiece records piece k of entry i (the pieces before it are there).
func (p *finalProgress) setPiece(i, k int, rows []report.Row) {
	if p.Pieces == nil {
		p.Pieces = map[int][][]report.Row{}
	}
	ps := p.Pieces[i]
	for len(ps) <= k {
		ps = append(ps, nil)
	}
	ps[k] = rows
	p.Pieces[i] = ps
}

func (p *finalProgress) set(e evalenv.Entry) {
	delete(p.Pieces, e.Index)
	for i := range p.Entries {
		if p.Entries[i].Index == e.Index {
			p.Entries[i] = e
			return
		}
	}
	p.Entries = append(p.Entries, e)
}

func writeProgress(path string, p finalProgress) error {
	return atomicfile.WriteFile(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	})
}

func readProgress(path string) (finalProgress, error) {
	var p finalProgress
	b, err := os.ReadFile(path)
	if err != nil {
		return p, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("%s: corrupt (%v)", path, err)
	}
	for i, e := range p.Entries {
		for j := range e.Rows {
			if err := e.Rows[j].Validate(); err != nil {
				return p, fmt.Errorf("%s: entries[%d].rows[%d]: %w", path, i, j, err)
			}
		}
	}
	for i, ps := range p.Pieces {
		for k, rows := range ps {
			for j := range rows {
				if err := rows[j].Validate(); err != nil {
					return p, fmt.Errorf("%s: pieces[%d][%d].rows[%d]: %w", path, i, k, j, err)
				}
			}
		}
	}
	return p, nil
}
