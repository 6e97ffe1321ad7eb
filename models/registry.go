package models

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/logz-ml/logz/internal/npyx"
)

// Model is what every model type provides to the registry and the checkpoint
// code; estimators and trainers declare the richer interfaces they need.
type Model interface {
	TypeName() string
	NumVisible() int
	Validate() error
}

// Array is a named parameter array as stored in model.npz (row-major).
type Array struct {
	Name  string
	Shape []int
	Data  []float64
}

// Type describes one registered model type.
type Type struct {
	Name string
	// Doc is one line for `logz --help` and the README.
	Doc string
	// New builds a freshly initialised model with the given visible size and
	// hidden layer sizes (the trainer initialises parameters further).
	New func(visible int, hidden []int) (Model, error)
	// Arrays returns the parameter arrays that make up the model.
	Arrays func(m Model) []Array
	// FromArrays rebuilds the model from checkpoint arrays, checking shapes.
	FromArrays func(arrays map[string]*npyx.Array) (Model, error)
	// Signature lists the array names that identify this type in an .npz
	// that has no meta (e.g. one written by NumPy).
	Signature []string
}

var (
	regMu    sync.RWMutex
	registry = map[string]Type{}
)

// Register adds a model type; it panics on a duplicate name (a programming error
// caught at init time).
func Register(t Type) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[t.Name]; dup {
		panic("models: type registered twice: " + t.Name)
	}
	registry[t.Name] = t
}

// Lookup returns the registered type with that name.
func Lookup(name string) (Type, error) {
	regMu.RLock()
	defer regMu.RUnlock()
	t, ok := registry[name]
	if !ok {
		return Type{}, fmt.Errorf("unknown model type %q (known: %s)", name, strings.Join(namesLocked(), ", "))
	}
	return t, nil
}

// Names lists the registered type names, sorted.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// detect finds the registered type whose signature the arrays carry.
func detect(arrays map[string]*npyx.Array) (Type, error) {
	regMu.RLock()
	defer regMu.RUnlock()
	for _, n := range namesLocked() {
		t := registry[n]
		ok := len(t.Signature) > 0
		for _, s := range t.Signature {
			if _, has := arrays[s]; !has {
				ok = false
			}
		}
		if ok {
			return t, nil
		}
	}
	have := make([]string, 0, len(arrays))
	for k := range arrays {
		have = append(have, k)
	}
	sort.Strings(have)
	return Type{}, fmt.Errorf("no meta array and no known set of parameter arrays (have %s; an RBM needs W, vbias, hbias)", strings.Join(have, ", "))
}

func init() {
	Register(Type{
		Name:      "rbm",
		Doc:       "binary restricted Boltzmann machine: arrays W (D×H), vbias (D), hbias (H)",
		Signature: []string{"W", "vbias", "hbias"},
		New: func(visible int, hidden []int) (Model, error) {
			if len(hidden) != 1 {
				return nil, fmt.Errorf("rbm: want exactly one hidden layer size, got %v", hidden)
			}
			if visible <= 0 || hidden[0] <= 0 {
				return nil, fmt.Errorf("rbm: sizes must be positive, got %d visible, %d hidden", visible, hidden[0])
			}
			return NewRBM(visible, hidden[0]), nil
		},
		Arrays: func(m Model) []Array {
			r := m.(*RBM)
			return []Array{
				{"W", []int{r.NVis, r.NHid}, r.W},
				{"vbias", []int{r.NVis}, r.VBias},
				{"hbias", []int{r.NHid}, r.HBias},
			}
		},
		FromArrays: rbmFromArrays,
	})
}

func rbmFromArrays(a map[string]*npyx.Array) (Model, error) {
	w, vb, hb := a["W"], a["vbias"], a["hbias"]
	if w == nil || vb == nil || hb == nil {
		return nil, fmt.Errorf("rbm: needs arrays W, vbias and hbias")
	}
	if len(w.Shape) != 2 {
		return nil, fmt.Errorf("rbm: W has shape %v, want 2-D (visible × hidden)", w.Shape)
	}
	d, h := w.Shape[0], w.Shape[1]
	if len(vb.Shape) != 1 || vb.Shape[0] != d {
		return nil, fmt.Errorf("rbm: vbias has shape %v, want (%d,) to match W %v", vb.Shape, d, w.Shape)
	}
	if len(hb.Shape) != 1 || hb.Shape[0] != h {
		return nil, fmt.Errorf("rbm: hbias has shape %v, want (%d,) to match W %v", hb.Shape, h, w.Shape)
	}
	r := &RBM{NVis: d, NHid: h, W: w.Data, VBias: vb.Data, HBias: hb.Data}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return r, nil
}

// joinSizes writes layer sizes as "784-500-1000".
func joinSizes(sizes []int) string {
	s := make([]string, len(sizes))
	for i, n := range sizes {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, "-")
}
