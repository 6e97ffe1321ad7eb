package data

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"github.com/logz-ml/logz/internal/regfile"
)

// openMaybeGzip opens a regular file, raw or gzip (recognised by its magic
// bytes), for reading; bytes after the last gzip member are an error.
func openMaybeGzip(path string) (io.Reader, *os.File, error) {
	f, _, err := regfile.Open(path)
	if err != nil {
		return nil, nil, err
	}
	br := bufio.NewReaderSize(f, 1<<16)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return nil, nil, fmt.Errorf("%s: corrupt gzip stream: the gzip header is truncated", path)
			}
			return nil, nil, fmt.Errorf("%s: corrupt gzip stream: %w", path, err)
		}
		z.Multistream(false)
		return &gzipMembers{br: br, z: z}, f, nil
	}
	return br, f, nil
}

// textErr names the file of a failed read, saying when gzip failed.
func textErr(path string, err error) error {
	if isGzipError(err) {
		return fmt.Errorf("%s: corrupt gzip stream: %w", path, err)
	}
	return fmt.Errorf("%s: %w", path, err)
}

// maxTextLine bounds one line of a text data file (1 MiB).
const maxTextLine = 1 << 20

// eachLine calls fn with every line of the file (raw or gzip) without its
// "\n" (or "\r\n"), numbered from 1. An empty last line (the file ends with
// "\n") is not passed; an empty line elsewhere is.
func eachLine(path string, fn func(line []byte, num int) error) error {
	r, f, err := openMaybeGzip(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), maxTextLine)
	num := 0
	for sc.Scan() {
		num++
		if err := fn(bytes.TrimSuffix(sc.Bytes(), []byte("\r")), num); err != nil {
			return fmt.Errorf("%s: line %d: %w", path, num, err)
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return fmt.Errorf("%s: line %d is longer than %d bytes; not a text data file?", path, num+1, maxTextLine)
		}
		return textErr(path, err)
	}
	return nil
}

// ReadAMAT reads a .amat file of 0/1 data, as Larochelle's binarised MNIST
// (binarized_mnist_train.amat …) stores it: one example per line, its
// values separated by spaces, each 0 or 1 (written "0", "1", "0.0" or
// "1.0"). Every line must hold width values (width ≤ 0: as many as the first
// line). Raw or gzip. Any other value, a line of another width, or an
// empty file is an error naming the file and the line.
func ReadAMAT(path string, width int) (*Set, error) {
	s := &Set{Name: path, D: width}
	err := eachLine(path, func(line []byte, num int) error {
		fields := bytes.Fields(line)
		if s.D <= 0 {
			s.D = len(fields)
		}
		if len(fields) != s.D {
			return fmt.Errorf("%d values; expected %d", len(fields), s.D)
		}
		for i, f := range fields {
			switch string(f) {
			case "0", "0.0":
				s.X = append(s.X, 0)
			case "1", "1.0":
				s.X = append(s.X, 1)
			default:
				return fmt.Errorf("value %d is %q; expected 0 or 1", i+1, clip(f))
			}
		}
		s.N++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if s.N == 0 || s.D == 0 {
		return nil, fmt.Errorf("%s: no examples; expected lines of 0/1 values", path)
	}
	return s, nil
}

// clip shortens a field for a message.
func clip(b []byte) string {
	if len(b) > 20 {
		return string(b[:20]) + "…"
	}
	return string(b)
}

// OCR letters: letter.data of Taskar's OCR data set
// (http://ai.stanford.edu/~btaskar/ocr/), one letter per line, tab
// separated: id, letter (a–z), next id, word id, position in the word,
// cross-validation fold, then 16×8 = 128 pixel values 0/1 (row-major).
const (
	ocrFields = 6
	OCRPixels = 128
)

// ReadOCRLetters reads the OCR letters file letter.data (raw or gzip) as a
// Set of N×128 binary images in the file's order, with the letters
// ('a'…'z'), one per example. A line with another number of fields (a
// trailing tab is allowed), a letter outside a–z, a non-integer id or fold
// or a pixel other than 0 or 1 is an error naming the file and the line.
func ReadOCRLetters(path string) (*Set, []byte, error) {
	s := &Set{Name: path, D: OCRPixels}
	var letters []byte
	err := eachLine(path, func(line []byte, num int) error {
		fields := bytes.Split(line, []byte("\t"))
		if n := len(fields); n == ocrFields+OCRPixels+1 && len(fields[n-1]) == 0 {
			fields = fields[:n-1]
		}
		if len(fields) != ocrFields+OCRPixels {
			return fmt.Errorf("%d tab-separated fields; expected %d (id, letter, next id, word id, position, fold, then %d pixels)", len(fields), ocrFields+OCRPixels, OCRPixels)
		}
		for k, what := range map[int]string{0: "id", 2: "next id", 3: "word id", 4: "position", 5: "fold"} {
			if !isInt(fields[k]) {
				return fmt.Errorf("the %s is %q; expected an integer", what, clip(fields[k]))
			}
		}
		if l := fields[1]; len(l) != 1 || l[0] < 'a' || l[0] > 'z' {
			return fmt.Errorf("the letter is %q; expected one of a–z", clip(l))
		}
		letters = append(letters, fields[1][0])
		for i, f := range fields[ocrFields:] {
			if len(f) != 1 || (f[0] != '0' && f[0] != '1') {
				return fmt.Errorf("pixel %d is %q; expected 0 or 1", i+1, clip(f))
			}
			s.X = append(s.X, f[0]-'0')
		}
		s.N++
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if s.N == 0 {
		return nil, nil, fmt.Errorf("%s: no letters; expected lines of %d tab-separated fields", path, ocrFields+OCRPixels)
	}
	return s, letters, nil
}

// isInt reports whether b is a decimal integer, optionally negative (the
// next id of a word's last letter is −1).
func isInt(b []byte) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
