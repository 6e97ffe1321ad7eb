package data

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/logz-ml/logz/internal/regfile"
)

// MaxElements bounds the number of elements (bytes) an IDX header may
// promise: 2^30, 1 GiB, 22 times MNIST's training set, so a corrupt header
// or a gzip bomb cannot make the reader allocate without limit.
const MaxElements = 1 << 30

// IDX is a decoded IDX file of unsigned bytes (the format of MNIST and
// Fashion-MNIST): a big-endian header of magic 0x000008NN, where NN is the
// number of dimensions, then NN big-endian uint32 sizes, then the
// row-major data, one byte per element.
type IDX struct {
	Name string // the file name, used in error messages
	Dims []int  // the sizes, outermost first
	Data []uint8
}

// idxDTypes names the IDX element types, for error messages.
var idxDTypes = map[byte]string{
	0x08: "unsigned byte", 0x09: "signed byte", 0x0B: "int16",
	0x0C: "int32", 0x0D: "float32", 0x0E: "float64",
}

// ReadIDX reads an IDX file of unsigned bytes with 1 to 3 dimensions,
// gzip-compressed or raw (gzip is recognised by its magic bytes 0x1f 0x8b,
// not by the file name). A bad magic number, an element type other than
// unsigned byte, a zero or absurd size, fewer bytes than the header promises,
// bytes after the data, or a corrupt gzip stream is an error naming the file.
//
// The path must name a regular file: a directory, a named pipe (which would
// block) or a device such as /dev/zero is refused before it is opened.
func ReadIDX(path string) (*IDX, error) {
	f, size, err := regfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return decodeIDX(f, path, size)
}

// DecodeIDX is ReadIDX for a stream; name is used in error messages.
func DecodeIDX(r io.Reader, name string) (*IDX, error) {
	size := int64(-1)
	if l, ok := r.(interface{ Len() int }); ok { // bytes.Reader, strings.Reader, bytes.Buffer
		size = int64(l.Len())
	}
	return decodeIDX(r, name, size)
}

// maxDeflateRatio bounds how many bytes deflate can produce per input byte
// (the format's limit is 1032:1).
const maxDeflateRatio = 1032

// decodeIDX decodes from r; size is the byte length of r when known
// (a regular file, an in-memory reader), else -1.
func decodeIDX(r io.Reader, name string, size int64) (*IDX, error) {
	// At most this many bytes can come out of r: the buffer for the data
	// may be allocated in one go up to this bound.
	bound := int64(-1)
	if size >= 0 {
		bound = size
	}
	br := bufio.NewReaderSize(r, 1<<16)
	var src io.Reader = br
	gz := false
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		z, err := gzip.NewReader(br)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("%s: corrupt gzip stream: the gzip header is truncated", name)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: corrupt gzip stream: %w", name, err)
		}
		z.Multistream(false)
		src = &gzipMembers{br: br, z: z}
		gz = true
		if size >= 0 {
			bound = size*maxDeflateRatio + 1<<10
		}
		size = -1
	}
	m, err := decodeIDXBody(src, size, bound)
	if err != nil {
		if gz && isGzipError(err) {
			return nil, fmt.Errorf("%s: corrupt gzip stream: %w", name, err)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m.Name = name
	return m, nil
}

// isGzipError reports whether err comes from the gzip/flate decoder.
func isGzipError(err error) bool {
	var ce flate.CorruptInputError
	return errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) ||
		errors.Is(err, errGzipTruncated) || errors.As(err, &ce)
}

// decodeIDXBody decodes the uncompressed stream r; size is its exact length
// if known, else -1, and bound an upper bound on it, else -1.
func decodeIDXBody(r io.Reader, size, bound int64) (*IDX, error) {
	var magic [4]byte
	if n, err := io.ReadFull(r, magic[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("truncated IDX header: %d of 4 magic bytes", n)
		}
		return nil, err
	}
	if magic[0] != 0 || magic[1] != 0 {
		return nil, fmt.Errorf("bad magic 0x%08x; expected 0x00000801, 0x00000802 or 0x00000803 (an IDX file of unsigned bytes, raw or gzip)",
			binary.BigEndian.Uint32(magic[:]))
	}
	if magic[2] != 0x08 {
		dt, ok := idxDTypes[magic[2]]
		if !ok {
			return nil, fmt.Errorf("bad magic 0x%08x: unknown IDX element type 0x%02x", binary.BigEndian.Uint32(magic[:]), magic[2])
		}
		return nil, fmt.Errorf("unsupported IDX element type 0x%02x (%s); only unsigned byte (0x08) is supported", magic[2], dt)
	}
	nd := int(magic[3])
	if nd < 1 || nd > 3 {
		return nil, fmt.Errorf("IDX file has %d dimensions; expected 1 (labels), 2 (N×D) or 3 (N×rows×cols)", nd)
	}
	hdr := make([]byte, 4*nd)
	if n, err := io.ReadFull(r, hdr); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("truncated IDX header: %d of %d dimension bytes", n, 4*nd)
		}
		return nil, err
	}
	dims := make([]int, nd)
	for k := range dims {
		dims[k] = int(binary.BigEndian.Uint32(hdr[4*k:]))
	}
	for k, d := range dims {
		if d == 0 {
			return nil, fmt.Errorf("IDX dimension %d is 0 (dimensions %v); expected positive sizes", k, dims)
		}
	}
	want := 1
	for _, d := range dims {
		if want > MaxElements/d {
			return nil, fmt.Errorf("IDX dimensions %v promise more than %d elements, the limit (data.MaxElements); file corrupt?", dims, MaxElements)
		}
		want *= d
	}
	hlen := int64(4 + 4*nd)
	if size >= 0 && size-hlen < int64(want) {
		return nil, fmt.Errorf("truncated IDX data: dimensions %v need %d bytes, the file has %d", dims, want, size-hlen)
	}
	first := min(want, 1<<22)
	if bound >= 0 {
		first = int(min(int64(want), max(bound, 0)))
	}
	buf, err := readAtMost(r, want, first)
	if err != nil {
		return nil, err
	}
	if len(buf) < want {
		return nil, fmt.Errorf("truncated IDX data: dimensions %v need %d bytes, the data has %d", dims, want, len(buf))
	}
	// Read to the end: this finds trailing bytes and makes gzip check its CRC.
	extra, err := io.Copy(io.Discard, io.LimitReader(r, 1<<20))
	if err != nil {
		var tg *trailingGzip
		if errors.As(err, &tg) {
			return nil, fmt.Errorf("%s after the gzip stream (trailing garbage)", plural(tg.n, "unexpected byte"))
		}
		return nil, err
	}
	if extra > 0 {
		more := ""
		if extra == 1<<20 {
			more = " or more"
		}
		return nil, fmt.Errorf("%s%s after the IDX data of dimensions %v (trailing garbage)", plural(extra, "unexpected byte"), more, dims)
	}
	return &IDX{Dims: dims, Data: buf}, nil
}

// readAtMost reads up to n bytes into a buffer of first bytes (first ≤ n),
// doubled as data arrives, so that a header promising much more than the
// stream holds costs no more memory than the stream.
func readAtMost(r io.Reader, n, first int) ([]byte, error) {
	buf := make([]byte, max(first, 1))
	got := 0
	for {
		m, err := io.ReadFull(r, buf[got:])
		got += m
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return buf[:got], nil
		}
		if err != nil {
			return nil, err
		}
		if got == n {
			return buf, nil
		}
		buf = append(buf, make([]byte, min(n-len(buf), len(buf)))...)
	}
}

// errGzipTruncated marks a gzip stream that ends before its end marker and
// trailer (the decoder's io.ErrUnexpectedEOF, which io.ReadFull would
// otherwise confuse with a short IDX body).
var errGzipTruncated = errors.New("the gzip stream ends early (file truncated)")

// gzipMembers reads a sequence of gzip members (as gzip.Reader's multistream
// mode does) but reports non-gzip bytes after the last member as trailing
// garbage instead of a bare "invalid header".
type gzipMembers struct {
	br  *bufio.Reader
	z   *gzip.Reader
	err error // sticky: io.ReadFull drops an error that comes with the last bytes
}

type trailingGzip struct{ n int64 }

func (e *trailingGzip) Error() string {
	return plural(e.n, "unexpected byte") + " after the gzip stream"
}

// plural returns "1 thing" or "n things".
func plural(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

func (g *gzipMembers) Read(p []byte) (n int, err error) {
	if g.err != nil {
		return 0, g.err
	}
	n, g.err = g.read(p)
	return n, g.err
}

func (g *gzipMembers) read(p []byte) (int, error) {
	for {
		n, err := g.z.Read(p)
		if err == io.ErrUnexpectedEOF {
			return n, errGzipTruncated
		}
		if err != io.EOF {
			return n, err
		}
		// The member ended and its CRC and length were verified.
		head, _ := g.br.Peek(2)
		switch {
		case len(head) == 0:
			return n, io.EOF
		case len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b:
			if err := g.z.Reset(g.br); err != nil {
				if err == io.EOF || err == io.ErrUnexpectedEOF {
					err = errGzipTruncated
				}
				return n, err
			}
			g.z.Multistream(false)
			if n > 0 {
				return n, nil
			}
		default:
			rest, _ := io.Copy(io.Discard, g.br)
			return n, &trailingGzip{rest}
		}
	}
}

// ReadImages reads an IDX file of images: 3-D N×rows×cols (flattened to
// D = rows·cols) or 2-D N×D.
func ReadImages(path string) (*Grey, error) {
	m, err := ReadIDX(path)
	if err != nil {
		return nil, err
	}
	return m.Images()
}

// Images returns the file as N grey images of D pixels; it fails for a
// 1-D (label) file.
func (m *IDX) Images() (*Grey, error) {
	switch len(m.Dims) {
	case 2:
		return &Grey{Name: m.Name, N: m.Dims[0], D: m.Dims[1], Pix: m.Data}, nil
	case 3:
		return &Grey{Name: m.Name, N: m.Dims[0], D: m.Dims[1] * m.Dims[2], Pix: m.Data}, nil
	}
	return nil, fmt.Errorf("%s: IDX file has dimensions %v; images need 2 (N×D) or 3 (N×rows×cols)", m.Name, m.Dims)
}

// ReadLabels reads a 1-D IDX label file (magic 0x00000801), such as
// train-labels-idx1-ubyte[.gz].
func ReadLabels(path string) ([]uint8, error) {
	m, err := ReadIDX(path)
	if err != nil {
		return nil, err
	}
	if len(m.Dims) != 1 {
		return nil, fmt.Errorf("%s: IDX file has dimensions %v; labels need 1 dimension (magic 0x00000801)", path, m.Dims)
	}
	return m.Data, nil
}
