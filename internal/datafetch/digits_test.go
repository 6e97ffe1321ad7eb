package datafetch

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// csvFixture returns a digits CSV of rows rows: pixel i of row n is
// (n + 3i) mod 17, the label n mod 10 (the fixture of the data package's
// script test).
func csvFixture(rows int, mangle func(n int, f []string) []string) []byte {
	var b bytes.Buffer
	for n := range rows {
		f := make([]string, 65)
		for i := range 64 {
			f[i] = fmt.Sprint((n + 3*i) % 17)
		}
		f[64] = fmt.Sprint(n % 10)
		if mangle != nil {
			f = mangle(n, f)
		}
		b.WriteString(strings.Join(f, ",") + "\n")
	}
	return b.Bytes()
}

func digitsSet(dir string, lay DigitsLayout, sum string, srcs ...Source) Set {
	return Set{
		Name: "digits", Title: "digits", Files: []File{{Name: DigitsCSV, SHA256: sum}},
		DefaultDir: dir, Env: "LOGZ_TOY_DIGITS_FOR_TESTS", Sources: srcs,
		Manual: "digits.csv.gz from https://toy.example/", Digits: &lay,
	}
}

// TestDigitsConversionSmall: a 5-row CSV (3 train, 2 test) with shifts
// gives the IDX files whose bytes the test computes on its own: headers,
// grey g as round(255·g/16) (math.Round of the quotient), labels, and the
// shifted blocks written out direction by direction. Mutations: swapping
// the left and right shifts, or scaling by 255/17, each fail it.
func TestDigitsConversionSmall(t *testing.T) {
	noPATH(t)
	lay := DigitsLayout{Rows: 5, Train: 3}
	csv := csvFixture(5, nil)
	src := filepath.Join(t.TempDir(), "digits.csv.gz")
	os.WriteFile(src, gz(t, csv), 0o644)
	dir := t.TempDir()
	set := digitsSet(dir, lay, sha256Hex(csv))
	var log bytes.Buffer
	if _, err := Get(context.Background(), set, Options{CSV: src, Shifts: true, Log: &log}); err != nil {
		t.Fatalf("Get: %v\n%s", err, log.String())
	}
	grey := func(n, i int) byte { return byte(math.Round(255 * float64((n+3*i)%17) / 16)) }
	header := func(magic uint32, dims ...int) []byte {
		b := binary.BigEndian.AppendUint32(nil, magic)
		for _, d := range dims {
			b = binary.BigEndian.AppendUint32(b, uint32(d))
		}
		return b
	}
	img := func(n, r, c int) byte { return grey(n, 8*r+c) }
	images := func(rows []int) []byte {
		b := header(0x803, len(rows), 8, 8)
		for _, n := range rows {
			for i := range 64 {
				b = append(b, grey(n, i))
			}
		}
		return b
	}
	want := map[string][]byte{
		"digits-train-images-idx3-ubyte": images([]int{0, 1, 2}),
		"digits-train-labels-idx1-ubyte": append(header(0x801, 3), 0, 1, 2),
		"digits-test-images-idx3-ubyte":  images([]int{3, 4}),
		"digits-test-labels-idx1-ubyte":  append(header(0x801, 2), 3, 4),
	}
	sh := images([]int{0, 1, 2})
	sh = append(header(0x803, 15, 8, 8), sh[16:]...)
	// Left: the pixel at (r, c) is the original's (r, c+1), the last column 0.
	// Right: (r, c-1), the first column 0. Up: (r+1, c), the last row 0.
	// Down: (r-1, c), the first row 0.
	for _, get := range []func(n, r, c int) byte{
		func(n, r, c int) byte {
			if c == 7 {
				return 0
			}
			return img(n, r, c+1)
		},
		func(n, r, c int) byte {
			if c == 0 {
				return 0
			}
			return img(n, r, c-1)
		},
		func(n, r, c int) byte {
			if r == 7 {
				return 0
			}
			return img(n, r+1, c)
		},
		func(n, r, c int) byte {
			if r == 0 {
				return 0
			}
			return img(n, r-1, c)
		},
	} {
		for n := range 3 {
			for r := range 8 {
				for c := range 8 {
					sh = append(sh, get(n, r, c))
				}
			}
		}
	}
	want["digits-train-shifted-images-idx3-ubyte"] = sh
	want["digits-train-shifted-labels-idx1-ubyte"] = append(header(0x801, 15), 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2)
	for name, w := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, w) {
			t.Errorf("%s differs:\n got %v\nwant %v", name, got, w)
		}
	}
	if got := strings.Join(dirNames(t, dir), ","); got != "digits-test-images-idx3-ubyte,digits-test-labels-idx1-ubyte,digits-train-images-idx3-ubyte,digits-train-labels-idx1-ubyte,digits-train-shifted-images-idx3-ubyte,digits-train-shifted-labels-idx1-ubyte,digits.csv.gz" {
		t.Errorf("directory holds %s", got)
	}
	// Again, from the stored CSV: nothing to do, and it says so.
	log.Reset()
	res, err := Get(context.Background(), set, Options{Shifts: true, Log: &log})
	if err != nil || !res.Already || !strings.Contains(log.String(), "digits already present and verified in "+dir) {
		t.Fatalf("second Get: %+v, %v\n%s", res, err, log.String())
	}
}

// TestDigitsMatchesScript: on the same 1,797-row CSV, Get writes the very
// bytes scripts/get-data.sh's Perl converter writes, shifts included (run
// only where bash, perl, gzip and sha256sum are).
func TestDigitsMatchesScript(t *testing.T) {
	for _, tool := range []string{"bash", "perl", "gzip", "sha256sum", "cp", "mkdir", "cut", "mv", "basename"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s: %v", tool, err)
		}
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "scripts", "get-data.sh"))
	if err != nil {
		t.Fatal(err)
	}
	csv := csvFixture(1797, nil)
	src := filepath.Join(t.TempDir(), "digits.csv.gz")
	os.WriteFile(src, gz(t, csv), 0o644)
	perlDir, goDir := t.TempDir(), t.TempDir()
	out, err := exec.Command("bash", script, "digits", perlDir, "--shifts", "--csv", src, "--any-checksum").CombinedOutput()
	if err != nil {
		t.Fatalf("get-data.sh: %v\n%s", err, out)
	}
	set, err := Lookup("digits")
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if _, err := Get(context.Background(), set, Options{Dir: goDir, CSV: src, AnyChecksum: true, Shifts: true, Log: &log}); err != nil {
		t.Fatalf("Get: %v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "warning: "+src+" has SHA-256 "+sha256Hex(csv)) {
		t.Errorf("no warning for another checksum:\n%s", log.String())
	}
	n := 0
	for _, name := range dirNames(t, perlDir) {
		if !strings.HasPrefix(name, "digits-") {
			continue
		}
		n++
		p, _ := os.ReadFile(filepath.Join(perlDir, name))
		g, err := os.ReadFile(filepath.Join(goDir, name))
		if err != nil || !bytes.Equal(p, g) {
			t.Errorf("%s: Go wrote %d bytes (%v), Perl %d, and they differ", name, len(g), err, len(p))
		}
	}
	if n != 6 {
		t.Errorf("the script wrote %d IDX files, want 6: %q", n, dirNames(t, perlDir))
	}
}

// TestDigitsCSVChecks: another checksum needs --any-checksum, and bad rows
// are refused with the script's messages; nothing is converted.
func TestDigitsCSVChecks(t *testing.T) {
	noPATH(t)
	lay := DigitsLayout{Rows: 4, Train: 2}
	good := csvFixture(4, nil)
	write := func(b []byte) string {
		p := filepath.Join(t.TempDir(), "digits.csv")
		os.WriteFile(p, b, 0o644) // raw, not gzip: accepted too
		return p
	}
	dir := t.TempDir()
	set := digitsSet(dir, lay, sha256Hex([]byte("another release")))
	_, err := Get(context.Background(), set, Options{CSV: write(good)})
	if err == nil || !strings.Contains(err.Error(), "has SHA-256 "+sha256Hex(good)+" (of its content), expected "+sha256Hex([]byte("another release"))+"; --any-checksum accepts it") {
		t.Fatalf("err %v", err)
	}
	if ns := dirNames(t, dir); len(ns) != 0 {
		t.Fatalf("left in the directory: %q", ns)
	}
	for _, c := range []struct {
		name   string
		rows   int
		mangle func(int, []string) []string
		want   string
	}{
		{"short row", 4, func(n int, f []string) []string {
			if n == 2 {
				return f[:64]
			}
			return f
		}, "line 3: 64 fields, expected 65"},
		{"grey 17", 4, func(n int, f []string) []string {
			if n == 0 {
				f[3] = "17"
			}
			return f
		}, `line 1: pixel 3 is "17", expected a grey level 0..16`},
		{"label 10", 4, func(n int, f []string) []string {
			if n == 3 {
				f[64] = "10"
			}
			return f
		}, `line 4: label "10", expected 0..9`},
		{"too few rows", 3, nil, "3 rows, expected 4"},
	} {
		_, err := Get(context.Background(), set, Options{CSV: write(csvFixture(c.rows, c.mangle)), AnyChecksum: true})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if ns := dirNames(t, dir); len(ns) != 0 {
		t.Fatalf("left in the directory: %q", ns)
	}
	// "16.0" and "16." are grey levels, as for the script.
	if _, err := ParseDigitsCSV(csvFixture(1, func(_ int, f []string) []string { f[0], f[1], f[64] = "16.0", "16.", "9.00"; return f }), 1); err != nil {
		t.Fatal(err)
	}
}

// TestDigitsDeb: the Debian route: a fake apt-get download writes a .deb
// and a fake dpkg-deb --fsys-tarfile writes a tar holding digits.csv.gz
// under the member path ("./usr/…", as dpkg-deb names members); the CSV
// is checked and converted, and one with another sum is refused. Mutation:
// matching the member names without trimming "./" fails it.
func TestDigitsDeb(t *testing.T) {
	_, cat, _ := shTools(t)
	lay := DigitsLayout{Rows: 4, Train: 3}
	csv := csvFixture(4, nil)
	work := t.TempDir()
	tarPath := filepath.Join(work, "fsys.tar")
	os.WriteFile(tarPath, tarOf(t, map[string][]byte{
		"./usr/lib/python3/dist-packages/sklearn/__init__.py":                 []byte(""),
		"./usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz": gz(t, csv),
	}), 0o644)
	bin := t.TempDir()
	fakeTool(t, bin, "apt-get", "[ \"$*\" = \"download python3-sklearn\" ] || exit 3\necho deb > python3-sklearn_1.2.1+dfsg-1_all.deb\n")
	fakeTool(t, bin, "dpkg-deb", fmt.Sprintf("[ \"$1\" = --fsys-tarfile ] || exit 3\n%s %s\n", cat, tarPath))
	t.Setenv("PATH", bin)
	dir := t.TempDir()
	set := digitsSet(dir, lay, sha256Hex(csv),
		Source{Kind: HTTP, URL: closedURL(t), Suffix: ".gz"},
		Source{Kind: Deb, Package: "python3-sklearn", Member: "./usr/lib/python3/dist-packages/sklearn/datasets/data/", Suffix: ".gz"})
	var log bytes.Buffer
	if _, err := Get(context.Background(), set, Options{Log: &log}); err != nil {
		t.Fatalf("Get: %v\n%s", err, log.String())
	}
	_, got, err := readContent(filepath.Join(dir, "digits.csv.gz"))
	if err != nil || !bytes.Equal(got, csv) {
		t.Fatalf("digits.csv.gz: %v", err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "digits-test-labels-idx1-ubyte")); err != nil || !bytes.Equal(b, []byte{0, 0, 8, 1, 0, 0, 0, 1, 3}) {
		t.Fatalf("test labels %v, %v", b, err)
	}

	// A .deb whose CSV has another sum is refused, naming the .deb.
	set.Files[0].SHA256 = sha256Hex([]byte("another"))
	dir2 := t.TempDir()
	_, err = Get(context.Background(), digitsSet(dir2, lay, set.Files[0].SHA256, set.Sources...), Options{})
	if err == nil || !strings.Contains(err.Error(), "digits.csv from python3-sklearn_1.2.1+dfsg-1_all.deb has SHA-256 "+sha256Hex(csv)) {
		t.Fatalf("err %v", err)
	}
	if ns := dirNames(t, dir2); len(ns) != 0 {
		t.Fatalf("left in the directory: %q", ns)
	}
}
