// Package npyx reads NumPy .npy arrays and .npz archives strictly: every
// numeric or boolean dtype is converted to float64, Fortran order is
// transposed to row-major, and a malformed header, a truncated body or
// trailing bytes is an error naming the file, never a panic or a silently
// wrong number. (Writing goes through github.com/sbinet/npyio, whose reader is
// too lenient for untrusted input: it ignores EOF in the data section.)
package npyx

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/logz-ml/logz/internal/regfile"
)

// Limits on what a file may declare, checked before anything is allocated,
// so a corrupt or hostile header cannot make the reader run out of memory.
const (
	// MaxElements bounds the elements of one array: 2^27 = 134,217,728,
	// 1 GiB once decoded to float64 (MNIST's 60,000×784 training set has
	// 47 million; the largest model of the papers 1.4 million parameters).
	MaxElements = 1 << 27
	// MaxNPYBytes bounds the size of a .npy file or .npz member: MaxElements
	// float64s plus 1 MiB of header.
	MaxNPYBytes = 8*MaxElements + 1<<20
	// MaxNPZBytes bounds the sum of the sizes of the members of an .npz
	// as their headers declare them (uncompressed): 4 GiB, room for a model
	// of MaxElements parameters with its training state.
	MaxNPZBytes = 1 << 32
)

// Array is a decoded array: Shape and Data in row-major (C) order.
type Array struct {
	Shape []int
	Data  []float64
	DType string // the on-disk descr, e.g. "<f8", "|u1"
}

// Len returns the number of elements.
func (a *Array) Len() int { return len(a.Data) }

// Bytes returns the data as bytes; it fails unless every element is an
// integer in [0,255] (a uint8 array such as the JSON meta of model.npz).
func (a *Array) Bytes() ([]byte, error) {
	b := make([]byte, len(a.Data))
	for i, x := range a.Data {
		if x < 0 || x > 255 || x != math.Trunc(x) {
			return nil, fmt.Errorf("element %d is %v, not a byte", i, x)
		}
		b[i] = byte(x)
	}
	return b, nil
}

// ReadFile reads one .npy file. It must be a regular file (not a directory,
// a named pipe or a device) of at most MaxNPYBytes.
func ReadFile(path string) (*Array, error) {
	f, size, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > MaxNPYBytes {
		return nil, fmt.Errorf("%s: the file has %d bytes; the limit of a .npy file is %d (%d elements of float64, npyx.MaxElements)", path, size, int64(MaxNPYBytes), MaxElements)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(f, b); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a, err := Decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// ReadNPZ reads every array of an .npz archive (stored or deflated zip of
// .npy members); the keys are the member names without ".npy". The archive
// must be a regular file; see DecodeNPZFrom for the limits.
func ReadNPZ(path string) (map[string]*Array, error) {
	f, size, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m, err := DecodeNPZFrom(f, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// DecodeNPZ decodes an in-memory .npz archive.
func DecodeNPZ(b []byte) (map[string]*Array, error) {
	return DecodeNPZFrom(bytes.NewReader(b), int64(len(b)))
}

// DecodeNPZFrom decodes an .npz archive of size bytes read from r. Each
// member may declare at most MaxNPYBytes (uncompressed) and all of them
// together at most MaxNPZBytes; these declared sizes are checked before
// anything is decompressed, no more than the declared size is ever read,
// and a member whose data is shorter or longer than declared is reported as
// corrupt.
func DecodeNPZFrom(r io.ReaderAt, size int64) (map[string]*Array, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("not a valid .npz (zip) archive: %w", err)
	}
	var total uint64
	for _, f := range zr.File {
		if f.UncompressedSize64 > MaxNPYBytes {
			return nil, fmt.Errorf("member %q declares %d bytes; the limit of one member is %d (%d elements of float64, npyx.MaxElements)", f.Name, f.UncompressedSize64, int64(MaxNPYBytes), MaxElements)
		}
		total += f.UncompressedSize64
	}
	if total > MaxNPZBytes {
		return nil, fmt.Errorf("the members declare %d bytes in all; the limit of an .npz is %d (npyx.MaxNPZBytes)", total, int64(MaxNPZBytes))
	}
	out := make(map[string]*Array, len(zr.File))
	for _, f := range zr.File {
		name := strings.TrimSuffix(f.Name, ".npy")
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("member %q appears twice", f.Name)
		}
		data, err := readMember(f)
		if err != nil {
			return nil, fmt.Errorf("member %q: %w", f.Name, err)
		}
		a, err := Decode(data)
		if err != nil {
			return nil, fmt.Errorf("member %q: %w", f.Name, err)
		}
		out[name] = a
	}
	return out, nil
}

// readMember reads a zip member, never more than its declared size plus one
// byte, and reports a member whose data does not match its header as
// corrupt.
func readMember(f *zip.File) ([]byte, error) {
	want := f.UncompressedSize64
	rc, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, int64(want)+1))
	var ce flate.CorruptInputError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return nil, fmt.Errorf("corrupt .npz: size mismatch: the data ends before the %d bytes the member declares", want)
	case errors.Is(err, zip.ErrFormat) || (err == nil && uint64(len(data)) > want):
		return nil, fmt.Errorf("corrupt .npz: size mismatch: the data is longer than the %d bytes the member declares", want)
	case errors.Is(err, zip.ErrChecksum):
		return nil, fmt.Errorf("corrupt .npz: CRC-32 checksum mismatch (the data is damaged)")
	case errors.As(err, &ce):
		return nil, fmt.Errorf("corrupt .npz: bad deflate data: %w", err)
	case err != nil:
		return nil, fmt.Errorf("corrupt .npz: %w", err)
	case uint64(len(data)) != want:
		return nil, fmt.Errorf("corrupt .npz: size mismatch: %d bytes of data, the member declares %d", len(data), want)
	}
	return data, nil
}

var magic = []byte("\x93NUMPY")

// Decode decodes an in-memory .npy file.
func Decode(b []byte) (*Array, error) {
	if len(b) < 10 || !bytes.Equal(b[:6], magic) {
		return nil, errors.New("not a .npy file (bad magic; expected \\x93NUMPY)")
	}
	major := b[6]
	var hlen, off int
	switch major {
	case 1:
		hlen, off = int(binary.LittleEndian.Uint16(b[8:10])), 10
	case 2, 3:
		if len(b) < 12 {
			return nil, errors.New("truncated .npy header")
		}
		hlen, off = int(binary.LittleEndian.Uint32(b[8:12])), 12
	default:
		return nil, fmt.Errorf("unsupported .npy format version %d", major)
	}
	if hlen > len(b)-off {
		return nil, fmt.Errorf("truncated .npy header: it claims %d bytes, %d present", hlen, len(b)-off)
	}
	descr, fortran, shape, err := parseHeader(string(b[off : off+hlen]))
	if err != nil {
		return nil, err
	}
	dt, err := dtypeOf(descr)
	if err != nil {
		return nil, err
	}
	n := 1
	for _, d := range shape {
		if d < 0 {
			return nil, fmt.Errorf("negative dimension in shape %v", shape)
		}
		if d != 0 && n > MaxElements/d {
			return nil, fmt.Errorf("shape %v declares more than %d elements, the limit (npyx.MaxElements)", shape, MaxElements)
		}
		n *= d
	}
	body := b[off+hlen:]
	want := n * dt.size
	if len(body) < want {
		return nil, fmt.Errorf("truncated data: shape %v of %s needs %d bytes, file has %d", shape, descr, want, len(body))
	}
	if len(body) > want {
		return nil, fmt.Errorf("%d unexpected bytes after the data of shape %v", len(body)-want, shape)
	}
	data := make([]float64, n)
	for i := range data {
		data[i] = dt.decode(body[i*dt.size:])
	}
	if fortran && len(shape) > 1 {
		data = fortranToC(data, shape)
	}
	return &Array{Shape: shape, Data: data, DType: descr}, nil
}

// fortranToC reorders column-major data into row-major.
func fortranToC(src []float64, shape []int) []float64 {
	dst := make([]float64, len(src))
	nd := len(shape)
	idx := make([]int, nd)
	for f := range src { // f walks Fortran order: first index fastest
		c := 0
		for k := 0; k < nd; k++ {
			c = c*shape[k] + idx[k]
		}
		dst[c] = src[f]
		for k := 0; k < nd; k++ {
			idx[k]++
			if idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return dst
}

type dtype struct {
	size   int
	decode func([]byte) float64
}

func dtypeOf(descr string) (dtype, error) {
	if len(descr) < 2 {
		return dtype{}, fmt.Errorf("unsupported dtype %q", descr)
	}
	var order binary.ByteOrder
	switch descr[0] {
	case '<', '|', '=':
		order = binary.LittleEndian
	case '>':
		order = binary.BigEndian
	default:
		return dtype{}, fmt.Errorf("unsupported dtype %q (byte order %q)", descr, descr[0])
	}
	switch descr[1:] {
	case "f8":
		return dtype{8, func(b []byte) float64 { return math.Float64frombits(order.Uint64(b)) }}, nil
	case "f4":
		return dtype{4, func(b []byte) float64 { return float64(math.Float32frombits(order.Uint32(b))) }}, nil
	case "u1", "b1":
		return dtype{1, func(b []byte) float64 { return float64(b[0]) }}, nil
	case "i1":
		return dtype{1, func(b []byte) float64 { return float64(int8(b[0])) }}, nil
	case "u2":
		return dtype{2, func(b []byte) float64 { return float64(order.Uint16(b)) }}, nil
	case "i2":
		return dtype{2, func(b []byte) float64 { return float64(int16(order.Uint16(b))) }}, nil
	case "u4":
		return dtype{4, func(b []byte) float64 { return float64(order.Uint32(b)) }}, nil
	case "i4":
		return dtype{4, func(b []byte) float64 { return float64(int32(order.Uint32(b))) }}, nil
	case "u8":
		return dtype{8, func(b []byte) float64 { return float64(order.Uint64(b)) }}, nil
	case "i8":
		return dtype{8, func(b []byte) float64 { return float64(int64(order.Uint64(b))) }}, nil
	}
	return dtype{}, fmt.Errorf("unsupported dtype %q (want a boolean, integer or float type)", descr)
}

// parseHeader parses the Python dict literal of a .npy header, e.g.
// {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
func parseHeader(h string) (descr string, fortran bool, shape []int, err error) {
	h = strings.TrimSpace(h)
	if !strings.HasPrefix(h, "{") || !strings.HasSuffix(h, "}") {
		return "", false, nil, fmt.Errorf("malformed .npy header %q", clip(h))
	}
	body := h[1 : len(h)-1]
	seen := map[string]bool{}
	for len(strings.TrimSpace(body)) > 0 {
		body = strings.TrimSpace(body)
		key, rest, ok := quoted(body)
		if !ok {
			return "", false, nil, fmt.Errorf("malformed .npy header %q", clip(h))
		}
		rest = strings.TrimSpace(rest)
		if !strings.HasPrefix(rest, ":") {
			return "", false, nil, fmt.Errorf("malformed .npy header %q", clip(h))
		}
		rest = strings.TrimSpace(rest[1:])
		var val string
		switch key {
		case "descr":
			val, rest, ok = quoted(rest)
			descr = val
		case "fortran_order":
			switch {
			case strings.HasPrefix(rest, "True"):
				fortran, rest = true, rest[4:]
			case strings.HasPrefix(rest, "False"):
				fortran, rest = false, rest[5:]
			default:
				ok = false
			}
		case "shape":
			end := strings.IndexByte(rest, ')')
			if !strings.HasPrefix(rest, "(") || end < 0 {
				ok = false
				break
			}
			shape = []int{}
			for _, f := range strings.Split(rest[1:end], ",") {
				f = strings.TrimSpace(f)
				if f == "" {
					continue
				}
				f = strings.TrimSuffix(f, "L")
				d, e := strconv.Atoi(f)
				if e != nil {
					ok = false
					break
				}
				shape = append(shape, d)
			}
			rest = rest[end+1:]
		default:
			return "", false, nil, fmt.Errorf(".npy header has unknown key %q", key)
		}
		if !ok {
			return "", false, nil, fmt.Errorf("malformed value for %q in .npy header %q", key, clip(h))
		}
		seen[key] = true
		rest = strings.TrimSpace(rest)
		rest = strings.TrimPrefix(rest, ",")
		body = rest
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return "", false, nil, fmt.Errorf(".npy header lacks %q", k)
		}
	}
	return descr, fortran, shape, nil
}

// quoted splits a leading '...' or "..." string from s.
func quoted(s string) (val, rest string, ok bool) {
	if len(s) < 2 || (s[0] != '\'' && s[0] != '"') {
		return "", s, false
	}
	end := strings.IndexByte(s[1:], s[0])
	if end < 0 {
		return "", s, false
	}
	return s[1 : 1+end], s[2+end:], true
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
