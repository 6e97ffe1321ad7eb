package imagegrid

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden PNG files")

// TestShape: squares, rectangles, primes. Mutation checked: searching the
// divisor upwards (h++) fails.
func TestShape(t *testing.T) {
	for _, c := range []struct{ d, h, w int }{{784, 28, 28}, {20, 4, 5}, {25, 5, 5}, {14, 2, 7}, {7, 1, 7}, {1, 1, 1}, {12, 3, 4}, {0, 0, 0}} {
		if h, w := Shape(c.d); h != c.h || w != c.w {
			t.Errorf("Shape(%d) = %d×%d, want %d×%d", c.d, h, w, c.h, c.w)
		}
	}
}

// grid3 is three 2×3 tiles: a ramp, its reverse, and a constant.
var grid3 = []float64{
	0, 0.2, 0.4, 0.6, 0.8, 1,
	1, 0.8, 0.6, 0.4, 0.2, 0,
	0.3, 0.3, 0.3, 0.3, 0.3, 0.3,
}

// TestDrawDecodes: the PNG decodes to the grid laid out as documented —
// 2 tiles per row, unit blocks of Scale pixels, 1-pixel separators — with
// the values as grey levels (1 white); Normalize stretches each tile to
// its range and draws a constant tile mid-grey. Mutation checked:
// dropping the separator offset (+1) in the tile origin, and 1 = black,
// both fail.
func TestDrawDecodes(t *testing.T) {
	img, err := Draw(grid3, 3, 2, 3, Options{Cols: 2, Scale: 2})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	dec, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	b := dec.Bounds()
	// 2 columns of 3·2 px + 3 separators; 2 rows of 2·2 px + 3 separators.
	if b.Dx() != 15 || b.Dy() != 11 {
		t.Fatalf("size %v, want 15×11", b)
	}
	gray := func(x, y int) uint8 { r, _, _, _ := dec.At(x, y).RGBA(); return uint8(r >> 8) }
	// tile k, unit (r, c), pixel (dy, dx) of its block.
	at := func(k, r, c, dx, dy int) uint8 { return gray((k%2)*7+1+c*2+dx, (k/2)*5+1+r*2+dy) }
	for k := range 3 {
		for u, v := range grid3[k*6 : (k+1)*6] {
			want := uint8(255*v + 0.5)
			for _, d := range [][2]int{{0, 0}, {1, 1}} {
				if g := at(k, u/3, u%3, d[0], d[1]); g != want {
					t.Errorf("tile %d unit %d: grey %d, want %d", k, u, g, want)
				}
			}
		}
	}
	for _, p := range [][2]int{{0, 0}, {7, 3}, {14, 10}, {3, 5}, {10, 8}} { // frame, separators, the empty 4th slot's frame
		if g := gray(p[0], p[1]); g != Separator {
			t.Errorf("pixel %v: grey %d, want the separator %d", p, g, Separator)
		}
	}
	n, err := Draw([]float64{-2, 0, 2, 5, 5, 5}, 2, 1, 3, Options{Scale: 1, Normalize: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := []uint8{n.GrayAt(1, 1).Y, n.GrayAt(2, 1).Y, n.GrayAt(3, 1).Y, n.GrayAt(6, 1).Y}; got[0] != 0 || got[1] != 128 || got[2] != 255 || got[3] != 128 {
		t.Errorf("normalised greys %v, want [0 128 255 128]", got)
	}
}

// TestGolden: the bytes of a small grid's PNG are stable (testdata/
// grid.png; go test -update rewrites it).
func TestGolden(t *testing.T) {
	img, err := Draw(grid3, 3, 2, 3, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "grid.png")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("the PNG differs from %s (%d bytes, want %d); if the change is intended, run go test -update", path, buf.Len(), len(want))
	}
	dec, err := png.Decode(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	if b := dec.Bounds(); b != image.Rect(0, 0, 2*(3*10+1)+1, 2*(2*10+1)+1) {
		t.Errorf("golden size %v (scale %d)", b, DefaultScale(2, 3))
	}
}

// TestWritePNG writes atomically a file that decodes.
func TestWritePNG(t *testing.T) {
	img, _ := Draw(grid3[:6], 1, 2, 3, Options{})
	path := filepath.Join(t.TempDir(), "g.png")
	if err := WritePNG(path, img); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Error(err)
	}
}

// TestBadInput: errors, not panics.
func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		v       []float64
		n, h, w int
		norm    bool
		want    string
	}{
		{[]float64{0, 1}, 1, 1, 3, false, "2 values"},
		{[]float64{0, 1, 2}, 1, 1, 3, false, "outside [0,1]"},
		{[]float64{0, 1, 1}, 0, 1, 3, false, "at least one tile"},
		{[]float64{0, 1, 1}, 1, 1, 3, false, ""},
	} {
		_, err := Draw(c.v, c.n, c.h, c.w, Options{Normalize: c.norm})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%v: error %v, want %q", c.v, err, c.want)
		}
	}
	if _, err := Draw([]float64{0, 1, zero() / zero()}, 1, 1, 3, Options{Normalize: true}); err == nil || !strings.Contains(err.Error(), "not a finite") {
		t.Errorf("NaN: %v", err)
	}
	if _, err := Draw(make([]float64, 4), 1, 2, 2, Options{Scale: 1 << 14}); err == nil || !strings.Contains(err.Error(), "too large") {
		t.Errorf("huge: %v", err)
	}
}

func zero() float64 { return 0 }
