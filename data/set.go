package data

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/logz-ml/logz/internal/provenance"
)

// Set is a binary data matrix: N examples of D units, X[n*D+i] ∈ {0,1}.
// Sets are treated as read-only once built; Subset, Limit and Split copy.
type Set struct {
	Name string
	N, D int
	X    []uint8
	// Labels, if not nil, holds example n's class in Labels[n] (length N):
	// the digit of an MNIST image, read from the labels file beside the
	// images. Nil for data without labels. Subset, Limit and Split keep
	// them with their examples.
	Labels []uint8
	// Source says where the bits came from (Load fills it in; Limit and
	// Split record the selection). Its N, D and SHA256 are filled in by
	// Fingerprint, not kept here.
	Source Provenance
}

// Provenance names a data split: its spec, file, binarisation, the
// examples kept, its size and the hash of its bits.
type Provenance = provenance.Data

// Fingerprint returns the set's Source with its size and the SHA-256 of
// its bits (provenance.Hash): what results and checkpoints record, so that
// a later evaluation can tell whether it sees the same data.
func (s *Set) Fingerprint() Provenance {
	f := s.Source
	if f.Spec == "" {
		f.Spec = s.Name
	}
	f.N, f.D, f.SHA256 = s.N, s.D, provenance.Hash(s.N, s.D, s.X)
	return f
}

// selected returns the source of a selection from s: what sel says was
// kept, after what was kept before.
func (s *Set) selected(sel string) Provenance {
	src := s.Source
	if src.Selection != "" {
		sel = src.Selection + ", then " + sel
	}
	src.Selection = sel
	return src
}

// Examples is a data split as trainers and estimators read it: Len()
// examples, Row(n) being example n, 0/1 values of one width that the reader
// must not modify. *Set implements it; tests and derived data (a subset, a
// model's own samples) may implement it too.
type Examples interface {
	Len() int
	Row(n int) []uint8
}

var _ Examples = (*Set)(nil)

// Len returns the number of examples, N.
func (s *Set) Len() int { return s.N }

// Row returns example n (a view into X, not a copy).
func (s *Set) Row(n int) []uint8 { return s.X[n*s.D : (n+1)*s.D : (n+1)*s.D] }

// RowFloat sets dst[i] = float64(X[n*D+i]) for i < D; dst needs length ≥ D.
func (s *Set) RowFloat(dst []float64, n int) {
	row := s.X[n*s.D : (n+1)*s.D]
	dst = dst[:len(row)]
	for i, x := range row {
		dst[i] = float64(x)
	}
}

// Subset returns a copy holding the examples idx[0], idx[1], … in that order
// (repeats allowed). An index outside [0, N) panics, like a slice index.
func (s *Set) Subset(idx []int) *Set {
	out := &Set{Name: s.Name, N: len(idx), D: s.D, X: make([]uint8, len(idx)*s.D), Source: s.selected(fmt.Sprintf("%d chosen of %d", len(idx), s.N))}
	for k, n := range idx {
		copy(out.X[k*s.D:(k+1)*s.D], s.Row(n))
	}
	if s.Labels != nil {
		out.Labels = make([]uint8, len(idx))
		for k, n := range idx {
			out.Labels[k] = s.Labels[n]
		}
	}
	return out
}

// Limit returns a copy of the first n examples (the files' own order), or a
// copy of the whole set when n ≤ 0 or n ≥ N. Use Split or Subset for a
// random selection.
func (s *Set) Limit(n int) *Set {
	if n <= 0 || n > s.N {
		n = s.N
	}
	src := s.Source
	if n < s.N {
		src = s.selected(fmt.Sprintf("first %d of %d", n, s.N))
	}
	out := &Set{Name: s.Name, N: n, D: s.D, X: slices.Clone(s.X[:n*s.D]), Source: src}
	if s.Labels != nil {
		out.Labels = slices.Clone(s.Labels[:n])
	}
	return out
}

// Validate checks that len(X) = N·D, every value is 0 or 1 and Labels,
// if any, has one label per example.
func (s *Set) Validate() error {
	if s.N < 0 || s.D < 0 || len(s.X) != s.N*s.D {
		return fmt.Errorf("%s: %d values for %d examples of %d units", s.Name, len(s.X), s.N, s.D)
	}
	if s.Labels != nil && len(s.Labels) != s.N {
		return fmt.Errorf("%s: %d labels for %d examples", s.Name, len(s.Labels), s.N)
	}
	for k, x := range s.X {
		if x > 1 {
			return fmt.Errorf("%s: example %d, unit %d is %d; expected 0 or 1", s.Name, k/s.D, k%s.D, x)
		}
	}
	return nil
}

// Split carves a validation set of nValid examples out of s: with
// π = rng.Perm(N), valid holds the examples π[0..nValid) and train the rest,
// each kept in the original order. The two are a partition of s, and the same
// generator state gives the same split. Names get the suffixes "#train" and
// "#valid". nValid must be in [0, N).
func Split(s *Set, nValid int, rng *rand.Rand) (train, valid *Set, err error) {
	if nValid < 0 || nValid >= s.N {
		return nil, nil, fmt.Errorf("%s: cannot hold out %d of %d examples for validation; expected 0 ≤ n < %d", s.Name, nValid, s.N, s.N)
	}
	if rng == nil {
		return nil, nil, fmt.Errorf("%s: Split needs a random generator", s.Name)
	}
	perm := rng.Perm(s.N)
	v := slices.Clone(perm[:nValid])
	t := slices.Clone(perm[nValid:])
	slices.Sort(v)
	slices.Sort(t)
	train, valid = s.Subset(t), s.Subset(v)
	train.Name, valid.Name = s.Name+"#train", s.Name+"#valid"
	train.Source = s.selected(fmt.Sprintf("%d of %d after holding out %d for validation", len(t), s.N, nValid))
	valid.Source = s.selected(fmt.Sprintf("the %d of %d held out for validation", nValid, s.N))
	return train, valid, nil
}

// LogOdds returns the smoothed per-unit log-odds of the data,
//
//	a_i = log((c_i + α) / (N − c_i + α)),   c_i = Σ_n x_{n,i},
//
// i.e. logit of the posterior-mean-like rate (c_i+α)/(N+2α). With α > 0 every
// a_i is finite, so no unit has probability 0 or 1; this is the visible bias
// of the "data base rate" model of Salakhutdinov & Murray (2008) and a
// common visible-bias initialisation. α ≤ 0 may give ±Inf.
func LogOdds(s *Set, smoothing float64) []float64 {
	counts := make([]int, s.D)
	for n := range s.N {
		for i, x := range s.Row(n) {
			counts[i] += int(x)
		}
	}
	out := make([]float64, s.D)
	for i, c := range counts {
		out[i] = math.Log(float64(c)+smoothing) - math.Log(float64(s.N-c)+smoothing)
	}
	return out
}
