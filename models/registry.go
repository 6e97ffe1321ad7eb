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
	// Needs, if set, lists the arrays a file without meta must hold to
	// make a model of this type, given the arrays it has, when that
	// depends on them (an Ising grid of one row has no coupling_v);
	// default Signature.
	Needs func(arrays map[string]*npyx.Array) []string
	// Owns reports whether an array name is one of this type's parameter
	// arrays (e.g. W, vbias, hbias for an RBM; W<l>, vbias<l>, hbias<l> for
	// a DBN), so that loading a file without meta can name what is missing
	// and refuse arrays of two types.
	Owns func(name string) bool
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

// detect finds the registered type of an .npz without meta from its
// parameter arrays (every array but "meta" and state_…). Exactly one type
// must have its whole Signature present and no array may belong to another
// type (W, vbias, hbias next to W1, W2, b0, b1, b2 is ambiguous). When no
// type is complete, the error says, for each type that owns some of the
// arrays, what it lacks.
func detect(arrays map[string]*npyx.Array) (Type, error) {
	regMu.RLock()
	defer regMu.RUnlock()
	var params []string
	for k := range arrays {
		if k != "meta" && !strings.HasPrefix(k, StatePrefix) {
			params = append(params, k)
		}
	}
	sort.Strings(params)
	owned := func(t Type) []string {
		var out []string
		for _, k := range params {
			if t.Owns != nil && t.Owns(k) {
				out = append(out, k)
			}
		}
		return out
	}
	var complete, partial []Type
	for _, n := range namesLocked() {
		t := registry[n]
		ok := len(t.Signature) > 0 && len(lacks(t, arrays)) == 0
		switch {
		case ok:
			complete = append(complete, t)
		case len(owned(t)) > 0:
			partial = append(partial, t)
		}
	}
	complete = mostSpecific(complete)
	have := strings.Join(params, ", ")
	if len(params) == 0 {
		have = "none"
	}
	if len(complete) == 1 {
		t := complete[0]
		var foreign []string
		for _, k := range params {
			if !t.Owns(k) {
				for _, u := range registry {
					if u.Name != t.Name && u.Owns != nil && u.Owns(k) {
						foreign = append(foreign, k)
						break
					}
				}
			}
		}
		if len(foreign) == 0 {
			return t, nil
		}
		verb := "belong"
		if len(foreign) == 1 {
			verb = "belongs"
		}
		return Type{}, fmt.Errorf("no meta array, and the arrays are ambiguous: %s make %s, but %s %s to another model type (have %s); save one model per file, or add a meta array naming the type",
			strings.Join(owned(t), ", "), article(t.Name), strings.Join(foreign, ", "), verb, have)
	}
	if len(complete) > 1 {
		var parts []string
		for _, t := range complete {
			parts = append(parts, strings.Join(owned(t), ", ")+" make "+article(t.Name))
		}
		return Type{}, fmt.Errorf("no meta array, and the arrays are ambiguous: %s (have %s); save one model per file, or add a meta array naming the type",
			strings.Join(parts, "; "), have)
	}
	if len(partial) > 0 {
		var parts []string
		for _, t := range partial {
			_, err := t.FromArrays(arrays)
			why := "missing " + strings.Join(lacks(t, arrays), ", ")
			if err != nil {
				why = strings.TrimPrefix(err.Error(), t.Name+": ")
			}
			parts = append(parts, fmt.Sprintf("as %s: %s", article(t.Name), why))
		}
		return Type{}, fmt.Errorf("no meta array, and the arrays (%s) make no complete model: %s", have, strings.Join(parts, "; "))
	}
	var needs []string
	for _, n := range namesLocked() {
		if t := registry[n]; len(t.Signature) > 0 {
			needs = append(needs, fmt.Sprintf("%s needs %s", article(n), strings.Join(t.Signature, ", ")))
		}
	}
	return Type{}, fmt.Errorf("no meta array and no known set of parameter arrays (have %s; %s)", have, strings.Join(needs, "; "))
}

// lacks lists the arrays a file without meta needs to make a model of
// type t (Type.Needs, else its Signature) and does not have.
func lacks(t Type, arrays map[string]*npyx.Array) []string {
	needs := t.Signature
	if t.Needs != nil {
		needs = t.Needs(arrays)
	}
	var out []string
	for _, s := range needs {
		if _, has := arrays[s]; !has {
			out = append(out, s)
		}
	}
	return out
}

// article returns "an rbm", "a dbn".
func article(name string) string {
	if name != "" && strings.ContainsRune("aeiouAEIOU", rune(name[0])) || strings.HasPrefix(name, "rbm") {
		return "an " + name
	}
	return "a " + name
}

func init() {
	Register(Type{
		Name:      "rbm",
		Doc:       "binary restricted Boltzmann machine: arrays W (D×H), vbias (D), hbias (H)",
		Signature: []string{"W", "vbias", "hbias"},
		Owns:      func(name string) bool { return name == "W" || name == "vbias" || name == "hbias" },
		New: func(visible int, hidden []int) (Model, error) {
			if len(hidden) != 1 {
				return nil, fmt.Errorf("rbm: want exactly one hidden layer size, got %v", hidden)
			}
			if visible <= 0 || hidden[0] <= 0 {
				return nil, fmt.Errorf("rbm: sizes must be positive, got %d visible, %d hidden", visible, hidden[0])
			}
			if err := CheckSizes("rbm", []int{visible, hidden[0]}); err != nil {
				return nil, err
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

// mostSpecific drops from complete every type whose Signature is a strict
// subset of another's: a file with the arrays of an autoregressive SBN
// also holds every array an SBN needs, and is the former.
func mostSpecific(complete []Type) []Type {
	var out []Type
	for _, t := range complete {
		sub := false
		for _, u := range complete {
			if u.Name != t.Name && len(u.Signature) > len(t.Signature) && subset(t.Signature, u.Signature) {
				sub = true
			}
		}
		if !sub {
			out = append(out, t)
		}
	}
	return out
}

func subset(a, b []string) bool {
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || x == y
		}
		if !found {
			return false
		}
	}
	return true
}
