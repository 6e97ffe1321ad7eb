package data

import (
	"bufio"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/logz-ml/logz/internal/regfile"
)

// MATMatrix is a real numeric 2-D matrix of a MATLAB file, its values
// converted to float64 in MATLAB's column-major order: the value at row r,
// column c is Data[r+c*Rows].
type MATMatrix struct {
	Name       string
	Rows, Cols int
	Class      string // the MATLAB class: double, single, uint8, …, with " (logical)" for logical arrays
	Data       []float64
}

// MaxMATElements bounds the number of values one matrix of a MATLAB file
// may declare: 2^28 (2 GiB as float64), 14 times Omniglot's training
// images, so that a corrupt header cannot make the reader allocate without
// limit.
const MaxMATElements = 1 << 28

// The MATLAB v5 data types (the type field of a data element's tag).
const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15
)

// miSize is the byte size of the numeric data types.
var miSize = map[uint32]int{
	miINT8: 1, miUINT8: 1, miINT16: 2, miUINT16: 2, miINT32: 4, miUINT32: 4,
	miSINGLE: 4, miDOUBLE: 8, miINT64: 8, miUINT64: 8,
}

// mxClass names the MATLAB array classes (the low byte of the array flags).
var mxClass = map[uint32]string{
	1: "cell", 2: "struct", 3: "object", 4: "char", 5: "sparse",
	6: "double", 7: "single", 8: "int8", 9: "uint8", 10: "int16", 11: "uint16",
	12: "int32", 13: "uint32", 14: "int64", 15: "uint64", 16: "function handle", 17: "opaque",
}

// ReadMAT reads the named variables from a MATLAB v5 (or v7, compressed)
// MAT-file, each a real numeric 2-D matrix of any numeric class, stored
// with any numeric data type (MATLAB stores a double array of small
// integers as uint8, for one). Other variables are skipped unread. A name
// the file does not hold, a wanted variable of another kind (char, cell,
// struct, sparse, complex, more than two dimensions), a MATLAB 7.3 (HDF5)
// or v4 file, a truncated or corrupt file or zlib stream is an error naming
// the file and what was expected, never a panic.
func ReadMAT(path string, names ...string) (map[string]*MATMatrix, error) {
	f, size, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return DecodeMAT(f, path, size, names...)
}

// DecodeMAT is ReadMAT for a stream of size bytes (−1: unknown); file
// names it in messages.
func DecodeMAT(r io.Reader, file string, size int64, names ...string) (map[string]*MATMatrix, error) {
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	buf := int64(1 << 16)
	if size >= 0 {
		buf = max(min(buf, size), 16)
	}
	out, seen, err := decodeMAT(bufio.NewReaderSize(r, int(buf)), size, want)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var missing []string
	for _, n := range names {
		if out[n] == nil {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 {
		held := "no variable"
		if len(seen) > 0 {
			sort.Strings(seen)
			held = strings.Join(seen, ", ")
		}
		return nil, fmt.Errorf("%s: no variable %s in this MATLAB file (it holds %s)", file, strings.Join(missing, ", "), held)
	}
	return out, nil
}

// matStream reads data elements of one byte order, counting the bytes it
// has consumed for messages.
type matStream struct {
	r   io.Reader
	bo  binary.ByteOrder
	off int64
	// where names the stream in messages ("" at the top level).
	where string
}

func (s *matStream) full(b []byte, what string) error {
	n, err := io.ReadFull(s.r, b)
	s.off += int64(n)
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return fmt.Errorf("truncated%s: %s needs %d bytes at byte %d, %d left", s.where, what, len(b), s.off-int64(n), n)
	}
	if err != nil {
		return matReadErr(err, s.where)
	}
	return nil
}

// matReadErr turns a zlib failure into a message that says so.
func matReadErr(err error, where string) error {
	if errors.Is(err, zlib.ErrChecksum) || errors.Is(err, zlib.ErrHeader) || errors.Is(err, zlib.ErrDictionary) || isGzipError(err) {
		return fmt.Errorf("corrupt zlib stream%s: %w", where, err)
	}
	return err
}

func (s *matStream) skip(n int64, what string) error {
	m, err := io.CopyN(io.Discard, s.r, n)
	s.off += m
	if err == io.EOF {
		return fmt.Errorf("truncated%s: %s needs %d more bytes at byte %d, %d left", s.where, what, n, s.off-m, m)
	}
	if err != nil {
		return matReadErr(err, s.where)
	}
	return nil
}

// tag is a data element's tag. A small element (1–4 bytes packed into the
// tag) has its data in small.
type tag struct {
	typ, n  uint32
	isSmall bool
	small   [4]byte
}

func (s *matStream) tag(what string) (tag, error) {
	var b [8]byte
	if err := s.full(b[:], "the tag of "+what); err != nil {
		return tag{}, err
	}
	t := tag{typ: s.bo.Uint32(b[:4]), n: s.bo.Uint32(b[4:])}
	if t.typ>>16 != 0 { // small data element: 16-bit size, 16-bit type
		t = tag{typ: t.typ & 0xffff, n: t.typ >> 16, isSmall: true}
		copy(t.small[:], b[4:])
		if t.n > 4 {
			return tag{}, fmt.Errorf("corrupt%s: %s at byte %d is a small element of %d bytes; at most 4 fit", s.where, what, s.off-8, t.n)
		}
	}
	return t, nil
}

// body reads an element's data (n ≤ limit bytes) and its padding to 8 bytes.
func (s *matStream) body(t tag, what string, limit int) ([]byte, error) {
	if t.isSmall {
		return t.small[:t.n], nil
	}
	if int64(t.n) > int64(limit) {
		return nil, fmt.Errorf("corrupt%s: %s at byte %d declares %d bytes; expected at most %d", s.where, what, s.off-8, t.n, limit)
	}
	b := make([]byte, t.n)
	if err := s.full(b, what); err != nil {
		return nil, err
	}
	return b, s.pad(int64(t.n), what)
}

// pad skips the padding after n bytes of data to the next multiple of 8.
func (s *matStream) pad(n int64, what string) error {
	if p := (8 - n%8) % 8; p > 0 {
		return s.skip(p, "the padding of "+what)
	}
	return nil
}

// decodeMAT reads the header and the top-level data elements, returning
// the wanted matrices and the names of all variables seen.
func decodeMAT(br *bufio.Reader, size int64, want map[string]bool) (map[string]*MATMatrix, []string, error) {
	var hdr [128]byte
	if n, err := io.ReadFull(br, hdr[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			if n >= 4 && string(hdr[:4]) == "\x89HDF" {
				return nil, nil, errors.New("an HDF5 file, not a MATLAB v5 MAT-file; save it in MATLAB with -v7 (or read it in Python and write .npy)")
			}
			return nil, nil, fmt.Errorf("truncated: %d bytes, less than the 128-byte header of a MATLAB v5 MAT-file", n)
		}
		return nil, nil, err
	}
	var bo binary.ByteOrder
	switch string(hdr[126:128]) {
	case "IM":
		bo = binary.LittleEndian
	case "MI":
		bo = binary.BigEndian
	default:
		return nil, nil, fmt.Errorf("not a MATLAB v5 MAT-file: no endian indicator IM or MI at bytes 126–127 (found %q; a MATLAB v4 file, or not MATLAB?)", hdr[126:128])
	}
	switch v := bo.Uint16(hdr[124:126]); v {
	case 0x0100:
	case 0x0200:
		return nil, nil, errors.New("a MATLAB 7.3 (HDF5) MAT-file; only v5 and v7 files are read: save it in MATLAB with -v7 (or read it in Python and write .npy)")
	default:
		return nil, nil, fmt.Errorf("MAT-file version 0x%04x; expected 0x0100 (MATLAB v5/v7)", v)
	}
	top := &matStream{r: br, bo: bo, off: 128}
	out := map[string]*MATMatrix{}
	var seen []string
	for {
		if _, err := br.Peek(1); err == io.EOF {
			return out, seen, nil
		}
		start := top.off
		t, err := top.tag("a data element")
		if err != nil {
			return nil, nil, err
		}
		if t.isSmall {
			return nil, nil, fmt.Errorf("corrupt: a small data element at byte %d at the top level; expected a matrix or a compressed element", start)
		}
		if size >= 0 && int64(t.n) > size-top.off {
			return nil, nil, fmt.Errorf("truncated: the data element at byte %d declares %d bytes, the file has %d after its tag", start, t.n, size-top.off)
		}
		var m *MATMatrix
		var name string
		switch t.typ {
		case miMATRIX:
			lr := &io.LimitedReader{R: br, N: int64(t.n)}
			s := &matStream{r: lr, bo: bo, off: top.off, where: ""}
			name, m, err = readMatrix(s, int64(t.n), want)
			if err != nil {
				return nil, nil, err
			}
			top.off = s.off
			if err := top.skip(lr.N, "the rest of variable "+name); err != nil {
				return nil, nil, err
			}
		case miCOMPRESSED:
			lr := &io.LimitedReader{R: br, N: int64(t.n)}
			name, m, err = readCompressed(lr, bo, start, want)
			if err != nil {
				return nil, nil, err
			}
			top.off += int64(t.n) - lr.N
			if err := top.skip(lr.N, "the rest of the compressed element at byte "+fmt.Sprint(start)); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, fmt.Errorf("corrupt: data element of type %d at byte %d at the top level; expected a matrix (14) or a compressed element (15)", t.typ, start)
		}
		seen = append(seen, name)
		if m != nil {
			if out[name] != nil {
				return nil, nil, fmt.Errorf("variable %s appears twice", name)
			}
			out[name] = m
		}
	}
}

// readCompressed reads the matrix in a compressed element (a zlib stream
// of one data element) from r, which ends with the element.
func readCompressed(r io.Reader, bo binary.ByteOrder, start int64, want map[string]bool) (string, *MATMatrix, error) {
	where := fmt.Sprintf(" in the compressed element at byte %d", start)
	zr, err := zlib.NewReader(r)
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return "", nil, fmt.Errorf("truncated%s: the zlib header is cut off", where)
		}
		return "", nil, fmt.Errorf("corrupt zlib stream%s: %w", where, err)
	}
	s := &matStream{r: zr, bo: bo, where: where}
	t, err := s.tag("the compressed data element")
	if err != nil {
		return "", nil, err
	}
	if t.typ != miMATRIX || t.isSmall {
		return "", nil, fmt.Errorf("corrupt%s: it holds a data element of type %d; expected a matrix (14)", where, t.typ)
	}
	// The decompressed size is not known in advance: readMatrix reads
	// values in chunks, so a corrupt size costs no more memory than the
	// stream holds.
	name, m, err := readMatrix(s, int64(t.n), want)
	if err != nil || m == nil {
		return name, m, err
	}
	// Read to the end of the zlib stream so that its checksum is checked.
	var one [1]byte
	switch n, err := io.ReadAtLeast(zr, one[:], 1); {
	case n > 0:
		return "", nil, fmt.Errorf("corrupt%s: bytes after variable %s", where, name)
	case err == io.EOF:
	case err == io.ErrUnexpectedEOF:
		return "", nil, fmt.Errorf("truncated%s: the zlib stream ends before its checksum", where)
	default:
		return "", nil, matReadErr(err, where)
	}
	return name, m, nil
}

// readMatrix reads a matrix element of n bytes whose tag has been read. It
// returns the variable's name, and the matrix when it is wanted (nil
// otherwise, with the rest left unread).
func readMatrix(s *matStream, n int64, want map[string]bool) (string, *MATMatrix, error) {
	start := s.off - 8
	ft, err := s.tag("the array flags")
	if err != nil {
		return "", nil, err
	}
	if ft.typ != miUINT32 || ft.n != 8 {
		return "", nil, fmt.Errorf("corrupt%s: the matrix at byte %d starts with an element of type %d and %d bytes; expected the array flags (type 6, 8 bytes)", s.where, start, ft.typ, ft.n)
	}
	fb, err := s.body(ft, "the array flags", 8)
	if err != nil {
		return "", nil, err
	}
	flags := s.bo.Uint32(fb[:4])
	class := flags & 0xff
	complexArr, logical := flags&0x800 != 0, flags&0x200 != 0
	dt, err := s.tag("the dimensions")
	if err != nil {
		return "", nil, err
	}
	if dt.typ != miINT32 || dt.n%4 != 0 || dt.n < 8 {
		return "", nil, fmt.Errorf("corrupt%s: the matrix at byte %d has a dimensions element of type %d and %d bytes; expected int32 (type 5), at least two", s.where, start, dt.typ, dt.n)
	}
	db, err := s.body(dt, "the dimensions", 4*64)
	if err != nil {
		return "", nil, err
	}
	dims := make([]int, len(db)/4)
	for k := range dims {
		d := int32(s.bo.Uint32(db[4*k:]))
		if d < 0 {
			return "", nil, fmt.Errorf("corrupt%s: the matrix at byte %d has a negative dimension %d", s.where, start, d)
		}
		dims[k] = int(d)
	}
	nt, err := s.tag("the array name")
	if err != nil {
		return "", nil, err
	}
	if nt.typ != miINT8 && nt.typ != miUINT8 {
		return "", nil, fmt.Errorf("corrupt%s: the matrix at byte %d has a name element of type %d; expected int8 (type 1)", s.where, start, nt.typ)
	}
	nb, err := s.body(nt, "the array name", 1<<12)
	if err != nil {
		return "", nil, err
	}
	name := string(nb)
	if !want[name] {
		return name, nil, nil
	}
	cls, ok := mxClass[class]
	if !ok {
		return "", nil, fmt.Errorf("variable %s has an unknown array class %d", name, class)
	}
	switch {
	case class < 6 || class > 15:
		return "", nil, fmt.Errorf("variable %s is a %s array; expected a numeric matrix", name, cls)
	case complexArr:
		return "", nil, fmt.Errorf("variable %s is a complex %s array; expected a real numeric matrix", name, cls)
	case len(dims) != 2:
		return "", nil, fmt.Errorf("variable %s has %d dimensions %v; expected a 2-D matrix", name, len(dims), dims)
	}
	if logical {
		cls += " (logical)"
	}
	count := int64(dims[0]) * int64(dims[1])
	if count > MaxMATElements {
		return "", nil, fmt.Errorf("variable %s is %d×%d, more than %d values, the limit (data.MaxMATElements); file corrupt?", name, dims[0], dims[1], MaxMATElements)
	}
	vt, err := s.tag("the values of " + name)
	if err != nil {
		return "", nil, err
	}
	size, ok := miSize[vt.typ]
	if !ok {
		return "", nil, fmt.Errorf("variable %s: values of data type %d; expected a numeric type (1–7, 9, 12, 13)", name, vt.typ)
	}
	if int64(vt.n) != count*int64(size) {
		return "", nil, fmt.Errorf("variable %s is %d×%d, %d values, but its data element holds %d bytes of %d-byte values (%v values); file corrupt?", name, dims[0], dims[1], count, vt.n, size, float64(vt.n)/float64(size))
	}
	if int64(vt.n) > n {
		return "", nil, fmt.Errorf("truncated%s: variable %s needs %d bytes of values, its matrix element holds %d in all", s.where, name, vt.n, n)
	}
	m := &MATMatrix{Name: name, Rows: dims[0], Cols: dims[1], Class: cls}
	if vt.isSmall {
		m.Data = convertMAT(nil, vt.small[:vt.n], vt.typ, s.bo)
		return name, m, nil
	}
	// Read and convert in chunks of 1 MiB.
	m.Data = make([]float64, 0, min(count, 1<<17))
	buf := make([]byte, min(int64(vt.n), int64(1<<20-(1<<20)%size)))
	for left := int64(vt.n); left > 0; {
		b := buf[:min(left, int64(len(buf)))]
		if err := s.full(b, "the values of "+name); err != nil {
			return "", nil, err
		}
		m.Data = convertMAT(m.Data, b, vt.typ, s.bo)
		left -= int64(len(b))
	}
	return name, m, s.pad(int64(vt.n), "the values of "+name)
}

// convertMAT appends the values of b, of data type typ, to dst.
func convertMAT(dst []float64, b []byte, typ uint32, bo binary.ByteOrder) []float64 {
	switch typ {
	case miINT8:
		for _, v := range b {
			dst = append(dst, float64(int8(v)))
		}
	case miUINT8:
		for _, v := range b {
			dst = append(dst, float64(v))
		}
	case miINT16:
		for k := 0; k < len(b); k += 2 {
			dst = append(dst, float64(int16(bo.Uint16(b[k:]))))
		}
	case miUINT16:
		for k := 0; k < len(b); k += 2 {
			dst = append(dst, float64(bo.Uint16(b[k:])))
		}
	case miINT32:
		for k := 0; k < len(b); k += 4 {
			dst = append(dst, float64(int32(bo.Uint32(b[k:]))))
		}
	case miUINT32:
		for k := 0; k < len(b); k += 4 {
			dst = append(dst, float64(bo.Uint32(b[k:])))
		}
	case miSINGLE:
		for k := 0; k < len(b); k += 4 {
			dst = append(dst, float64(math.Float32frombits(bo.Uint32(b[k:]))))
		}
	case miDOUBLE:
		for k := 0; k < len(b); k += 8 {
			dst = append(dst, math.Float64frombits(bo.Uint64(b[k:])))
		}
	case miINT64:
		for k := 0; k < len(b); k += 8 {
			dst = append(dst, float64(int64(bo.Uint64(b[k:]))))
		}
	case miUINT64:
		for k := 0; k < len(b); k += 8 {
			dst = append(dst, float64(bo.Uint64(b[k:])))
		}
	}
	return dst
}
