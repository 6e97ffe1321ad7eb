package data

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbinet/npyio"
	"gonum.org/v1/gonum/mat"
)

// npyBytes builds a version-1 .npy file by hand.
func npyBytes(descr string, fortran bool, shape []int, body []byte) []byte {
	sh := ""
	for _, d := range shape {
		sh += fmt.Sprintf("%d, ", d)
	}
	if len(shape) > 1 {
		sh = strings.TrimSuffix(sh, ", ")
	}
	f := "False"
	if fortran {
		f = "True"
	}
	hdr := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }", descr, f, sh)
	for (10+len(hdr)+1)%64 != 0 {
		hdr += " "
	}
	hdr += "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(hdr)))
	b = append(b, hdr...)
	return append(b, body...)
}

func f64s(xs ...float64) []byte {
	var b []byte
	for _, x := range xs {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

func TestDecodeNPYGood(t *testing.T) {
	var dense bytes.Buffer
	if err := npyio.Write(&dense, mat.NewDense(2, 3, []float64{0, 1, 1, 1, 0, 0})); err != nil {
		t.Fatal(err)
	}
	want := []uint8{0, 1, 1, 1, 0, 0}
	cases := map[string][]byte{
		"npyio float64":   dense.Bytes(),
		"uint8":           npyBytes("|u1", false, []int{2, 3}, want),
		"bool":            npyBytes("|b1", false, []int{2, 3}, want),
		"int64 big-end":   npyBytes(">i8", false, []int{2, 3}, bytes.Join([][]byte{{0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 0, 0, 1}, {0, 0, 0, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}}, nil)),
		"fortran float64": npyBytes("<f8", true, []int{2, 3}, f64s(0, 1, 1, 0, 1, 0)),
		"3-D flattened":   npyBytes("|u1", false, []int{2, 1, 3}, want),
	}
	for name, b := range cases {
		s, err := DecodeNPY(b, name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if s.N != 2 || s.D != 3 || !bytes.Equal(s.X, want) || s.Name != name {
			t.Errorf("%s: got %+v", name, s)
		}
	}
}

func TestDecodeNPYBad(t *testing.T) {
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"half.npy", npyBytes("<f8", false, []int{2, 2}, f64s(0, 1, 0.5, 1)), "half.npy: holds grey levels, not 0/1 data"},
		{"mixed.npy", npyBytes("<f8", false, []int{1, 3}, f64s(0.5, 2, 0)), "mixed.npy: element [0 1] (flat index 1) is 2, but the array also holds fractions"},
		{"big.npy", npyBytes("<f8", false, []int{1, 2}, f64s(1, 256)), "big.npy: element [0 1] (flat index 1) is 256; expected 0/1 data, grey levels in [0, 1] or integer grey levels 0…255"},
		{"grey.npy", npyBytes("|u1", false, []int{1, 3}, []byte{0, 255, 1}), "grey.npy: holds grey levels, not 0/1 data"},
		{"nan.npy", npyBytes("<f8", false, []int{1, 2}, f64s(1, math.NaN())), "element [0 1] (flat index 1) is NaN"},
		{"neg.npy", npyBytes("<f8", false, []int{1, 2}, f64s(-1, 0)), "flat index 0) is -1"},
		{"vector.npy", npyBytes("|u1", false, []int{3}, []byte{0, 1, 1}), "vector.npy: array has shape [3]; expected N×D"},
		{"scalar.npy", npyBytes("|u1", false, nil, []byte{1}), "has shape []"},
		{"4d.npy", npyBytes("|u1", false, []int{1, 1, 1, 1}, []byte{1}), "shape [1 1 1 1]"},
		{"empty.npy", npyBytes("|u1", false, []int{0, 5}, nil), "empty.npy: array of shape [0 5] is empty"},
		{"nounits.npy", npyBytes("|u1", false, []int{3, 0}, nil), "is empty"},
		{"trunc.npy", npyBytes("|u1", false, []int{2, 3}, []byte{0, 1}), "trunc.npy: truncated data"},
		{"junk.npy", []byte("not numpy at all"), "junk.npy: not a .npy file"},
		{"string.npy", npyBytes("<U1", false, []int{1, 1}, []byte{0, 0, 0, 0}), "string.npy: "},
	}
	for _, c := range cases {
		_, err := DecodeNPY(c.b, c.name)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want error containing %q", c.name, err, c.want)
		}
	}
}

func TestReadNPYFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.npy")
	if err := os.WriteFile(p, npyBytes("|u1", false, []int{2, 2}, []byte{1, 0, 0, 1}), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadNPY(p)
	if err != nil || s.N != 2 || s.D != 2 || s.Name != p {
		t.Fatalf("%+v %v", s, err)
	}
	missing := p + ".missing"
	if _, err := ReadNPY(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing: %v", err)
	}
}

func FuzzReadNPY(f *testing.F) {
	f.Add(npyBytes("|u1", false, []int{2, 3}, []byte{0, 1, 1, 1, 0, 0}))
	f.Add(npyBytes("<f8", true, []int{2, 2}, f64s(0, 1, 1, 0)))
	f.Add(npyBytes("|b1", false, []int{1, 2, 2}, []byte{0, 1, 1, 0}))
	f.Add(npyBytes("<f4", false, []int{1, 1}, []byte{0, 0, 0x80, 0x3f}))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeNPY(b, "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz: ") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if s.N <= 0 || s.D <= 0 {
			t.Fatalf("empty set %d×%d accepted", s.N, s.D)
		}
		if err := s.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestLoadGreyNPY: an npy: file of grey levels, in [0, 1] or as integers
// 0…255, is binarised by the data options exactly as the same pixels in an
// IDX file are (the stochastic draws keyed by the seed and the spec
// string; the threshold at pixel/255 > t), and its source names the
// binarisation.
func TestLoadGreyNPY(t *testing.T) {
	dir := t.TempDir()
	const n, d = 50, 12
	pix := make([]byte, n*d)
	unit := make([]float64, n*d)
	for k := range pix {
		pix[k] = byte((k*37 + k*k) % 256)
		unit[k] = float64(pix[k]) / 255
	}
	grey := &Grey{Name: "g", N: n, D: d, Pix: pix}
	path := filepath.Join(dir, "g.npy")
	spec := "npy:" + path
	for _, b := range []Binarization{{Method: Stochastic, Seed: 7}, {Method: Threshold, Threshold: 0.3}} {
		var rng *rand.Rand
		if b.Method == Stochastic {
			h := fnv.New64a()
			h.Write([]byte(spec))
			rng = rand.New(rand.NewPCG(b.Seed, h.Sum64()))
		}
		want, err := grey.Binarize(b.Method, b.threshold(), rng)
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range [][]byte{npyBytes("|u1", false, []int{n, d}, pix), npyBytes("<f8", false, []int{n, d}, f64s(unit...))} {
			if err := os.WriteFile(path, file, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := Load(spec, Options{Binarize: b})
			if err != nil {
				t.Fatalf("%s: %v", b.Method, err)
			}
			if got.Source.Binarize != b.Method {
				t.Errorf("source %+v does not name the binarisation %s", got.Source, b.Method)
			}
			if !bytes.Equal(got.X, want.X) {
				t.Errorf("%s: the npy file's bits differ from the same pixels binarised as an IDX file's", b.Method)
			}
		}
	}
	if _, err := Load(spec, Options{Binarize: Binarization{Method: None}}); err == nil {
		t.Error("grey npy: data with binarize none was accepted")
	}
}
