package data

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// makeIDX encodes an unsigned-byte IDX file.
func makeIDX(dims []int, data []byte) []byte {
	b := []byte{0, 0, 0x08, byte(len(dims))}
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, uint32(d))
	}
	return append(b, data...)
}

// gz compresses b as one gzip member.
func gz(t testing.TB, b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func seq(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}

func TestDecodeIDXGood(t *testing.T) {
	img := makeIDX([]int{3, 2, 4}, seq(24))
	two := gz(t, img)
	// Two gzip members holding the file's halves: a valid multi-member stream.
	members := append(gz(t, img[:10]), gz(t, img[10:])...)
	cases := []struct {
		name string
		b    []byte
		dims []int
		data []byte
	}{
		{"raw 3-D", img, []int{3, 2, 4}, seq(24)},
		{"gzip 3-D", two, []int{3, 2, 4}, seq(24)},
		{"gzip two members", members, []int{3, 2, 4}, seq(24)},
		{"raw 2-D", makeIDX([]int{2, 5}, seq(10)), []int{2, 5}, seq(10)},
		{"raw 1-D labels", makeIDX([]int{4}, []byte{1, 2, 3, 9}), []int{4}, []byte{1, 2, 3, 9}},
	}
	for _, c := range cases {
		m, err := DecodeIDX(bytes.NewReader(c.b), c.name)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !slices.Equal(m.Dims, c.dims) || !bytes.Equal(m.Data, c.data) || m.Name != c.name {
			t.Errorf("%s: got %q dims %v data %v, want dims %v data %v", c.name, m.Name, m.Dims, m.Data, c.dims, c.data)
		}
	}
}

func TestDecodeIDXBad(t *testing.T) {
	img := makeIDX([]int{3, 2, 4}, seq(24))
	zimg := gz(t, img)
	corrupt := slices.Clone(zimg)
	corrupt[12] ^= 0xff // inside the deflate data
	badCRC := slices.Clone(zimg)
	badCRC[len(badCRC)-6] ^= 0x01 // the CRC-32 of the trailer
	int32File := []byte{0, 0, 0x0C, 1, 0, 0, 0, 1, 0, 0, 0, 7}
	cases := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "truncated IDX header"},
		{"short magic", []byte{0, 0}, "truncated IDX header"},
		{"truncated dims", img[:9], "truncated IDX header"},
		{"truncated data", img[:len(img)-1], "truncated IDX data"},
		{"bad magic npy", []byte("\x93NUMPY\x01\x00v\x00{'descr'"), "bad magic 0x934e554d"},
		{"bad magic high bytes", []byte{1, 0, 8, 1, 0, 0, 0, 1, 5}, "bad magic 0x01000801"},
		{"int32 dtype", int32File, "unsupported IDX element type 0x0c (int32)"},
		{"unknown dtype", []byte{0, 0, 0x07, 1, 0, 0, 0, 1, 5}, "unknown IDX element type 0x07"},
		{"no dims", []byte{0, 0, 8, 0}, "0 dimensions"},
		{"four dims", makeIDX([]int{1, 1, 1, 1}, []byte{1}), "4 dimensions"},
		{"zero dim", makeIDX([]int{3, 0, 4}, nil), "IDX dimension 1 is 0 (dimensions [3 0 4]); expected positive sizes"},
		{"zero first dim", makeIDX([]int{0, 28, 28}, nil), "IDX dimension 0 is 0 (dimensions [0 28 28]); expected positive sizes"},
		{"absurd size", makeIDX([]int{1 << 16, 1 << 16}, nil), "dimensions [65536 65536] promise more than 1073741824 elements, the limit (data.MaxElements)"},
		{"absurd 3-D", makeIDX([]int{0xffffffff, 0xffffffff, 0xffffffff}, nil), "more than 1073741824 elements"},
		{"trailing bytes", append(slices.Clone(img), 1, 2, 3), "3 unexpected bytes after the IDX data"},
		{"gzip trailing garbage", append(slices.Clone(zimg), 'x', 'y'), "2 unexpected bytes after the gzip stream"},
		{"gzip data trailing", gz(t, append(slices.Clone(img), 0)), "1 unexpected byte after the IDX data"},
		{"gzip corrupt", corrupt, "corrupt gzip stream"},
		{"gzip bad crc", badCRC, "corrupt gzip stream: gzip: invalid checksum"},
		{"gzip truncated", zimg[:len(zimg)-12], "corrupt gzip stream"},
		{"gzip truncated trailer", zimg[:len(zimg)-3], "corrupt gzip stream"},
		{"gzip header only", zimg[:5], "corrupt gzip stream: the gzip header is truncated"},
		{"gzip of truncated IDX", gz(t, img[:20]), "truncated IDX data"},
	}
	for _, c := range cases {
		name := "file-" + strings.ReplaceAll(c.name, " ", "-")
		m, err := DecodeIDX(bytes.NewReader(c.b), name)
		if err == nil {
			t.Errorf("%s: no error; got dims %v", c.name, m.Dims)
			continue
		}
		t.Logf("%s: %v", c.name, err)
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), name+": ") {
			t.Errorf("%s: got error %q, want one starting with %q and containing %q", c.name, err, name, c.want)
		}
	}
}

func TestReadIDXFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	img := makeIDX([]int{3, 2, 4}, seq(24))
	raw := write("images", img)
	// A gzip file without the .gz suffix: detection is by content.
	zipped := write("images-zipped", gz(t, img))
	labels := write("labels.gz", gz(t, makeIDX([]int{3}, []byte{4, 0, 9})))
	short := write("short", img[:len(img)-5])

	for _, p := range []string{raw, zipped} {
		g, err := ReadImages(p)
		if err != nil {
			t.Fatal(err)
		}
		if g.N != 3 || g.D != 8 || !bytes.Equal(g.Pix, seq(24)) || g.Name != p {
			t.Errorf("%s: got %+v", p, g)
		}
	}
	lab, err := ReadLabels(labels)
	if err != nil || !bytes.Equal(lab, []byte{4, 0, 9}) {
		t.Errorf("labels: %v %v", lab, err)
	}
	if _, err := ReadImages(labels); err == nil || !strings.Contains(err.Error(), labels) || !strings.Contains(err.Error(), "images need") {
		t.Errorf("labels as images: %v", err)
	}
	if _, err := ReadLabels(raw); err == nil || !strings.Contains(err.Error(), raw) {
		t.Errorf("images as labels: %v", err)
	}
	// The size check of a regular file reports truncation before reading.
	if _, err := ReadIDX(short); err == nil || !strings.Contains(err.Error(), short+": truncated IDX data") || !strings.Contains(err.Error(), "the file has 19") {
		t.Errorf("short file: %v", err)
	}
	missing := filepath.Join(dir, "nope")
	if _, err := ReadIDX(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}
}

// A header that promises far more data than the stream holds must not make
// the reader allocate what the header promises.
func TestDecodeIDXHugeHeaderSmallAllocation(t *testing.T) {
	b := gz(t, makeIDX([]int{1 << 15, 1 << 15}, seq(100))) // promises 1 GiB
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := DecodeIDX(bytes.NewReader(b), "huge")
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "truncated IDX data") {
		t.Errorf("got %v, want a truncation error", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
		t.Errorf("decoding a 1 GiB header over 100 bytes allocated %d MiB", d>>20)
	}
}

func FuzzReadIDX(f *testing.F) {
	img := makeIDX([]int{2, 3, 2}, seq(12))
	f.Add(img)
	f.Add(gz(f, img))
	f.Add(makeIDX([]int{5}, seq(5)))
	f.Add(gz(f, makeIDX([]int{2, 2}, seq(4))))
	f.Add(img[:9])
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeIDX(bytes.NewReader(b), "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz: ") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		n := 1
		for _, d := range m.Dims {
			if d <= 0 {
				t.Fatalf("dims %v", m.Dims)
			}
			n *= d
		}
		if len(m.Dims) < 1 || len(m.Dims) > 3 || len(m.Data) != n {
			t.Fatalf("dims %v with %d bytes", m.Dims, len(m.Data))
		}
		if len(m.Dims) > 1 {
			g, err := m.Images()
			if err != nil || g.N*g.D != len(g.Pix) {
				t.Fatalf("images: %v %+v", err, g)
			}
		}
	})
}
