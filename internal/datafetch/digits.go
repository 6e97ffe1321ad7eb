package datafetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/logz-ml/logz/internal/atomicfile"
)

// DigitsRows are the rows of a digits CSV: 64 grey levels 0–16 and a label
// 0–9 each.
type DigitsRows struct {
	Pix    [][64]uint8
	Labels []uint8
}

var (
	greyField  = regexp.MustCompile(`^(?:[0-9]|1[0-6])(?:\.0*)?$`)
	labelField = regexp.MustCompile(`^[0-9](?:\.0*)?$`)
)

// ParseDigitsCSV checks and reads a digits CSV (uncompressed): rows lines
// of 65 comma-separated fields, 64 grey levels 0–16 and a label 0–9 (an
// integer, or one followed by a point and zeros), as scripts/get-data.sh's
// converter checks them, with the same messages.
func ParseDigitsCSV(content []byte, rows int) (*DigitsRows, error) {
	text := string(content)
	text = strings.TrimSuffix(text, "\n")
	var lines []string
	if len(content) > 0 {
		lines = strings.Split(text, "\n")
	}
	d := &DigitsRows{}
	for i, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		var f []string
		if line != "" { // Perl's split of an empty line gives no field
			f = strings.Split(line, ",")
		}
		if len(f) != 65 {
			return nil, fmt.Errorf("line %d: %d fields, expected 65 (64 pixels and a label)", i+1, len(f))
		}
		var px [64]uint8
		for j := range 64 {
			if !greyField.MatchString(f[j]) {
				return nil, fmt.Errorf("line %d: pixel %d is %q, expected a grey level 0..16", i+1, j, f[j])
			}
			px[j] = leadingInt(f[j])
		}
		if !labelField.MatchString(f[64]) {
			return nil, fmt.Errorf("line %d: label %q, expected 0..9", i+1, f[64])
		}
		d.Pix = append(d.Pix, px)
		d.Labels = append(d.Labels, leadingInt(f[64]))
	}
	if len(d.Pix) != rows {
		return nil, fmt.Errorf("%d rows, expected %d", len(d.Pix), rows)
	}
	return d, nil
}

func leadingInt(s string) uint8 {
	v := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		v = 10*v + int(c-'0')
	}
	return uint8(v)
}

// IDXFile is a file the digits conversion writes.
type IDXFile struct {
	Name string
	Data []byte
	N    int // images or labels in it
}

// DigitsIDX converts the rows to IDX files: digits-train-* (the first
// lay.Train rows) and digits-test-* (the rest), images then labels, and
// with shifts digits-train-shifted-* (the training images, then each moved
// 1 pixel left, right, up and down with zeros shifted in; the labels
// repeated five times). Grey level g becomes the byte round(255·g/16), so
// that logz's binarize options see g/16: threshold 0.5 keeps g ≥ 8.
func DigitsIDX(d *DigitsRows, lay DigitsLayout, shifts bool) []IDXFile {
	train, trainLab := d.Pix[:lay.Train], d.Labels[:lay.Train]
	out := append(idxPair("digits-train", train, trainLab), idxPair("digits-test", d.Pix[lay.Train:], d.Labels[lay.Train:])...)
	if !shifts {
		return out
	}
	all := append([][64]uint8(nil), train...)
	var labs []uint8
	for range 5 {
		labs = append(labs, trainLab...)
	}
	// (dr, dc) is where a pixel moves: left, right, up, down.
	for _, s := range [][2]int{{0, -1}, {0, 1}, {-1, 0}, {1, 0}} {
		for _, x := range train {
			var y [64]uint8
			for r := range 8 {
				for c := range 8 {
					if sr, sc := r-s[0], c-s[1]; sr >= 0 && sr < 8 && sc >= 0 && sc < 8 {
						y[8*r+c] = x[8*sr+sc]
					}
				}
			}
			all = append(all, y)
		}
	}
	return append(out, idxPair("digits-train-shifted", all, labs)...)
}

func idxPair(name string, pix [][64]uint8, labs []uint8) []IDXFile {
	img := binary.BigEndian.AppendUint32(nil, 0x803)
	img = binary.BigEndian.AppendUint32(img, uint32(len(pix)))
	img = binary.BigEndian.AppendUint32(img, 8)
	img = binary.BigEndian.AppendUint32(img, 8)
	for _, x := range pix {
		for _, g := range x {
			img = append(img, uint8((255*int(g)+8)/16))
		}
	}
	lab := binary.BigEndian.AppendUint32(nil, 0x801)
	lab = binary.BigEndian.AppendUint32(lab, uint32(len(labs)))
	lab = append(lab, labs...)
	return []IDXFile{
		{Name: name + "-images-idx3-ubyte", Data: img, N: len(pix)},
		{Name: name + "-labels-idx1-ubyte", Data: lab, N: len(labs)},
	}
}

// readContent reads a file (bounded) and returns its uncompressed content
// and whether it was gzip.
func readContent(path string) ([]byte, []byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, nil, err
	}
	if len(raw) > MaxFileBytes {
		return nil, nil, fmt.Errorf("%s: larger than %d bytes", path, MaxFileBytes)
	}
	if len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		return raw, raw, nil
	}
	zr, err := gzip.NewReader(bytes.NewReader(raw))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: not a valid gzip file: %w", path, err)
	}
	content, err := io.ReadAll(io.LimitReader(zr, MaxFileBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("%s: not a valid gzip file: %w", path, err)
	}
	if len(content) > MaxFileBytes {
		return nil, nil, fmt.Errorf("%s: larger than %d bytes uncompressed", path, MaxFileBytes)
	}
	return raw, content, nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// getDigits gets the CSV (from --csv, the directory or the sources), checks
// it and writes the IDX files that differ from what is there.
func (g *getter) getDigits(ctx context.Context) (*Result, error) {
	f, lay := g.set.Files[0], *g.set.Digits
	fresh := false
	switch {
	case g.opt.CSV != "":
		if err := g.takeCSV(f, lay); err != nil {
			return nil, err
		}
		fresh = true
	default:
		ok, err := g.keepOtherCSV(f, lay)
		if err != nil {
			return nil, err
		}
		if !ok {
			missing, err := g.present([]File{f})
			if err != nil {
				return nil, err
			}
			if len(missing) > 0 {
				if err := g.fetch(ctx, missing); err != nil {
					return nil, err
				}
				fresh = true
			}
		}
	}
	csv, _ := g.stored(f.Name)
	_, content, err := readContent(csv)
	if err != nil {
		return nil, err
	}
	rows, err := ParseDigitsCSV(content, lay.Rows)
	if err != nil {
		return nil, fmt.Errorf("%s: not scikit-learn's digits file: %w", csv, err)
	}
	changed := 0
	for _, o := range DigitsIDX(rows, lay, g.opt.Shifts) {
		p := filepath.Join(g.dir, o.Name)
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, o.Data) {
			continue
		}
		if err := atomicfile.WriteFile(p, func(w io.Writer) error {
			_, err := w.Write(o.Data)
			return err
		}); err != nil {
			return nil, err
		}
		changed++
		if strings.Contains(o.Name, "-images-") {
			fmt.Fprintf(g.log, "  %s  %d images of 8x8\n", p, o.N)
		}
	}
	if !fresh && changed == 0 {
		fmt.Fprintf(g.log, "digits already present and verified in %s\n", g.dir)
	} else {
		fmt.Fprintf(g.log, "digits ready in %s (train: the first %d rows, test: the last %d)\n", g.dir, lay.Train, lay.Rows-lay.Train)
	}
	r := &Result{Dir: g.dir, Already: !fresh && changed == 0, Files: []string{csv}}
	for _, o := range DigitsIDX(rows, lay, g.opt.Shifts) {
		r.Files = append(r.Files, filepath.Join(g.dir, o.Name))
	}
	return r, nil
}

// takeCSV checks the --csv file and stores it in the directory as
// digits.csv.gz.
func (g *getter) takeCSV(f File, lay DigitsLayout) error {
	from := g.opt.CSV
	raw, content, err := readContent(from)
	if err != nil {
		return err
	}
	if sum := sha256Hex(content); sum != f.SHA256 {
		if !g.opt.AnyChecksum {
			return fmt.Errorf("%s has SHA-256 %s (of its content), expected %s; --any-checksum accepts it if its rows check", from, sum, f.SHA256)
		}
		if _, err := ParseDigitsCSV(content, lay.Rows); err != nil {
			return fmt.Errorf("%s: not scikit-learn's digits file: %w", from, err)
		}
		fmt.Fprintf(g.log, "warning: %s has SHA-256 %s, not scikit-learn 1.2.1's %s; using it as its rows check\n", from, sum, f.SHA256)
	}
	dst := filepath.Join(g.dir, f.Name+".gz")
	if same(from, dst) {
		return nil
	}
	err = atomicfile.WriteFile(dst, func(w io.Writer) error {
		if !bytes.Equal(raw, content) { // already gzip
			_, err := w.Write(raw)
			return err
		}
		zw := gzip.NewWriter(w)
		if _, err := zw.Write(content); err != nil {
			return err
		}
		return zw.Close()
	})
	if err != nil {
		return err
	}
	os.Remove(filepath.Join(g.dir, f.Name)) // a raw copy left from before
	fmt.Fprintf(g.log, "  %s  from %s\n", dst, from)
	return nil
}

// keepOtherCSV reports, with --any-checksum, whether the directory holds a
// CSV with another sum whose rows check (kept, with a warning).
func (g *getter) keepOtherCSV(f File, lay DigitsLayout) (bool, error) {
	if !g.opt.AnyChecksum {
		return false, nil
	}
	p, ok := g.stored(f.Name)
	if !ok {
		return false, nil
	}
	_, content, err := readContent(p)
	if err != nil {
		return false, nil
	}
	sum := sha256Hex(content)
	if sum == f.SHA256 {
		return false, nil // present() keeps it
	}
	if _, err := ParseDigitsCSV(content, lay.Rows); err != nil {
		return false, nil // present() removes it
	}
	fmt.Fprintf(g.log, "warning: %s has SHA-256 %s, not scikit-learn 1.2.1's %s; keeping it as its rows check (--any-checksum)\n", p, sum, f.SHA256)
	return true, nil
}
