package models

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/internal/npyx"
)

// DBN is a deep belief network (Hinton, Osindero & Teh 2006; Salakhutdinov &
// Murray 2008, §4) with L ≥ 2 hidden layers, stored as the stack of RBMs it
// was (or could have been) learned from greedily. Write x_0 = v and
// x_1 = h1, …, x_L = hL for the layers, n_l for their sizes, and
// Layers[l] = (W_l, a_l, b_l) for the RBM between x_l (its visible layer,
// n_l units) and x_{l+1} (its hidden layer, n_{l+1} units), l = 0…L−1.
//
// The generative model is directed from the top down except for the top RBM,
// Layers[L−1], which is undirected over (x_{L−1}, x_L):
//
//	p(v, h1, …, hL) = p(h_{L−1}, h_L) · Π_{l=0}^{L−2} p(x_l | x_{l+1}),
//	p(x_l | x_{l+1}) = Π_i σ(z_{l,i})^{x_{l,i}} σ(−z_{l,i})^{1−x_{l,i}},  z_l = a_l + W_l x_{l+1},
//	p(h_{L−1}, h_L)  = e^{−E_{L−1}(h_{L−1}, h_L)} / Z_top,  E(x, y) = −xᵀWy − aᵀx − bᵀy,
//
// so p(v|h1) = σ(a_0 + W_0 h1) and so on: the directed layers use the RBMs'
// weights and visible biases; their hidden biases b_l (l < L−1) are not part
// of the generative model. Summing h_L out of the top RBM gives its
// unnormalised marginal
//
//	log p*(h_{L−1}) = a_{L−1}ᵀh_{L−1} + Σ_j softplus(b_{L−1,j} + (W_{L−1}ᵀh_{L−1})_j),
//
// and log p(v) = log Σ_{h1…h_{L−1}} Π_{l<L−1} p(x_l|x_{l+1}) · p*(h_{L−1}) − log Z_top.
//
// The approximate posterior (recognition model) used for training the next
// layer and by the estimators is factorial and goes bottom-up with the same
// weights:
//
//	Q(h1, …, h_{L−1} | v) = Π_{l=1}^{L−1} Q(x_l | x_{l−1}),  Q(x_l = 1 | x_{l−1}) = σ(b_{l−1} + W_{l−1}ᵀ x_{l−1}).
//
// model.npz arrays (type "dbn"): for each layer l = 1…L (1-based), the RBM
// between layer l−1 and layer l as
//
//	W<l>      n_{l−1} × n_l   e.g. W1 (D × H1), W2 (H1 × H2)
//	vbias<l>  n_{l−1}         generative biases of layer l−1 (vbias1 = the visible biases of p(v|h1))
//	hbias<l>  n_l             recognition biases of layer l (hbias<L> = the top RBM's hidden biases)
//
// all float64, plus "meta" as for RBMs ({"type":"dbn","format":1,...}).
// The layer numbers must run from 1 without gaps, L ≥ 2.
type DBN struct {
	// Layers[l] is the RBM between layer l (visible side) and layer l+1;
	// the last one is the top RBM.
	Layers []*RBM
}

// NewDBN returns a DBN with all parameters zero; sizes = [n_0 = D, n_1, …, n_L]
// with L ≥ 2.
func NewDBN(sizes ...int) (*DBN, error) {
	if len(sizes) < 3 {
		return nil, fmt.Errorf("dbn: want the visible size and at least two hidden layer sizes, got %v", sizes)
	}
	for i, n := range sizes {
		if n <= 0 {
			return nil, fmt.Errorf("dbn: layer %d has size %d; sizes must be positive (got %v)", i, n, sizes)
		}
	}
	if err := CheckSizes("dbn", sizes); err != nil {
		return nil, err
	}
	d := &DBN{}
	for l := 0; l+1 < len(sizes); l++ {
		d.Layers = append(d.Layers, NewRBM(sizes[l], sizes[l+1]))
	}
	return d, nil
}

// TypeName implements Model.
func (d *DBN) TypeName() string { return "dbn" }

// Label names the model with its sizes, e.g. "dbn 784-500-2000".
func (d *DBN) Label() string { return "dbn " + joinSizes(d.Sizes()) }

// NumVisible implements Model.
func (d *DBN) NumVisible() int {
	if len(d.Layers) == 0 {
		return 0
	}
	return d.Layers[0].NVis
}

// NumLayers returns L, the number of hidden layers.
func (d *DBN) NumLayers() int { return len(d.Layers) }

// Sizes returns [n_0 = D, n_1, …, n_L].
func (d *DBN) Sizes() []int {
	if len(d.Layers) == 0 {
		return nil
	}
	s := []int{d.Layers[0].NVis}
	for _, r := range d.Layers {
		s = append(s, r.NHid)
	}
	return s
}

// Top returns the top RBM, over (h_{L−1}, h_L).
func (d *DBN) Top() *RBM { return d.Layers[len(d.Layers)-1] }

// Clone returns a deep copy.
func (d *DBN) Clone() *DBN {
	c := &DBN{Layers: make([]*RBM, len(d.Layers))}
	for l, r := range d.Layers {
		c.Layers[l] = r.Clone()
	}
	return c
}

// Validate checks that there are at least two layers, that each layer is a
// valid RBM and that the sizes chain together (the hidden layer of
// Layers[l] is the visible layer of Layers[l+1]).
func (d *DBN) Validate() error {
	if len(d.Layers) < 2 {
		return fmt.Errorf("dbn: %d layer(s); a DBN needs at least two hidden layers (one is an RBM)", len(d.Layers))
	}
	for l, r := range d.Layers {
		if r == nil {
			return fmt.Errorf("dbn: layer %d is missing", l+1)
		}
		s := strconv.Itoa(l + 1)
		if err := r.validate(fmt.Sprintf("dbn: layer %d: ", l+1), "W"+s, "vbias"+s, "hbias"+s); err != nil {
			return err
		}
		if l > 0 && r.NVis != d.Layers[l-1].NHid {
			return fmt.Errorf("dbn: layer %d has %d visible units but layer %d has %d hidden units; they are the same layer and must match",
				l+1, r.NVis, l, d.Layers[l-1].NHid)
		}
	}
	return nil
}

// LogGenerative returns log p(x_l = lower | x_{l+1} = upper) under the
// directed layer l (0 ≤ l ≤ L−2; l = 0 is p(v|h1)):
// Σ_i [x_i z_i − softplus(z_i)] with z = a_l + W_l·upper. scratch, if it has
// length ≥ n_l, avoids an allocation.
func (d *DBN) LogGenerative(l int, lower, upper, scratch []float64) float64 {
	r := d.Layers[l]
	if len(scratch) < r.NVis {
		scratch = make([]float64, r.NVis)
	}
	z := scratch[:r.NVis]
	r.VisiblePreact(z, upper)
	return logBernoulli(lower[:r.NVis], z)
}

// LogRecognition returns log Q(x_{l+1} = upper | x_l = lower) =
// Σ_j [u_j y_j − softplus(y_j)] with y = b_l + W_lᵀ·lower (0 ≤ l ≤ L−2).
// scratch, if it has length ≥ n_{l+1}, avoids an allocation.
func (d *DBN) LogRecognition(l int, upper, lower, scratch []float64) float64 {
	r := d.Layers[l]
	if len(scratch) < r.NHid {
		scratch = make([]float64, r.NHid)
	}
	y := scratch[:r.NHid]
	r.HiddenPreact(y, lower)
	return logBernoulli(upper[:r.NHid], y)
}

// LogUnnormJoint returns log p*(v, h1, …, h_{L−1}) = Σ_{l=0}^{L−2} log p(x_l | x_{l+1})
// + log p*(h_{L−1}), the log joint probability of the layers below the top
// RBM's hidden layer times Z_top (hs[l−1] = h_l, l = 1…L−1). scratch, if
// it has length ≥ max_l n_l, avoids allocations.
func (d *DBN) LogUnnormJoint(v []float64, hs [][]float64, scratch []float64) float64 {
	L := len(d.Layers)
	s := 0.0
	lower := v
	for l := 0; l < L-1; l++ {
		s += d.LogGenerative(l, lower, hs[l], scratch)
		lower = hs[l]
	}
	return s + d.Top().LogUnnorm(hs[L-2], scratch)
}

// logBernoulli returns Σ_i log Bern(x_i; σ(z_i)) = Σ_i [x_i z_i − softplus(z_i)].
func logBernoulli(x, z []float64) float64 {
	s := 0.0
	for i, zi := range z {
		s += x[i]*zi - nmath.Softplus(zi)
	}
	return s
}

// dbnArrayName matches W<l>, vbias<l>, hbias<l> and returns the kind and l.
func dbnArrayName(name string) (kind string, layer int, ok bool) {
	for _, k := range []string{"W", "vbias", "hbias"} {
		if rest, found := strings.CutPrefix(name, k); found && rest != "" && rest[0] != '0' {
			n, err := strconv.Atoi(rest)
			if err == nil && n > 0 && strconv.Itoa(n) == rest {
				return k, n, true
			}
		}
	}
	return "", 0, false
}

func dbnFromArrays(a map[string]*npyx.Array) (Model, error) {
	maxL := 0
	var seen []string
	for name := range a {
		if _, l, ok := dbnArrayName(name); ok {
			if err := CheckLayerIndex("dbn", name, l); err != nil {
				return nil, err
			}
			maxL = max(maxL, l)
			seen = append(seen, name)
		}
	}
	sort.Strings(seen)
	if maxL < 2 {
		return nil, fmt.Errorf("dbn: needs arrays W1, vbias1, hbias1, W2, vbias2, hbias2, … (at least two layers); found %v", seen)
	}
	d := &DBN{}
	for l := 1; l <= maxL; l++ {
		sub := map[string]*npyx.Array{}
		var missing []string
		for _, k := range []string{"W", "vbias", "hbias"} {
			name := k + strconv.Itoa(l)
			if x, ok := a[name]; ok {
				sub[k] = x
			} else {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("dbn: layer %d of %d: missing array(s) %s (layers must be numbered 1…L without gaps)", l, maxL, strings.Join(missing, ", "))
		}
		m, err := rbmFromArrays(sub)
		if err != nil {
			return nil, fmt.Errorf("dbn: layer %d (arrays W%d, vbias%d, hbias%d): %w", l, l, l, l, err)
		}
		d.Layers = append(d.Layers, m.(*RBM))
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// DBNType is the codec of the deep belief network.
var DBNType = Type{
	Name:      "dbn",
	Doc:       "deep belief network, a stack of L ≥ 2 RBMs (directed sigmoid layers, RBM on top): arrays W<l> (n_{l−1}×n_l), vbias<l> (n_{l−1}), hbias<l> (n_l) for l = 1…L",
	Signature: []string{"W1", "vbias1", "hbias1", "W2", "vbias2", "hbias2"},
	Owns:      func(name string) bool { _, _, ok := dbnArrayName(name); return ok },
	New: func(visible int, hidden []int) (Model, error) {
		return NewDBN(append([]int{visible}, hidden...)...)
	},
	Arrays: func(m Model) []Array {
		d := m.(*DBN)
		var out []Array
		for l, r := range d.Layers {
			s := strconv.Itoa(l + 1)
			out = append(out,
				Array{"W" + s, []int{r.NVis, r.NHid}, r.W},
				Array{"vbias" + s, []int{r.NVis}, r.VBias},
				Array{"hbias" + s, []int{r.NHid}, r.HBias})
		}
		return out
	},
	FromArrays: dbnFromArrays,
}
