package data

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"

	"github.com/logz-ml/logz/internal/nmath"
	"github.com/logz-ml/logz/models"
)

// PlantedSpec describes the planted synthetic data set: examples drawn
// exactly from a small RBM with seeded random parameters, so that the true
// log-likelihood of any model on it can be computed (PlantedRBM gives the
// generating RBM). Fields ≤ 0 take the defaults of DefaultPlanted (Seed 0 is
// a seed like any other); Validate rejects negative values.
type PlantedSpec struct {
	// Model names a planted model (PlantedModels): "rbm" (the default,
	// also for ""), "ising" or "ising-ferro" (PlantedIsing: a Rows×Cols grid; Visible is
	// Rows·Cols and Hidden is unused), or one registered by the package
	// that holds the model's sampler (RegisterPlanted; package sbn
	// registers "sbn").
	Model              string
	Visible, Hidden    int     // units of the planted model; default 20 and 8
	Rows, Cols         int     // the grid of model "ising"; default 4 and 5
	Train, Valid, Test int     // examples per split; default 2000, 500, 1000
	Seed               uint64  // seeds the parameters and the draws
	WeightScale        float64 // s in the construction below; default 0.5
}

// DefaultPlanted is the embedded default data set of logz.
var DefaultPlanted = PlantedSpec{Model: "rbm", Visible: 20, Hidden: 8, Rows: 4, Cols: 5, Train: 2000, Valid: 500, Test: 1000, Seed: 0, WeightScale: 0.5}

// MaxPlantedEnum bounds min(Visible, Hidden): exact sampling enumerates the
// 2^min(D,H) states of the smaller layer.
const MaxPlantedEnum = 20

// MaxPlantedUnits bounds Visible and Hidden (the planted RBM has
// Visible×Hidden weights); each split's examples × Visible is bounded by
// MaxElements, like a data file.
const MaxPlantedUnits = 100000

// MaxPlantedGrid bounds the rows and cols of a planted Ising grid.
const MaxPlantedGrid = 300

// MaxPlantedWeightScale bounds WeightScale s: the planted weights are
// about 8s (rbm, sbn) or up to s (ising couplings), and must stay far
// inside models.MaxAbsParam.
const MaxPlantedWeightScale = 100

// MaxPlantedScaledUnits bounds Visible × WeightScale of the planted rbm:
// each hidden bias cancels what its pattern gains from the visible layer,
// a sum over the visible units that grows as about 1.5–3 × Visible × s
// (at D·s = 1000 the largest |b_j| over many seeds is about 3,000), and
// must stay inside models.MaxAbsParam = 10^4.
const MaxPlantedScaledUnits = 1000

// Generator streams (the second argument of rand.NewPCG) of the planted
// data: PlantedParamStream draws a planted model's parameters, the others
// the examples of a split.
const (
	PlantedParamStream = 0x706c616e74656400 // "planted\x00"
	plantedTrainStream = PlantedParamStream + 1
	plantedValidStream = PlantedParamStream + 2
	plantedTestStream  = PlantedParamStream + 3
)

// A PlantedSampler draws the n examples of one split of the planted data
// set of a spec (after WithDefaults) from rng = rand.NewPCG(spec.Seed,
// stream); a sampler that needs further generators derives them from
// spec.Seed and stream. It builds its model from
// rand.NewPCG(spec.Seed, PlantedParamStream), and each example consumes a
// fixed number of draws, so that the first n examples of a larger split are
// those of a smaller one.
type PlantedSampler func(spec PlantedSpec, n int, rng *rand.Rand, stream uint64) (*Set, error)

var (
	plantedMu sync.RWMutex
	planted   = map[string]PlantedSampler{"rbm": sampleRBM, "ising": sampleIsingSpec, PlantedIsingFerro: sampleIsingSpec}
)

// RegisterPlanted makes a planted model available under name (the Model of
// a PlantedSpec). It is meant for the init function of the package that
// holds the model's sampler, so that data needs nothing above models; it
// panics if name is empty or already registered.
func RegisterPlanted(name string, s PlantedSampler) {
	plantedMu.Lock()
	defer plantedMu.Unlock()
	if name == "" || s == nil {
		panic("data: RegisterPlanted needs a name and a sampler")
	}
	if _, dup := planted[name]; dup {
		panic("data: planted model registered twice: " + name)
	}
	planted[name] = s
}

// PlantedModels lists the names of the planted models, sorted.
func PlantedModels() []string {
	plantedMu.RLock()
	defer plantedMu.RUnlock()
	return slices.Sorted(maps.Keys(planted))
}

// plantedSampler returns the sampler of a planted model.
func plantedSampler(name string) (PlantedSampler, error) {
	plantedMu.RLock()
	s, ok := planted[name]
	plantedMu.RUnlock()
	if !ok {
		names := PlantedModels()
		want := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
		return nil, fmt.Errorf("planted: model is %q; expected %s", name, want)
	}
	return s, nil
}

// WithDefaults returns the spec with every field ≤ 0 (or NaN) replaced by
// its default.
func (p PlantedSpec) WithDefaults() PlantedSpec {
	d := DefaultPlanted
	def := func(x *int, v int) {
		if *x <= 0 {
			*x = v
		}
	}
	if p.Model == "" {
		p.Model = "rbm"
	}
	def(&p.Visible, d.Visible)
	def(&p.Hidden, d.Hidden)
	def(&p.Train, d.Train)
	def(&p.Valid, d.Valid)
	def(&p.Test, d.Test)
	def(&p.Rows, d.Rows)
	def(&p.Cols, d.Cols)
	if IsPlantedGrid(p.Model) {
		p.Visible = p.Rows * p.Cols
	}
	if !(p.WeightScale > 0) {
		p.WeightScale = d.WeightScale
	}
	return p
}

// Validate rejects negative sizes, a negative, non-finite or too large
// weight scale (MaxPlantedWeightScale), too many units, examples or grid
// cells, a smaller layer too large to enumerate, and a planted rbm whose
// visible × weight_scale exceeds MaxPlantedScaledUnits.
func (p PlantedSpec) Validate() error {
	for _, f := range []struct {
		name string
		v    int
	}{{"visible", p.Visible}, {"hidden", p.Hidden}, {"rows", p.Rows}, {"cols", p.Cols}, {"train", p.Train}, {"valid", p.Valid}, {"test", p.Test}} {
		if f.v < 0 {
			return fmt.Errorf("planted: %s is %d; expected a positive number (0 = default)", f.name, f.v)
		}
	}
	if p.WeightScale < 0 || math.IsNaN(p.WeightScale) || math.IsInf(p.WeightScale, 0) {
		return fmt.Errorf("planted: weight_scale is %v; expected a positive number (0 = default %v)", p.WeightScale, DefaultPlanted.WeightScale)
	}
	if p.WeightScale > MaxPlantedWeightScale {
		return fmt.Errorf("planted: weight_scale is %v; the limit is %d (data.MaxPlantedWeightScale: larger weights saturate every unit)", p.WeightScale, MaxPlantedWeightScale)
	}
	q := p.WithDefaults()
	for _, f := range []struct {
		name string
		v    int
	}{{"visible", q.Visible}, {"hidden", q.Hidden}} {
		if f.v > MaxPlantedUnits {
			return fmt.Errorf("planted: %s is %d; the limit is %d units (data.MaxPlantedUnits)", f.name, f.v, MaxPlantedUnits)
		}
	}
	if _, err := plantedSampler(q.Model); err != nil {
		return err
	}
	if IsPlantedGrid(q.Model) && (q.Rows > MaxPlantedGrid || q.Cols > MaxPlantedGrid) {
		return fmt.Errorf("planted: the ising grid is %d×%d; rows and cols must be at most %d (data.MaxPlantedGrid)", q.Rows, q.Cols, MaxPlantedGrid)
	}
	if m := min(q.Visible, q.Hidden); q.Model == "rbm" && m > MaxPlantedEnum {
		return fmt.Errorf("planted: min(visible, hidden) is %d; exact sampling enumerates 2^%d states, the limit is %d", m, m, MaxPlantedEnum)
	}
	if x := float64(q.Visible) * q.WeightScale; q.Model == "rbm" && x > MaxPlantedScaledUnits {
		return fmt.Errorf("planted: visible × weight_scale is %d × %v = %v; the limit is %d (data.MaxPlantedScaledUnits: the planted rbm's hidden biases grow as about 2 × visible × weight_scale and would leave the range of model parameters); lower visible or weight_scale",
			q.Visible, q.WeightScale, x, MaxPlantedScaledUnits)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"train", q.Train}, {"valid", q.Valid}, {"test", q.Test}} {
		if f.v > MaxElements/q.Visible {
			return fmt.Errorf("planted: %s is %d examples of %d units, more than the limit of %d values (data.MaxElements)", f.name, f.v, q.Visible, MaxElements)
		}
	}
	return nil
}

// PlantedRBM returns the generating RBM of the spec (after WithDefaults).
// With D visible and H hidden units, s = WeightScale, k = max(1, round(D/4))
// and every z an independent N(0,1) draw from rand.NewPCG(Seed, stream):
//
//   - π is a random permutation of the visible units, and hidden unit j owns
//     the pattern P_j = {π[(⌊jD/H⌋ + t) mod D] : t < k}, a window of k units
//     of π (neighbouring patterns share a few units, none is repeated);
//   - W_ij = s·(z_ij + 8·[i ∈ P_j] − 4·[i ∉ P_j]): h_j turns its pattern on
//     and the other units off, so hidden units compete;
//   - a_i = −1 + 0.25·z_i;
//   - b_j = c_j − Σ_i [softplus(a_i + W_ij) − softplus(a_i)], c_j = −1 + 0.5·z_j:
//     the sum cancels what switching h_j on alone gains from the visible
//     layer, so p(h_j = 1 | other h = 0) = σ(c_j) ≈ 0.27 and no pattern
//     swamps the others.
//
// For the default spec (D = 20, H = 8, s = 0.5, Seed 0) p(v) is a sparse
// mixture of overlapping patterns: 5.6 units on in 20 on average, 9 local
// modes, the most likely image holding 3.7% of the mass, and an entropy of
// 7.39 nats (uniform: 13.86), 4.24 nats below that of the independent-unit
// model with the same marginals; other seeds are alike. The tests assert
// these properties (with margins), so learning the couplings matters.
func PlantedRBM(spec PlantedSpec) *models.RBM {
	p := spec.WithDefaults()
	D, H, s := p.Visible, p.Hidden, p.WeightScale
	rng := rand.New(rand.NewPCG(p.Seed, PlantedParamStream))
	m := models.NewRBM(D, H)
	k := max(1, int(math.Round(float64(D)/4)))
	perm := rng.Perm(D)
	for j := range H {
		for i := range D {
			m.W[i*H+j] = -4 * s
		}
		start := j * D / H
		for t := range min(k, D) {
			m.W[perm[(start+t)%D]*H+j] = 8 * s
		}
	}
	for i := range D {
		for j := range H {
			m.W[i*H+j] += s * rng.NormFloat64()
		}
	}
	for i := range D {
		m.VBias[i] = -1 + 0.25*rng.NormFloat64()
	}
	for j := range H {
		gain := 0.0
		for i := range D {
			gain += nmath.Softplus(m.VBias[i]+m.W[i*H+j]) - nmath.Softplus(m.VBias[i])
		}
		m.HBias[j] = -1 + 0.5*rng.NormFloat64() - gain
	}
	return m
}

// Planted returns split "train", "valid" or "test" of the planted data set,
// named "planted:<split>". The splits are drawn exactly from the planted
// model (PlantedRBM(spec) by default; see PlantedSampler) with independent
// generators rand.NewPCG(Seed, stream) per split, so the
// size of one split does not change the examples of another, and each
// example consumes a fixed number of draws, so the first n examples of a
// larger split are the examples of a smaller one.
func Planted(spec PlantedSpec, split string) (*Set, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	p := spec.WithDefaults()
	var n int
	var stream uint64
	switch split {
	case "train":
		n, stream = p.Train, plantedTrainStream
	case "valid":
		n, stream = p.Valid, plantedValidStream
	case "test":
		n, stream = p.Test, plantedTestStream
	default:
		return nil, fmt.Errorf("planted: unknown split %q; expected train, valid or test", split)
	}
	sample, err := plantedSampler(p.Model)
	if err != nil {
		return nil, err
	}
	s, err := sample(p, n, rand.New(rand.NewPCG(p.Seed, stream)), stream)
	if err != nil {
		return nil, err
	}
	s.Name = "planted:" + split
	return s, nil
}

// sampleRBM is the PlantedSampler of model "rbm": exact draws from
// PlantedRBM.
func sampleRBM(p PlantedSpec, n int, rng *rand.Rand, _ uint64) (*Set, error) {
	s, err := ExactSample(PlantedRBM(p), n, rng)
	if err != nil {
		return nil, fmt.Errorf("planted: the settings of the planted data generator (model rbm, visible %d, hidden %d, weight_scale %v) give an rbm it cannot sample: %w", p.Visible, p.Hidden, p.WeightScale, err)
	}
	return s, nil
}

// ExactSample draws n independent examples exactly from p(v) of a small RBM
// (min(D, H) ≤ MaxPlantedEnum), with no Markov chain: it enumerates the
// smaller layer. If H ≤ D it computes
//
//	log p(h) = bᵀh + Σ_i softplus(a_i + W_{i,:}h) − log Z
//
// for all 2^H states, draws h from that categorical distribution (one
// uniform, inverse CDF) and then v ~ p(v|h) = Π_i Bernoulli(σ(a_i + W_{i,:}h))
// (D uniforms); otherwise it draws v directly from log p(v) = −F(v) − log Z.
// Every example consumes the same number of uniforms.
func ExactSample(m *models.RBM, n int, rng *rand.Rand) (*Set, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	D, H := m.NVis, m.NHid
	if min(D, H) > MaxPlantedEnum {
		return nil, fmt.Errorf("exact sampling of a %d×%d RBM enumerates 2^%d states; the limit is 2^%d", D, H, min(D, H), MaxPlantedEnum)
	}
	if n < 0 {
		return nil, fmt.Errorf("exact sampling: %d examples requested", n)
	}
	hidden := H <= D
	L := D
	if hidden {
		L = H
	}
	// Log-probabilities of the 2^L states of the enumerated layer, state k
	// having unit u on iff bit u of k is set.
	logp := make([]float64, 1<<L)
	state := make([]float64, L)
	scratch := make([]float64, max(D, H))
	for k := range logp {
		for u := range state {
			state[u] = float64(k >> u & 1)
		}
		if hidden {
			logp[k] = m.LogUnnormGivenHidden(state, scratch)
		} else {
			logp[k] = m.LogUnnorm(state, scratch)
		}
	}
	logZ := nmath.LogSumExp(logp)
	cdf := make([]float64, len(logp))
	acc := 0.0
	last := 0 // the last state with positive probability
	for k, lp := range logp {
		p := math.Exp(lp - logZ) // a normalised probability ≤ 1
		acc += p
		cdf[k] = acc
		if p > 0 {
			last = k
		}
	}
	out := &Set{N: n, D: D, X: make([]uint8, n*D)}
	pre := make([]float64, D)
	for r := range n {
		// Smallest k with u·total < cdf[k]; rounding cannot pick a state of
		// zero probability beyond the last positive one.
		u := rng.Float64() * acc
		lo, hi := 0, len(cdf)-1
		for lo < hi {
			mid := (lo + hi) / 2
			if cdf[mid] > u {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		k := min(lo, last)
		row := out.X[r*D : (r+1)*D]
		if !hidden {
			for i := range row {
				row[i] = uint8(k >> i & 1)
			}
			continue
		}
		for u := range state {
			state[u] = float64(k >> u & 1)
		}
		m.VisiblePreact(pre, state)
		for i, x := range pre {
			if rng.Float64() < nmath.Sigmoid(x) {
				row[i] = 1
			}
		}
	}
	return out, nil
}
