package data

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// digitsCSV returns a synthetic digits.csv.gz of 1,797 rows (the size the
// script insists on): pixel i of row n is (n + 3i) mod 17, the label n mod 10.
func digitsCSV(t *testing.T, rows int, mangle func(n int, fields []string) []string) string {
	t.Helper()
	var raw bytes.Buffer
	for n := range rows {
		f := make([]string, 65)
		for i := range 64 {
			f[i] = fmt.Sprint((n + 3*i) % 17)
		}
		f[64] = fmt.Sprint(n % 10)
		if mangle != nil {
			f = mangle(n, f)
		}
		raw.WriteString(strings.Join(f, ",") + "\n")
	}
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(raw.Bytes())
	w.Close()
	p := filepath.Join(t.TempDir(), "digits.csv.gz")
	if err := os.WriteFile(p, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runGetData(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("bash", append([]string{filepath.Join("..", "scripts", "get-data.sh")}, args...)...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestGetDataDigits runs scripts/get-data.sh digits on a synthetic CSV
// (--csv, --any-checksum: not the real file) and reads what it wrote: the
// first 1,500 rows as training images, the last 297 as test images, grey g
// as round(255·g/16), labels kept, and with --shifts the training images
// followed by their 1-pixel shifts left, right, up and down (zeros shifted
// in). Bad rows are refused with the line named. Mutations checked:
// swapping the left and right shifts in the script, and scaling by 255/17,
// each fail it.
func TestGetDataDigits(t *testing.T) {
	for _, tool := range []string{"bash", "perl", "gzip", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: %v", tool, err)
		}
	}
	csv := digitsCSV(t, 1797, nil)
	dir := t.TempDir()
	if out, err := runGetData(t, "digits", dir, "--csv", csv); err == nil || !strings.Contains(out, "--any-checksum") {
		t.Fatalf("a file with another checksum was accepted without --any-checksum: %v\n%s", err, out)
	}
	out, err := runGetData(t, "digits", dir, "--shifts", "--csv", csv, "--any-checksum")
	if err != nil {
		t.Fatalf("get-data.sh digits: %v\n%s", err, out)
	}
	grey := func(n, i int) uint8 { return uint8((255*((n+3*i)%17) + 8) / 16) }
	read := func(name string, wantN int) *Grey {
		g, err := ReadImages(filepath.Join(dir, name+"-images-idx3-ubyte"))
		if err != nil {
			t.Fatal(err)
		}
		if g.N != wantN || g.D != 64 {
			t.Fatalf("%s: %d×%d, want %d×64", name, g.N, g.D, wantN)
		}
		lab, err := ReadLabels(filepath.Join(dir, name+"-labels-idx1-ubyte"))
		if err != nil || len(lab) != wantN {
			t.Fatalf("%s labels: %d, %v", name, len(lab), err)
		}
		off := 0
		if name == "digits-test" {
			off = 1500
		}
		for n := range wantN {
			if want := uint8((n%1500 + off) % 10); lab[n] != want {
				t.Fatalf("%s: label %d is %d, want %d", name, n, lab[n], want)
			}
		}
		return g
	}
	train, test := read("digits-train", 1500), read("digits-test", 297)
	for n := range 1500 {
		for i := range 64 {
			if train.Pix[n*64+i] != grey(n, i) {
				t.Fatalf("train image %d pixel %d: %d, want %d", n, i, train.Pix[n*64+i], grey(n, i))
			}
		}
	}
	for n := range 297 {
		for i := range 64 {
			if test.Pix[n*64+i] != grey(1500+n, i) {
				t.Fatalf("test image %d pixel %d: %d, want %d", n, i, test.Pix[n*64+i], grey(1500+n, i))
			}
		}
	}
	sh := read("digits-train-shifted", 7500)
	// Block b moves every pixel by (dr, dc).
	for b, d := range [][2]int{{0, 0}, {0, -1}, {0, 1}, {-1, 0}, {1, 0}} {
		for n := range 1500 {
			for r := range 8 {
				for c := range 8 {
					want := uint8(0)
					if sr, sc := r-d[0], c-d[1]; sr >= 0 && sr < 8 && sc >= 0 && sc < 8 {
						want = grey(n, 8*sr+sc)
					}
					if got := sh.Pix[(b*1500+n)*64+8*r+c]; got != want {
						t.Fatalf("shift block %d image %d pixel (%d,%d): %d, want %d", b, n, r, c, got, want)
					}
				}
			}
		}
	}
	// Half scale: threshold 0.5 keeps grey levels ≥ 8.
	s, err := train.Binarize(Threshold, 0.5, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, x := range s.X {
		if g := (k/64 + 3*(k%64)) % 17; (x == 1) != (g >= 8) {
			t.Fatalf("threshold 0.5: grey level %d became %d", g, x)
		}
	}

	for _, c := range []struct {
		name   string
		rows   int
		mangle func(int, []string) []string
		want   string
	}{
		{"short row", 1797, func(n int, f []string) []string {
			if n == 4 {
				return f[:64]
			}
			return f
		}, "line 5: 64 fields"},
		{"grey 17", 1797, func(n int, f []string) []string {
			if n == 0 {
				f[3] = "17"
			}
			return f
		}, `line 1: pixel 3 is "17"`},
		{"label 10", 1797, func(n int, f []string) []string {
			if n == 9 {
				f[64] = "10"
			}
			return f
		}, `line 10: label "10"`},
		{"too few rows", 1796, nil, "1796 rows, expected 1797"},
	} {
		out, err := runGetData(t, "digits", t.TempDir(), "--csv", digitsCSV(t, c.rows, c.mangle), "--any-checksum")
		if err == nil || !strings.Contains(out, c.want) {
			t.Errorf("%s: err %v, output %q, want it to contain %q", c.name, err, out, c.want)
		}
	}
}
