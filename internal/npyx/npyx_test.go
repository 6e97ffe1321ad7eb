package npyx

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sbinet/npyio"
	"github.com/sbinet/npyio/npz"
	"gonum.org/v1/gonum/mat"
)

func encode(t testing.TB, v any) []byte {
	var buf bytes.Buffer
	if err := npyio.Write(&buf, v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestRoundTripTypes(t *testing.T) {
	m := mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})
	for name, v := range map[string]any{
		"f8": m, "u1": []uint8{0, 1, 1}, "f4": []float32{0.5, -1}, "i8": []int64{-3, 7},
	} {
		a, err := Decode(encode(t, v))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if name == "f8" && (len(a.Shape) != 2 || a.Shape[0] != 2 || a.Shape[1] != 3 || a.Data[4] != 5) {
			t.Errorf("f8: got shape %v data %v", a.Shape, a.Data)
		}
		if name == "f4" && a.Data[1] != -1 {
			t.Errorf("f4: %v", a.Data)
		}
		if name == "i8" && a.Data[0] != -3 {
			t.Errorf("i8: %v", a.Data)
		}
	}
}

func TestFortranOrder(t *testing.T) {
	// A 2×3 array [[1,2,3],[4,5,6]] stored column-major: 1 4 2 5 3 6.
	hdr := "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3), }"
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(hdr)), 0)
	b = append(b, hdr...)
	b = append(b, 1, 4, 2, 5, 3, 6)
	a, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{1, 2, 3, 4, 5, 6} {
		if a.Data[i] != want {
			t.Fatalf("got %v", a.Data)
		}
	}
}

func TestBadInput(t *testing.T) {
	good := encode(t, []float64{1, 2, 3})
	cases := map[string]struct {
		b    []byte
		want string
	}{
		"empty":     {nil, "bad magic"},
		"magic":     {append([]byte("XNUMPY"), good[6:]...), "bad magic"},
		"truncated": {good[:len(good)-3], "truncated data"},
		"trailing":  {append(append([]byte{}, good...), 9), "unexpected bytes"},
		"header":    {good[:20], "truncated .npy header"},
	}
	for name, c := range cases {
		_, err := Decode(c.b)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want error containing %q", name, err, c.want)
		}
	}
}

func TestNPZAndFileErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "m.npz")
	w, err := npz.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write("W", mat.NewDense(2, 2, []float64{1, 2, 3, 4})); err != nil {
		t.Fatal(err)
	}
	if err := w.Write("meta", []uint8(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	m, err := ReadNPZ(p)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := m["meta"].Bytes(); err != nil || string(b) != `{"a":1}` {
		t.Errorf("meta = %q, %v", b, err)
	}
	raw, _ := os.ReadFile(p)
	bad := filepath.Join(dir, "bad.npz")
	os.WriteFile(bad, raw[:len(raw)/2], 0o644)
	if _, err := ReadNPZ(bad); err == nil || !strings.Contains(err.Error(), "bad.npz") {
		t.Errorf("truncated npz: %v", err)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(encode(f, []float64{1, 2}))
	f.Add(encode(f, mat.NewDense(2, 2, []float64{1, 0, 0, 1})))
	f.Add([]byte("\x93NUMPY\x01\x00\x10\x00{'descr': '<f8'}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := Decode(b)
		if err == nil {
			n := 1
			for _, d := range a.Shape {
				n *= d
			}
			if n != len(a.Data) {
				t.Fatalf("shape %v but %d elements", a.Shape, len(a.Data))
			}
		}
	})
}
