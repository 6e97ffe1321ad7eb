package sbn

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"

	"github.com/logz-ml/logz/internal/npyx"
	"github.com/logz-ml/logz/models"
)

// The checkpoint arrays of a net (float64, row-major), as NumPy writes them:
//
//	gen_W<l>  n_{l−1}×n_l   l = 1 … L
//	gen_b<l>  n_l           l = 0 … L
//	gen_S<l>  n_l×n_l       l = 0 … L, strictly lower triangular (arsbn only)
//	rec_W<l>  n_{l−1}×n_l   l = 1 … L  (recognition network, optional)
//	rec_c<l>  n_l           l = 1 … L
//	rec_S<l>  n_l×n_l       l = 1 … L  (autoregressive recognition, optional)
var arrayName = regexp.MustCompile(`^(gen_W|gen_b|gen_S|rec_W|rec_c|rec_S)([0-9]+)$`)

// SBNType and ARSBNType are the codecs of sigmoid belief nets, plain and
// autoregressive; TypeOf picks one.
var (
	SBNType   = codec(false)
	ARSBNType = codec(true)
)

// TypeOf returns the codec of a net: ARSBNType if ar, else SBNType.
func TypeOf(ar bool) models.Type {
	if ar {
		return ARSBNType
	}
	return SBNType
}

func codec(ar bool) models.Type {
	name, doc, sig := "sbn", "sigmoid belief net (Du, Zhu & Zhang 2015, eq. 11–12)", []string{"gen_W1", "gen_b0", "gen_b1"}
	if ar {
		name, doc, sig = "arsbn", "autoregressive sigmoid belief net (eq. 13–14)", []string{"gen_W1", "gen_b0", "gen_b1", "gen_S0", "gen_S1"}
	}
	return models.Type{
		Name: name, Doc: doc, Signature: sig,
		Owns: func(k string) bool {
			m := arrayName.FindStringSubmatch(k)
			return m != nil && (ar || m[1] != "gen_S")
		},
		New: func(visible int, hidden []int) (models.Model, error) {
			sizes := append([]int{visible}, hidden...)
			if err := models.CheckSizes(name, sizes); err != nil {
				return nil, err
			}
			return New(sizes, ar), nil
		},
		Arrays:     func(m models.Model) []models.Array { return arrays(m.(*Net)) },
		FromArrays: func(a map[string]*npyx.Array) (models.Model, error) { return fromArrays(a, ar) },
	}
}

func arrays(n *Net) []models.Array {
	var out []models.Array
	mat := func(name string, l int, x []float64, r, c int) {
		out = append(out, models.Array{Name: name + strconv.Itoa(l), Shape: []int{r, c}, Data: x})
	}
	vec := func(name string, l int, x []float64) {
		out = append(out, models.Array{Name: name + strconv.Itoa(l), Shape: []int{len(x)}, Data: x})
	}
	for l := 0; l <= n.Layers(); l++ {
		if l > 0 {
			mat("gen_W", l, n.W[l], n.Sizes[l-1], n.Sizes[l])
		}
		vec("gen_b", l, n.B[l])
		if n.S != nil {
			mat("gen_S", l, n.S[l], n.Sizes[l], n.Sizes[l])
		}
	}
	if r := n.Rec; r != nil {
		for l := 1; l <= n.Layers(); l++ {
			mat("rec_W", l, r.R[l], n.Sizes[l-1], n.Sizes[l])
			vec("rec_c", l, r.C[l])
			if r.T != nil {
				mat("rec_S", l, r.T[l], n.Sizes[l], n.Sizes[l])
			}
		}
	}
	return out
}

// fromArrays rebuilds a net from its arrays; the number of layers is the
// largest gen_W index, every array of every layer must be there, with the
// shapes the layer sizes imply.
func fromArrays(a map[string]*npyx.Array, ar bool) (models.Model, error) {
	typ := "sbn"
	if ar {
		typ = "arsbn"
	}
	L := 0
	var names []string
	for k := range a {
		if m := arrayName.FindStringSubmatch(k); m != nil {
			l, err := strconv.Atoi(m[2])
			if err != nil {
				l = models.MaxLayers + 1 // beyond int: too large
			} else if strconv.Itoa(l) != m[2] {
				return nil, fmt.Errorf("%s: array %s: the layer number %s has a leading zero", typ, k, m[2])
			}
			if l > models.MaxLayers {
				return nil, fmt.Errorf("%s: array %s names layer %s; a model has at most %d layers (models.MaxLayers)", typ, k, m[2], models.MaxLayers)
			}
			names = append(names, k)
			if m[1] == "gen_W" {
				L = max(L, l)
			}
		}
	}
	sort.Strings(names)
	if L < 1 {
		return nil, fmt.Errorf("%s: needs arrays gen_W1, gen_b0, gen_b1, …; found %v", typ, names)
	}
	get := func(k string) (*npyx.Array, error) {
		x, ok := a[k]
		if !ok {
			return nil, fmt.Errorf("%s with %d latent layers (gen_W1 … gen_W%d): missing array %s (have %v)", typ, L, L, k, names)
		}
		return x, nil
	}
	sizes := make([]int, L+1)
	for l := 1; l <= L; l++ {
		w, err := get("gen_W" + strconv.Itoa(l))
		if err != nil {
			return nil, err
		}
		if len(w.Shape) != 2 {
			return nil, fmt.Errorf("%s: gen_W%d has shape %v; expected a matrix n_%d×n_%d", typ, l, w.Shape, l-1, l)
		}
		if l > 1 && w.Shape[0] != sizes[l-1] {
			return nil, fmt.Errorf("%s: gen_W%d has %d rows but gen_W%d has %d columns (layer %d has one size)", typ, l, w.Shape[0], l-1, sizes[l-1], l-1)
		}
		sizes[l-1], sizes[l] = w.Shape[0], w.Shape[1]
	}
	if err := models.CheckSizes(typ, sizes); err != nil {
		return nil, err
	}
	n := New(sizes, ar)
	fill := func(k string, dst []float64, shape ...int) error {
		x, err := get(k)
		if err != nil {
			return err
		}
		if fmt.Sprint(x.Shape) != fmt.Sprint(shape) {
			return fmt.Errorf("%s: %s has shape %v; expected %v", typ, k, x.Shape, shape)
		}
		copy(dst, x.Data)
		return nil
	}
	for l := 0; l <= L; l++ {
		s := strconv.Itoa(l)
		if l > 0 {
			if err := fill("gen_W"+s, n.W[l], sizes[l-1], sizes[l]); err != nil {
				return nil, err
			}
		}
		if err := fill("gen_b"+s, n.B[l], sizes[l]); err != nil {
			return nil, err
		}
		if ar {
			if err := fill("gen_S"+s, n.S[l], sizes[l], sizes[l]); err != nil {
				return nil, err
			}
		}
	}
	_, hasRec := a["rec_W1"]
	_, hasT := a["rec_S1"]
	if hasRec {
		n.Rec = NewRecognition(sizes, hasT)
		for l := 1; l <= L; l++ {
			s := strconv.Itoa(l)
			if err := fill("rec_W"+s, n.Rec.R[l], sizes[l-1], sizes[l]); err != nil {
				return nil, err
			}
			if err := fill("rec_c"+s, n.Rec.C[l], sizes[l]); err != nil {
				return nil, err
			}
			if hasT {
				if err := fill("rec_S"+s, n.Rec.T[l], sizes[l], sizes[l]); err != nil {
					return nil, err
				}
			}
		}
	}
	for _, k := range names {
		m := arrayName.FindStringSubmatch(k)
		l, _ := strconv.Atoi(m[2])
		if l > L || (m[1] != "gen_b" && m[1] != "gen_S" && l == 0) || (m[1] == "gen_S" && !ar) || (m[1][:3] == "rec" && !hasRec) || (m[1] == "rec_S" && !hasT) {
			return nil, fmt.Errorf("%s with %d latent layers: array %s does not belong to it (have %v)", typ, L, k, names)
		}
	}
	if err := n.Validate(); err != nil {
		return nil, err
	}
	return n, nil
}
