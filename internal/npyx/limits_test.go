package npyx

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// npyHeader returns a .npy file of the given header dict and body.
func npyFile(dict string, body []byte) []byte {
	b := append([]byte("\x93NUMPY\x01\x00"), byte(len(dict)), byte(len(dict)>>8))
	return append(append(b, dict...), body...)
}

// member is one zip member with a hand-set header.
type member struct {
	name     string
	data     []byte // the bytes stored (after compression if deflate)
	method   uint16
	crc      uint32 // 0 = computed from plain
	plain    []byte // the uncompressed bytes, for the CRC
	declared uint64 // the declared uncompressed size
}

// rawZip builds a zip whose headers say what the members claim.
func rawZip(t *testing.T, ms ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range ms {
		crc := m.crc
		if crc == 0 {
			crc = crc32.ChecksumIEEE(m.plain)
		}
		w, err := zw.CreateRaw(&zip.FileHeader{
			Name: m.name, Method: m.method, CRC32: crc,
			CompressedSize64: uint64(len(m.data)), UncompressedSize64: m.declared,
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func deflate(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	w.Write(b)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestNPZLimits: members whose headers lie about their size, or declare
// more than the limits, are refused before (or while) reading, with the
// member named; no test allocates more than a few MB.
func TestNPZLimits(t *testing.T) {
	good := npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", make([]byte, 16))
	// 8 MiB of zeros deflate to a few KB: an .npy of 1 Mi float64s.
	bigPlain := npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (1048576,), }", make([]byte, 8<<20))
	big := deflate(t, bigPlain)
	stored := func(name string, plain []byte, declared uint64) member {
		return member{name: name, data: plain, method: zip.Store, plain: plain, declared: declared}
	}
	cases := []struct {
		name    string
		members []member
		want    string
	}{
		{"member declares more than the limit", []member{stored("W.npy", good, 1<<40)},
			`member "W.npy" declares 1099511627776 bytes; the limit of one member is 1074790400 (134217728 elements of float64, npyx.MaxElements)`},
		{"members declare more than the total limit", []member{
			stored("a.npy", good, 1<<30), stored("b.npy", good, 1<<30), stored("c.npy", good, 1<<30),
			stored("d.npy", good, 1<<30), stored("e.npy", good, 1<<30)},
			"the members declare 5368709120 bytes in all; the limit of an .npz is 4294967296 (npyx.MaxNPZBytes)"},
		{"stored member shorter than declared", []member{stored("W.npy", good, uint64(len(good))+100)},
			`member "W.npy": corrupt .npz: size mismatch: the data ends before the 183 bytes the member declares`},
		{"stored member longer than declared", []member{stored("W.npy", good, uint64(len(good))-10)},
			`member "W.npy": corrupt .npz: size mismatch: the data is longer than the 73 bytes the member declares`},
		{"deflated bomb declared small", []member{{name: "W.npy", data: big, method: zip.Deflate, plain: bigPlain, declared: 1000}},
			`member "W.npy": corrupt .npz: size mismatch: the data is longer than the 1000 bytes the member declares`},
		{"deflated member shorter than declared", []member{{name: "W.npy", data: big, method: zip.Deflate, plain: bigPlain, declared: uint64(len(bigPlain)) + 5}},
			`member "W.npy": corrupt .npz: size mismatch: the data ends before the 8388686 bytes the member declares`},
		{"checksum", []member{{name: "W.npy", data: good, method: zip.Store, plain: good, crc: 12345, declared: uint64(len(good))}},
			`member "W.npy": corrupt .npz: CRC-32 checksum mismatch`},
		{"header shape beyond the element limit", []member{stored("W.npy", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (134217729,), }", nil), 0)},
			"declares more than 134217728 elements, the limit (npyx.MaxElements)"},
		{"header shape beyond what the member holds", []member{stored("W.npy", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (1000, 1000), }", make([]byte, 16)), 0)},
			`member "W.npy": truncated data: shape [1000 1000] of <f8 needs 8000000 bytes, file has 16`},
	}
	for _, c := range cases {
		for i := range c.members {
			if c.members[i].declared == 0 {
				c.members[i].declared = uint64(len(c.members[i].plain))
			}
		}
		_, err := DecodeNPZ(rawZip(t, c.members...))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant …%s…", c.name, err, c.want)
		}
	}
	// The honest deflated member decodes.
	m, err := DecodeNPZ(rawZip(t, member{name: "W.npy", data: big, method: zip.Deflate, plain: bigPlain, declared: uint64(len(bigPlain))}))
	if err != nil || m["W"].Len() != 1<<20 {
		t.Errorf("honest member: %v", err)
	}
}

// TestReadOnlyRegularFiles: directories, named pipes and devices are
// refused by path before they are opened (a pipe would block, /dev/zero
// never ends).
func TestReadOnlyRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.npy")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	paths := map[string]string{dir: "a directory", fifo: "a named pipe"}
	if _, err := os.Stat("/dev/zero"); err == nil {
		paths["/dev/zero"] = "a character device"
	}
	for p, kind := range paths {
		want := fmt.Sprintf("%s: not a regular file (it is %s)", p, kind)
		if _, err := ReadFile(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadFile(%s): got %v, want %q", p, err, want)
		}
		if _, err := ReadNPZ(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadNPZ(%s): got %v, want %q", p, err, want)
		}
	}
}
