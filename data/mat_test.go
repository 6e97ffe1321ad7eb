package data

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixtures of data/testdata/*.mat are written by SciPy
// (scripts/make-mat-fixtures.py), an independent writer; the expected
// values below are the script's formulas, recomputed here.

func fixture(name string) string { return filepath.Join("testdata", name) }

// TestReadMATTypes: every numeric class SciPy writes reads back exactly, in
// column-major order, with its class; a 4-byte matrix (a small data
// element) and an empty one read too.
func TestReadMATTypes(t *testing.T) {
	classes := map[string]string{
		"float64": "double", "float32": "single", "int8": "int8", "int16": "int16", "int32": "int32",
		"int64": "int64", "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64",
	}
	var names []string
	for ty := range classes {
		names = append(names, "m_"+ty)
	}
	names = append(names, "one", "tiny", "empty")
	vars, err := ReadMAT(fixture("types-v5.mat"), names...)
	if err != nil {
		t.Fatal(err)
	}
	for ty, class := range classes {
		m := vars["m_"+ty]
		if m.Rows != 2 || m.Cols != 3 || m.Class != class || len(m.Data) != 6 {
			t.Fatalf("m_%s: %d×%d %s, %d values; want 2×3 %s", ty, m.Rows, m.Cols, m.Class, len(m.Data), class)
		}
		for r := range 2 {
			for c := range 3 {
				want := float64(r + 10*c)
				if strings.HasPrefix(ty, "int") {
					want = -want
				}
				if got := m.Data[r+c*2]; got != want {
					t.Errorf("m_%s[%d,%d] = %v, want %v", ty, r, c, got, want)
				}
			}
		}
	}
	if m := vars["one"]; m.Rows != 1 || m.Cols != 1 || m.Data[0] != 2.5 {
		t.Errorf("one = %+v", m)
	}
	if m := vars["tiny"]; m.Rows != 1 || m.Cols != 2 || m.Class != "uint16" || m.Data[0] != 7 || m.Data[1] != 9 {
		t.Errorf("tiny = %+v", m)
	}
	if m := vars["empty"]; m.Rows != 0 || m.Cols != 0 || len(m.Data) != 0 {
		t.Errorf("empty = %+v", m)
	}
}

// TestReadMATRefuses: variables that are not real numeric matrices, and
// names the file does not hold, are errors naming the file, the variable
// and what was expected.
func TestReadMATRefuses(t *testing.T) {
	for _, c := range []struct{ file, name, want string }{
		{"types-v5.mat", "cube", "variable cube has 3 dimensions [2 2 2]; expected a 2-D matrix"},
		{"types-v5.mat", "cplx", "variable cplx is a complex double array; expected a real numeric matrix"},
		{"omniglot-v5.mat", "alphabet", "variable alphabet is a char array; expected a numeric matrix"},
		{"omniglot-v7.mat", "names", "variable names is a cell array; expected a numeric matrix"},
		{"omniglot-v7.mat", "nosuch", "no variable nosuch in this MATLAB file (it holds alphabet, data, names, target, testdata)"},
	} {
		_, err := ReadMAT(fixture(c.file), c.name)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), c.file) {
			t.Errorf("%s %s: %v; want an error naming the file with %q", c.file, c.name, err, c.want)
		}
	}
}

// smallSizes returns the published set with the fixtures' split sizes.
func smallSizes(t *testing.T, scheme string, sizes map[string]int) Published {
	t.Helper()
	p, ok := LookupPublished(scheme)
	if !ok {
		t.Fatalf("no published set %s", scheme)
	}
	p.Sizes = sizes
	return p
}

// TestReadOmniglotFixture: chardata.mat's layout, uncompressed and
// compressed, gives the grey images row-major: the pixel at row i, column
// j of image n is data(28·j+i, n), as grey level round(255·v).
func TestReadOmniglotFixture(t *testing.T) {
	p := smallSizes(t, "omniglot", map[string]int{"train": 2, "test": 1})
	for _, file := range []string{"omniglot-v5.mat", "omniglot-v7.mat"} {
		for _, part := range []string{"train", "test"} {
			s, g, err := ReadPublished(p, part, fixture(file))
			if err != nil {
				t.Fatalf("%s %s: %v", file, part, err)
			}
			if s != nil || g.N != p.Sizes[part] || g.D != 784 {
				t.Fatalf("%s %s: set %v, grey %d×%d", file, part, s, g.N, g.D)
			}
			for n := range g.N {
				for i := range 28 {
					for j := range 28 {
						q := 28*j + i // column-major index in the file
						v := float64((7*q+13*n)%256) / 255
						if part == "test" {
							v = float64((3*q+1)%256) / 255
						} else if q == 0 && n == 0 {
							v = 0.5
						}
						if got, want := g.Pix[n*784+28*i+j], uint8(math.Round(255*v)); got != want {
							t.Fatalf("%s %s: image %d, row %d, col %d is %d, want %d", file, part, n, i, j, got, want)
						}
					}
				}
			}
			if part == "train" && g.Pix[0] != 128 {
				t.Errorf("%s: 0.5 read as grey level %d, want 128", file, g.Pix[0])
			}
		}
	}
	// The published sizes are checked.
	real, _ := LookupPublished("omniglot")
	_, _, err := ReadPublished(real, "train", fixture("omniglot-v7.mat"))
	if err == nil || !strings.Contains(err.Error(), "variable data holds 2 images; Omniglot's train split has 24345") {
		t.Errorf("size check: %v", err)
	}
}

// TestReadCaltechFixture: the silhouettes' layout (double, uint8 and
// logical splits, one image per row), uncompressed and compressed, gives
// row-major images: pixel (i, j) of image n is X(n, 28·j+i).
func TestReadCaltechFixture(t *testing.T) {
	p := smallSizes(t, "caltech-silhouettes", map[string]int{"train": 3, "valid": 2, "test": 1})
	for _, file := range []string{"caltech-v5.mat", "caltech-v7.mat"} {
		for part, off := range map[string]int{"train": 0, "valid": 10, "test": 20} {
			s, g, err := ReadPublished(p, part, fixture(file))
			if err != nil {
				t.Fatalf("%s %s: %v", file, part, err)
			}
			if g != nil || s.N != p.Sizes[part] || s.D != 784 {
				t.Fatalf("%s %s: %d×%d, grey %v", file, part, s.N, s.D, g)
			}
			ones := 0
			for n := range s.N {
				for i := range 28 {
					for j := range 28 {
						want := uint8(0)
						if (28*j+i+n+off)%3 == 0 {
							want = 1
						}
						got := s.X[n*784+28*i+j]
						ones += int(got)
						if got != want {
							t.Fatalf("%s %s: image %d, row %d, col %d is %d, want %d", file, part, n, i, j, got, want)
						}
					}
				}
			}
			if ones == 0 {
				t.Fatalf("%s %s: no ones", file, part)
			}
		}
	}
}

// TestMATTruncatedAndCorrupt: every fixture cut short anywhere, and every
// fixture with a byte changed, is read without a panic; a cut file is an
// error naming the file (the wanted variables are last but one, so every
// cut before their end loses them or their end).
func TestMATTruncatedAndCorrupt(t *testing.T) {
	cases := []struct {
		file string
		vars []string
	}{
		{"omniglot-v5.mat", []string{"data", "testdata"}},
		{"omniglot-v7.mat", []string{"data", "testdata"}},
		{"caltech-v5.mat", []string{"train_data", "val_data", "test_data"}},
		{"caltech-v7.mat", []string{"train_data", "val_data", "test_data"}},
		{"types-v5.mat", []string{"m_float64", "tiny", "empty"}},
	}
	for _, c := range cases {
		full, err := os.ReadFile(fixture(c.file))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := DecodeMAT(bytes.NewReader(full), c.file, int64(len(full)), c.vars...); err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		// A cut at the end of a top-level element leaves a valid shorter
		// file; any other cut must fail.
		bounds := elementBounds(full)
		step := max(1, len(full)/700)
		for cut := 0; cut < len(full); cut += step {
			if bounds[cut] {
				continue
			}
			for _, size := range []int64{int64(cut), -1} {
				_, err := DecodeMAT(bytes.NewReader(full[:cut]), c.file, size, c.vars...)
				if err == nil {
					t.Fatalf("%s cut to %d bytes (size %d): no error", c.file, cut, size)
				}
				if !strings.HasPrefix(err.Error(), c.file+": ") {
					t.Fatalf("%s cut to %d bytes: %v does not name the file", c.file, cut, err)
				}
			}
		}
		for k := 0; k < len(full); k += max(1, len(full)/400) {
			for _, x := range []byte{0xff, 0x01, 0x80} {
				b := bytes.Clone(full)
				b[k] ^= x
				if _, err := DecodeMAT(bytes.NewReader(b), c.file, int64(len(b)), c.vars...); err != nil && !strings.HasPrefix(err.Error(), c.file+": ") {
					t.Fatalf("%s, byte %d changed: %v does not name the file", c.file, k, err)
				}
			}
		}
	}
}

// elementBounds returns the offsets where the top-level data elements of a
// little-endian MAT-file end (and the header's end).
func elementBounds(b []byte) map[int]bool {
	out := map[int]bool{128: true}
	for off := 128; off+8 <= len(b); {
		off += 8 + int(binary.LittleEndian.Uint32(b[off+4:]))
		out[off] = true
	}
	return out
}

// TestMATHeaderErrors: an HDF5 (MATLAB 7.3) file, a v4 file, a short file
// and an unknown version are refused with what to do.
func TestMATHeaderErrors(t *testing.T) {
	v5, err := os.ReadFile(fixture("types-v5.mat"))
	if err != nil {
		t.Fatal(err)
	}
	v73 := bytes.Clone(v5)
	v73[124], v73[125] = 0x00, 0x02
	v4 := bytes.Clone(v5)
	v4[126], v4[127] = 0, 0
	v9 := bytes.Clone(v5)
	v9[124] = 9
	for _, c := range []struct {
		b    []byte
		want string
	}{
		{v73, "a MATLAB 7.3 (HDF5) MAT-file; only v5 and v7 files are read"},
		{[]byte("\x89HDF\r\n"), "an HDF5 file, not a MATLAB v5 MAT-file"},
		{v4, "not a MATLAB v5 MAT-file: no endian indicator"},
		{v9, "MAT-file version 0x0109; expected 0x0100"},
		{v5[:100], "truncated: 100 bytes, less than the 128-byte header"},
	} {
		_, err := DecodeMAT(bytes.NewReader(c.b), "x.mat", int64(len(c.b)), "one")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "x.mat: ") {
			t.Errorf("%v; want %q", err, c.want)
		}
	}
}

// TestMATChecksum: a compressed variable whose zlib checksum is wrong is
// refused, though its values decompress.
func TestMATChecksum(t *testing.T) {
	full := mustRead(t, fixture("caltech-v7.mat"))
	// test_data is the third element; its stream's last byte is the
	// checksum's.
	var ends []int
	for off := 128; off+8 <= len(full); {
		off += 8 + int(binary.LittleEndian.Uint32(full[off+4:]))
		ends = append(ends, off)
	}
	b := bytes.Clone(full)
	b[ends[2]-1] ^= 0x55
	_, err := DecodeMAT(bytes.NewReader(b), "c.mat", int64(len(b)), "test_data")
	if want := fmt.Sprintf("c.mat: corrupt zlib stream in the compressed element at byte %d: zlib: invalid checksum", ends[1]); err == nil || err.Error() != want {
		t.Errorf("%v; want %s", err, want)
	}
}

// bigEndian rewrites an uncompressed little-endian MAT-file in big-endian
// order: every tag, the flags, the dimensions and the values swapped by
// their data type's size, names left as they are.
func bigEndian(t *testing.T, le []byte) []byte {
	t.Helper()
	b := bytes.Clone(le)
	b[124], b[125] = le[125], le[124]
	b[126], b[127] = 'M', 'I'
	swap := func(p []byte, size int) {
		for k := 0; k+size <= len(p); k += size {
			for i, j := k, k+size-1; i < j; i, j = i+1, j-1 {
				p[i], p[j] = p[j], p[i]
			}
		}
	}
	// element swaps the data element at off and returns its end.
	var element func(off int) int
	element = func(off int) int {
		typ := binary.LittleEndian.Uint32(le[off:])
		if typ>>16 != 0 { // small: one uint32 of size and type, then 4 bytes
			n, ty := int(typ>>16), typ&0xffff
			swap(b[off:off+4], 4)
			if size := miSize[ty]; size > 1 {
				swap(b[off+4:off+4+n], size)
			}
			return off + 8
		}
		n := int(binary.LittleEndian.Uint32(le[off+4:]))
		swap(b[off:off+8], 4)
		body := off + 8
		switch typ {
		case miMATRIX:
			for sub := body; sub < body+n; {
				sub = element(sub)
			}
		default:
			if size := miSize[typ]; size > 1 {
				swap(b[body:body+n], size)
			}
		}
		end := body + n
		if typ != miMATRIX {
			end += (8 - n%8) % 8
		}
		return end
	}
	for off := 128; off < len(le); {
		if binary.LittleEndian.Uint32(le[off:]) != miMATRIX {
			t.Fatalf("element at %d is not an uncompressed matrix", off)
		}
		off = element(off)
	}
	return b
}

// TestReadMATBigEndian: a big-endian file (header "MI") reads to the same
// values as its little-endian original.
func TestReadMATBigEndian(t *testing.T) {
	names := []string{"m_float64", "m_float32", "m_int16", "m_int32", "m_int64", "m_uint16", "m_uint32", "m_uint64", "m_int8", "one", "tiny", "empty"}
	le := mustRead(t, fixture("types-v5.mat"))
	want, err := DecodeMAT(bytes.NewReader(le), "le.mat", int64(len(le)), names...)
	if err != nil {
		t.Fatal(err)
	}
	be := bigEndian(t, le)
	got, err := DecodeMAT(bytes.NewReader(be), "be.mat", int64(len(be)), names...)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		w, g := want[n], got[n]
		if g.Rows != w.Rows || g.Cols != w.Cols || g.Class != w.Class || fmt.Sprint(g.Data) != fmt.Sprint(w.Data) {
			t.Errorf("%s: big-endian %+v, little-endian %+v", n, g, w)
		}
	}
}
