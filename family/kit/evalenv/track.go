package evalenv

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/logz-ml/logz/inference/chi2"
	"github.com/logz-ml/logz/models"
)

// TrackPrefix starts the checkpoint keys of tracked estimator state.
const TrackPrefix = "track_"

// Tracked is the state estimators keep across the evaluations of one
// experiment: the χ² proposals (with their fitters' state) of the chi2
// entries of every_epoch with track: true, under the prefix "track_<i>_",
// i the entry's index in every_epoch. The runner keeps one Tracked per
// experiment in Env.Tracked, adds it to every checkpoint it writes (Put)
// and, on --resume, restores it from the checkpoint (Restore), so a
// resumed run warm-starts from the same q as an uninterrupted one.
//
// State restored from a checkpoint is kept as arrays until its entry asks
// for it (the fitter's options come from the entry's settings); until then
// Put writes it back unchanged.
type Tracked struct {
	mu      sync.Mutex
	fitters map[string]*chi2.Fitter
	arrays  map[string]models.Array
	bytes   map[string][]byte
}

// NewTracked returns an empty store.
func NewTracked() *Tracked {
	return &Tracked{fitters: map[string]*chi2.Fitter{}, arrays: map[string]models.Array{}, bytes: map[string][]byte{}}
}

// Restore takes the tracked state a checkpoint holds (its state keys that
// start with TrackPrefix), replacing what the store held.
func (t *Tracked) Restore(c *models.Checkpoint) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fitters, t.arrays, t.bytes = map[string]*chi2.Fitter{}, map[string]models.Array{}, map[string][]byte{}
	c.CopyState(TrackPrefix, t.arrays, t.bytes)
}

// Put adds the tracked state to a checkpoint (allocating its maps).
func (t *Tracked) Put(c *models.Checkpoint) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c.State == nil {
		c.State = map[string]models.Array{}
	}
	if c.Bytes == nil {
		c.Bytes = map[string][]byte{}
	}
	maps.Copy(c.State, t.arrays)
	maps.Copy(c.Bytes, t.bytes)
	for p, f := range t.fitters {
		chi2.PutState(p, f, c.State, c.Bytes)
	}
}

// Fitter returns the fitter tracked under prefix — live, or rebuilt with
// opt from restored state — or nil when there is none.
func (t *Tracked) Fitter(prefix string, opt chi2.FitOptions) (*chi2.Fitter, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f, ok := t.fitters[prefix]; ok {
		return f, nil
	}
	if !chi2.HasState(prefix, t.bytes) {
		return nil, nil
	}
	f, err := chi2.LoadState(prefix, opt, t.arrays, t.bytes)
	if err != nil {
		return nil, fmt.Errorf("tracked q: %w", err)
	}
	t.dropRaw(prefix)
	t.fitters[prefix] = f
	return f, nil
}

// Set stores the fitter tracked under prefix.
func (t *Tracked) Set(prefix string, f *chi2.Fitter) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.dropRaw(prefix)
	t.fitters[prefix] = f
}

func (t *Tracked) dropRaw(prefix string) {
	for k := range t.arrays {
		if strings.HasPrefix(k, prefix) {
			delete(t.arrays, k)
		}
	}
	for k := range t.bytes {
		if strings.HasPrefix(k, prefix) {
			delete(t.bytes, k)
		}
	}
}

// Copy returns a new fitter (options opt) holding a copy of the state of
// the first tracked q (by prefix) of the given kind and shape, and the
// prefix it came from; nil when none matches. The tracked q is unchanged.
func (t *Tracked) Copy(kind string, shape []int, opt chi2.FitOptions) (*chi2.Fitter, string, error) {
	t.mu.Lock()
	arrays, bytes := map[string]models.Array{}, map[string][]byte{}
	maps.Copy(arrays, t.arrays)
	maps.Copy(bytes, t.bytes)
	for p, f := range t.fitters {
		chi2.PutState(p, f, arrays, bytes)
	}
	t.mu.Unlock()
	var prefixes []string
	for k, v := range bytes {
		if p, ok := strings.CutSuffix(k, "kind"); ok && string(v) == kind {
			prefixes = append(prefixes, p)
		}
	}
	// By entry index: track_2_ before track_10_.
	slices.SortFunc(prefixes, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	for _, p := range prefixes {
		f, err := chi2.LoadState(p, opt, arrays, bytes)
		if err != nil {
			return nil, "", fmt.Errorf("tracked q: %w", err)
		}
		if SameShape(f.Q, kind, shape) {
			return f, p, nil
		}
	}
	return nil, "", nil
}

// SameShape reports whether q is of kind and shape.
func SameShape(q chi2.Proposal, kind string, shape []int) bool {
	if q.Kind() != kind {
		return false
	}
	sh := q.Shape()
	if len(sh) != len(shape) {
		return false
	}
	for i := range sh {
		if sh[i] != shape[i] {
			return false
		}
	}
	return true
}
