package data

import (
	"fmt"

	"github.com/logz-ml/logz/internal/npyx"
)

// ReadNPY reads a .npy array of 0/1 values of any numeric or boolean dtype
// as a Set named path. The shape must be N×D, or N×rows×cols, which is
// flattened to D = rows·cols (images saved by NumPy); 1-D, 4-D and higher
// shapes, and empty ones, are errors. Any value other than 0 or 1 (0.5, 255,
// NaN, …) is an error naming the file and the first offending index.
//
// The path must name a regular file (a directory, a named pipe or a device
// such as /dev/zero is refused before it is opened), and its header may
// declare at most npyx.MaxElements elements, no more than the file holds.
func ReadNPY(path string) (*Set, error) {
	a, err := npyx.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return npyToSet(a, path)
}

// DecodeNPY is ReadNPY for an in-memory file; name is used in messages.
func DecodeNPY(b []byte, name string) (*Set, error) {
	a, err := npyx.Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return npyToSet(a, name)
}

func npyToSet(a *npyx.Array, name string) (*Set, error) {
	var n, d int
	switch len(a.Shape) {
	case 2:
		n, d = a.Shape[0], a.Shape[1]
	case 3:
		n, d = a.Shape[0], a.Shape[1]*a.Shape[2]
	default:
		return nil, fmt.Errorf("%s: array has shape %v; expected N×D (2-D) or N×rows×cols (3-D)", name, a.Shape)
	}
	if n == 0 || d == 0 {
		return nil, fmt.Errorf("%s: array of shape %v is empty; expected at least one example of at least one unit", name, a.Shape)
	}
	if len(a.Data) != n*d {
		return nil, fmt.Errorf("%s: %d values for shape %v", name, len(a.Data), a.Shape)
	}
	s := &Set{Name: name, N: n, D: d, X: make([]uint8, n*d)}
	for k, x := range a.Data {
		switch x {
		case 0:
		case 1:
			s.X[k] = 1
		default:
			return nil, fmt.Errorf("%s: element %v (flat index %d) is %v; expected 0/1 data (npy: data is used as it is, not binarised; give grey images as an IDX file, idx:PATH, to binarise them)", name, unravel(k, a.Shape), k, x)
		}
	}
	return s, nil
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
