package data

import (
	"fmt"
	"math"

	"github.com/logz-ml/logz/internal/npyx"
)

// ReadNPY reads a .npy array of 0/1 values of any numeric or boolean dtype
// as a Set named path. The shape must be N×D, or N×rows×cols, which is
// flattened to D = rows·cols (images saved by NumPy); 1-D, 4-D and higher
// shapes, and empty ones, are errors. Any value other than 0 or 1 (0.5, 255,
// NaN, …) is an error naming the file and the first offending index; Load
// reads grey levels in npy: files too (see ReadNPYAny).
//
// The path must name a regular file (a directory, a named pipe or a device
// such as /dev/zero is refused before it is opened), and its header may
// declare at most npyx.MaxElements elements, no more than the file holds.
func ReadNPY(path string) (*Set, error) {
	s, g, err := ReadNPYAny(path)
	if err == nil && g != nil {
		return nil, fmt.Errorf("%s: holds grey levels, not 0/1 data; read it as a data spec npy:%s with a binarisation (data.binarize, --binarize)", path, path)
	}
	return s, err
}

// DecodeNPY is ReadNPY for an in-memory file; name is used in messages.
func DecodeNPY(b []byte, name string) (*Set, error) {
	a, err := npyx.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s, g, err := npyToData(a, name)
	if err == nil && g != nil {
		return nil, fmt.Errorf("%s: holds grey levels, not 0/1 data", name)
	}
	return s, err
}

// ReadNPYAny reads a .npy array (shapes as ReadNPY) as 0/1 data when every
// value is 0 or 1, else as grey images to binarise:
//
//   - values in [0, 1] (floats, e.g. images divided by 255): grey level
//     round(255·v), an 8-bit image as an IDX file holds;
//   - integers in 0…255 (e.g. uint8 images): that grey level.
//
// Exactly one of the two results is non-nil. Other values (negative, above
// 255, fractions above 1, NaN) are an error naming the first one.
func ReadNPYAny(path string) (*Set, *Grey, error) {
	a, err := npyx.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	return npyToData(a, path)
}

func npyToData(a *npyx.Array, name string) (*Set, *Grey, error) {
	var n, d int
	switch len(a.Shape) {
	case 2:
		n, d = a.Shape[0], a.Shape[1]
	case 3:
		n, d = a.Shape[0], a.Shape[1]*a.Shape[2]
	default:
		return nil, nil, fmt.Errorf("%s: array has shape %v; expected N×D (2-D) or N×rows×cols (3-D)", name, a.Shape)
	}
	if n == 0 || d == 0 {
		return nil, nil, fmt.Errorf("%s: array of shape %v is empty; expected at least one example of at least one unit", name, a.Shape)
	}
	if len(a.Data) != n*d {
		return nil, nil, fmt.Errorf("%s: %d values for shape %v", name, len(a.Data), a.Shape)
	}
	// The widest kind of value present decides: 0/1, [0, 1], or 0…255.
	unit, bytes := true, true
	for k, x := range a.Data {
		switch {
		case x == 0 || x == 1:
			continue
		case x > 0 && x < 1:
			bytes = false
		case x > 1 && x <= 255 && x == math.Trunc(x):
			unit = false
		default:
			return nil, nil, fmt.Errorf("%s: element %v (flat index %d) is %v; expected 0/1 data, grey levels in [0, 1] or integer grey levels 0…255", name, unravel(k, a.Shape), k, x)
		}
		if !unit && !bytes {
			return nil, nil, fmt.Errorf("%s: element %v (flat index %d) is %v, but the array also holds fractions: expected grey levels either in [0, 1] or as integers 0…255, not both", name, unravel(k, a.Shape), k, x)
		}
	}
	if unit && bytes { // only 0 and 1
		s := &Set{Name: name, N: n, D: d, X: make([]uint8, n*d)}
		for k, x := range a.Data {
			if x == 1 {
				s.X[k] = 1
			}
		}
		return s, nil, nil
	}
	g := &Grey{Name: name, N: n, D: d, Pix: make([]uint8, n*d)}
	scale := 1.0
	if unit {
		scale = 255
	}
	for k, x := range a.Data {
		g.Pix[k] = uint8(math.Round(x * scale))
	}
	return nil, g, nil
}

// unravel turns a flat row-major index into a multi-index.
func unravel(k int, shape []int) []int {
	idx := make([]int, len(shape))
	for i := len(shape) - 1; i >= 0; i-- {
		idx[i] = k % shape[i]
		k /= shape[i]
	}
	return idx
}
