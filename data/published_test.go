package data

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ocrLine is line n of a small letter.data: pixel k of letter n is
// (k+n)%5 == 0; the letter is 'a'+n%26; a trailing tab as in the file.
func ocrLine(n int) string {
	f := []string{fmt.Sprint(n + 1), string(rune('a' + n%26)), fmt.Sprint(n + 2), "7", fmt.Sprint(n % 4), fmt.Sprint(n % 10)}
	if n == 3 {
		f[2] = "-1" // a word's last letter
	}
	for k := range OCRPixels {
		if (k+n)%5 == 0 {
			f = append(f, "1")
		} else {
			f = append(f, "0")
		}
	}
	return strings.Join(f, "\t") + "\t\n"
}

func writeFile(t *testing.T, path string, b []byte) string {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func gzBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return z.Bytes()
}

// TestReadOCRLetters: letter.data reads as N×128 0/1 images in file order
// with their letters, raw and gzip; the splits are consecutive runs of the
// file (first train, then valid, then test).
func TestReadOCRLetters(t *testing.T) {
	var b strings.Builder
	for n := range 10 {
		b.WriteString(ocrLine(n))
	}
	dir := t.TempDir()
	for _, path := range []string{
		writeFile(t, filepath.Join(dir, "letter.data"), []byte(b.String())),
		writeFile(t, filepath.Join(dir, "letter.data.gz"), gzBytes(t, []byte(b.String()))),
	} {
		s, letters, err := ReadOCRLetters(path)
		if err != nil {
			t.Fatal(err)
		}
		if s.N != 10 || s.D != 128 || string(letters) != "abcdefghij" {
			t.Fatalf("%s: %d×%d, letters %q", path, s.N, s.D, letters)
		}
		for n := range 10 {
			for k := range 128 {
				if want := uint8(0); s.X[n*128+k] != want && (k+n)%5 != 0 || s.X[n*128+k] != 1 && (k+n)%5 == 0 {
					t.Fatalf("%s: letter %d, pixel %d is %d", path, n, k, s.X[n*128+k])
				}
			}
		}
		p := smallSizes(t, "ocr-letters", map[string]int{"train": 6, "valid": 3, "test": 1})
		for part, first := range map[string]int{"train": 0, "valid": 6, "test": 9} {
			sp, _, err := ReadPublished(p, part, path)
			if err != nil {
				t.Fatal(err)
			}
			if sp.N != p.Sizes[part] || !bytes.Equal(sp.X, s.X[first*128:(first+sp.N)*128]) {
				t.Errorf("%s %s: %d letters, not letters %d… of the file", path, part, sp.N, first)
			}
		}
		real, _ := LookupPublished("ocr-letters")
		if _, _, err := ReadPublished(real, "train", path); err == nil || !strings.Contains(err.Error(), "10 letters; the OCR letters splits (32152, 10000, 10000) need 52152") {
			t.Errorf("size check: %v", err)
		}
	}
}

// TestReadOCRLettersErrors: malformed lines are errors naming the file, the
// line and what was expected; a cut gzip file is a corrupt gzip stream.
func TestReadOCRLettersErrors(t *testing.T) {
	good := ocrLine(0) + ocrLine(1)
	dir := t.TempDir()
	for _, c := range []struct{ body, want string }{
		{good + strings.Replace(ocrLine(2), "\t0\t", "\t2\t", 1), "line 3: pixel"},
		{good + strings.Replace(ocrLine(2), "\tc\t", "\tC\t", 1), `line 3: the letter is "C"; expected one of a–z`},
		{good + strings.Replace(ocrLine(2), "\t0\t", "\t", 1), `line 3: pixel 128 is ""; expected 0 or 1`},
		{good + "x" + ocrLine(2), `line 3: the id is "x3"; expected an integer`},
		{good + "\n" + ocrLine(2), "line 3: 1 tab-separated fields; expected 134"},
		{"", "no letters"},
	} {
		path := writeFile(t, filepath.Join(dir, "letter.data"), []byte(c.body))
		_, _, err := ReadOCRLetters(path)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), path+": ") {
			t.Errorf("%v; want %q", err, c.want)
		}
	}
	z := gzBytes(t, []byte(good+ocrLine(2)))
	for _, cut := range []int{5, len(z) / 2, len(z) - 3} {
		path := writeFile(t, filepath.Join(dir, "cut.gz"), z[:cut])
		_, _, err := ReadOCRLetters(path)
		if err == nil || !strings.Contains(err.Error(), "corrupt gzip stream") || !strings.HasPrefix(err.Error(), path+": ") {
			t.Errorf("gzip cut to %d of %d bytes: %v", cut, len(z), err)
		}
	}
}

// TestReadAMAT: Larochelle's .amat rows of 0/1 values read exactly; other
// values, ragged rows and empty files are errors naming the line.
func TestReadAMAT(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, filepath.Join(dir, "b.amat"), []byte("0 1 1 0\n1 0 0 1\n1 1 1 1\n"))
	s, err := ReadAMAT(path, 4)
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 3 || s.D != 4 || !bytes.Equal(s.X, []uint8{0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 1, 1}) {
		t.Errorf("read %d×%d %v", s.N, s.D, s.X)
	}
	for _, c := range []struct {
		body  string
		width int
		want  string
	}{
		{"0 1 1 0\n1 0 2 1\n", 4, `line 2: value 3 is "2"; expected 0 or 1`},
		{"0 1 1 0\n1 0 1\n", 4, "line 2: 3 values; expected 4"},
		{"0 1 1 0\n1 0 1\n", 0, "line 2: 3 values; expected 4"},
		{"0 1 1\n", 4, "line 1: 3 values; expected 4"},
		{"", 4, "no examples"},
	} {
		p := writeFile(t, filepath.Join(dir, "x.amat"), []byte(c.body))
		_, err := ReadAMAT(p, c.width)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), p+": ") {
			t.Errorf("%q: %v; want %q", c.body, err, c.want)
		}
	}
}

// TestPublishedSpecs: the published sets parse as specs with their splits
// only, and Load finds their files through the data directory option or
// their variable, saying what to run when the file is missing.
func TestPublishedSpecs(t *testing.T) {
	for _, p := range PublishedSets() {
		for _, part := range p.Parts {
			sp, err := ParseSpec(p.Scheme + ":" + part)
			if err != nil || sp.Scheme != p.Scheme || sp.Part != part || sp.String() != p.Scheme+":"+part {
				t.Errorf("%s:%s: %+v, %v", p.Scheme, part, sp, err)
			}
		}
		if _, err := ParseSpec(p.Scheme); err == nil || !strings.Contains(err.Error(), "lacks the split") {
			t.Errorf("%s: %v", p.Scheme, err)
		}
		if !strings.Contains(SpecForms, p.Scheme+":"+strings.Join(p.Parts, "|")) {
			t.Errorf("SpecForms lacks %s", p.Scheme)
		}
	}
	if _, err := ParseSpec("omniglot:valid"); err == nil || !strings.Contains(err.Error(), `unknown split "valid"; expected omniglot:train|test`) {
		t.Errorf("omniglot:valid: %v", err)
	}

	dir := t.TempDir()
	empty := t.TempDir()
	t.Setenv(EnvBinarizedMNISTDir, empty)
	_, err := Load("binarized-mnist:valid", Options{Binarize: Binarization{Method: None}})
	if err == nil || !strings.Contains(err.Error(), "no binarized_mnist_valid.amat or binarized_mnist_valid.amat.gz in "+empty+" (directory from $LOGZ_BINARIZED_MNIST_DIR); run logz data get binarized-mnist") {
		t.Errorf("missing file: %v", err)
	}
	var rows strings.Builder
	for n := range 10000 {
		for k := range 784 {
			if k > 0 {
				rows.WriteByte(' ')
			}
			rows.WriteByte('0' + byte((n+k)%2))
		}
		rows.WriteByte('\n')
	}
	path := writeFile(t, filepath.Join(dir, "binarized_mnist_valid.amat.gz"), gzBytes(t, []byte(rows.String())))
	if f, err := Find("binarized-mnist:valid", Options{DataDir: dir}); err != nil || f != path {
		t.Errorf("Find: %q, %v", f, err)
	}
	s, err := Load("binarized-mnist:valid", Options{DataDir: dir, Binarize: Binarization{Method: Stochastic, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if s.N != 10000 || s.D != 784 || s.X[1] != 1 || s.X[784] != 1 || s.Name != "binarized-mnist:valid" || s.Source.File != path || s.Source.Binarize != "" {
		t.Errorf("loaded %d×%d %q from %+v", s.N, s.D, s.Name, s.Source)
	}
	// Omniglot is grey: binarised as the options say, with the provenance.
	t.Setenv(EnvOmniglotDir, dir)
	writeFile(t, filepath.Join(dir, OmniglotFile), mustRead(t, fixture("omniglot-v7.mat")))
	if _, err := Load("omniglot:test", Options{Binarize: Binarization{Method: Stochastic, Seed: 1}}); err == nil || !strings.Contains(err.Error(), "variable testdata holds 1 images; Omniglot's test split has 8070") {
		t.Errorf("omniglot fixture: %v", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
