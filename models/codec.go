package models

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/logz-ml/logz/internal/npyx"
)

// Model is what every model type provides to its codec and the checkpoint
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

// Type is the codec of one model type: how its models are stored in and
// rebuilt from model.npz. Each type exports its codec as a value (RBMType,
// DBNType, ... here, sbn.SBNType and sbn.ARSBNType in package sbn); the
// program's set of them is the family registry's (family.Codecs).
type Type struct {
	Name string
	// Doc is one line for `logz --help` and docs/reference.md.
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

// Codecs is the set of model types a program knows, by name; Load and Save
// look a file's type up in it, and a file without meta is recognised among
// them. logz passes the codecs of its registered families (family.Codecs);
// a test may list the few it needs.
type Codecs []Type

// Lookup returns the type named name.
func (cs Codecs) Lookup(name string) (Type, error) {
	for _, t := range cs {
		if t.Name == name {
			return t, nil
		}
	}
	if len(cs) == 0 {
		return Type{}, fmt.Errorf("model type %q: no model types are known to this program; a Go program that loads logz models imports the families with _ \"github.com/logz-ml/logz/family/all\" and passes family.Codecs() (or passes the codecs it knows, e.g. models.Codecs{models.RBMType})", name)
	}
	return Type{}, fmt.Errorf("unknown model type %q (known: %s)", name, strings.Join(cs.names(), ", "))
}

// names lists the type names, sorted.
func (cs Codecs) names() []string {
	out := make([]string, len(cs))
	for i, t := range cs {
		out[i] = t.Name
	}
	sort.Strings(out)
	return out
}

// sorted returns the types sorted by name, the order detect tries them in.
func (cs Codecs) sorted() []Type {
	out := slices.Clone(cs)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// detect finds the type among known of an .npz without meta from its
// parameter arrays (every array but "meta" and state_…). Exactly one type
// must have its whole Signature present and no array may belong to another
// type (W, vbias, hbias next to W1, W2, b0, b1, b2 is ambiguous). When no
// type is complete, the error says, for each type that owns some of the
// arrays, what it lacks.
func detect(arrays map[string]*npyx.Array, known Codecs) (Type, error) {
	types := known.sorted()
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
	for _, t := range types {
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
				for _, u := range types {
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
	for _, t := range types {
		if len(t.Signature) > 0 {
			needs = append(needs, fmt.Sprintf("%s needs %s", article(t.Name), strings.Join(t.Signature, ", ")))
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
