package data

import (
	"fmt"
	"math/rand/v2"
)

// Grey is a set of N grey images of D pixels each, Pix[n*D+i] ∈ {0,…,255}
// (0 = background), as stored in MNIST-style IDX files.
type Grey struct {
	Name string
	N, D int
	Pix  []uint8
}

// Binarisation methods.
const (
	// Stochastic sets each pixel to 1 with probability pixel/255, as in
	// Salakhutdinov & Murray (2008); the draws come from a given generator.
	Stochastic = "stochastic"
	// Threshold sets a pixel to 1 when pixel/255 > t.
	Threshold = "threshold"
	// None keeps data that is already 0/1; any other value is an error.
	None = "none"
)

// DefaultThreshold is the threshold t of the Threshold method when
// Binarization.Threshold is zero.
const DefaultThreshold = 0.5

// Methods lists the accepted binarisation methods, for messages.
const Methods = "stochastic, threshold or none"

// Binarize turns the grey images into binary data:
//
//   - Stochastic: x = 1 with probability pixel/255, drawn from rng (which
//     must be non-nil). A pixel of 0 or 255 consumes no draw (its outcome is
//     certain); any other pixel consumes one rng.Uint32N(255), and
//     x = 1 ⇔ draw < pixel, which has probability exactly pixel/255. The same
//     generator state therefore always gives the same bits.
//   - Threshold: x = 1 ⇔ pixel/255 > threshold, threshold ∈ [0, 1). Because
//     pixels are multiples of 1/255, every threshold in [0, 1/255) gives
//     "any ink is 1".
//   - None: only for data already 0/1; a pixel > 1 is an error naming the
//     example and the pixel.
//
// Stochastic and Threshold refuse images whose largest pixel is 1 (data
// already 0/1 would be read as 1/255 grey and almost erased); use None.
func (g *Grey) Binarize(method string, threshold float64, rng *rand.Rand) (*Set, error) {
	if len(g.Pix) != g.N*g.D {
		return nil, fmt.Errorf("%s: %d pixels for %d images of %d pixels", g.Name, len(g.Pix), g.N, g.D)
	}
	out := &Set{Name: g.Name, N: g.N, D: g.D, X: make([]uint8, len(g.Pix))}
	switch method {
	case None:
		for k, p := range g.Pix {
			if p > 1 {
				return nil, fmt.Errorf("%s: example %d, pixel %d is %d: binarisation %q needs 0/1 data; grey images need %q or %q",
					g.Name, k/g.D, k%g.D, p, None, Stochastic, Threshold)
			}
		}
		copy(out.X, g.Pix)
		return out, nil
	case Threshold, Stochastic:
	case "":
		return nil, fmt.Errorf("%s: grey images need an explicit binarisation method (%s)", g.Name, Methods)
	default:
		return nil, fmt.Errorf("%s: unknown binarisation method %q; expected %s", g.Name, method, Methods)
	}
	var maxPix uint8
	for _, p := range g.Pix {
		maxPix = max(maxPix, p)
	}
	if maxPix == 1 {
		return nil, fmt.Errorf("%s: the data is already 0/1 (largest pixel 1); binarisation %q would read 1 as 1/255 grey; use %q",
			g.Name, method, None)
	}
	if method == Threshold {
		if !(threshold >= 0 && threshold < 1) {
			return nil, fmt.Errorf("%s: threshold %v out of range; expected 0 ≤ t < 1 (pixel/255 > t is 1)", g.Name, threshold)
		}
		var table [256]uint8
		for p := range table {
			if float64(p)/255 > threshold {
				table[p] = 1
			}
		}
		for k, p := range g.Pix {
			out.X[k] = table[p]
		}
		return out, nil
	}
	if rng == nil {
		return nil, fmt.Errorf("%s: stochastic binarisation needs a random generator", g.Name)
	}
	for k, p := range g.Pix {
		switch p {
		case 0:
		case 255:
			out.X[k] = 1
		default:
			if rng.Uint32N(255) < uint32(p) {
				out.X[k] = 1
			}
		}
	}
	return out, nil
}

// Binarization says how Load turns grey images into 0/1 data. The zero
// value has no method, which is accepted only for data that is already
// binary (npy: and planted: specs).
type Binarization struct {
	// Method is Stochastic, Threshold or None.
	Method string
	// Threshold is t of the Threshold method (pixel/255 > t is 1), in
	// [0, 1); zero means DefaultThreshold (0.5). For "any ink is 1" use any
	// value below 1/255, e.g. 0.001.
	Threshold float64
	// Seed seeds the Stochastic draws: the generator is
	// rand.NewPCG(Seed, stream) with stream the 64-bit FNV-1a hash of the
	// spec string, so the train and test sets get independent draws.
	Seed uint64
}

// threshold returns the effective threshold.
func (b Binarization) threshold() float64 {
	if b.Threshold == 0 {
		return DefaultThreshold
	}
	return b.Threshold
}

// Validate checks the method name and the threshold.
func (b Binarization) Validate() error {
	switch b.Method {
	case "", None, Stochastic:
	case Threshold:
		if t := b.threshold(); !(t >= 0 && t < 1) {
			return fmt.Errorf("binarisation threshold %v out of range; expected 0 ≤ t < 1", b.Threshold)
		}
	default:
		return fmt.Errorf("unknown binarisation method %q; expected %s", b.Method, Methods)
	}
	return nil
}
