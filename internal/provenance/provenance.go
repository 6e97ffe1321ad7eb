// Package provenance names the bits a model was trained or evaluated on:
// where they came from (the data spec, the file read, the binarisation and
// its seed, which examples were kept) and a content hash of the bits
// themselves, so that two evaluations can tell whether they saw the same
// data.
package provenance

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
)

// Data describes one data split as it was used.
type Data struct {
	// Spec is the data spec the split was read from (mnist:test, npy:PATH, ...).
	Spec string `json:"spec"`
	// File is the file read, as an absolute path ("" for planted data).
	File string `json:"file,omitempty"`
	// Binarize is how grey levels became bits (stochastic, threshold);
	// "" for data that was 0/1 already.
	Binarize string `json:"binarize,omitempty"`
	// Threshold is the cut of a threshold binarisation.
	Threshold float64 `json:"threshold,omitempty"`
	// BinarizeSeed seeds a stochastic binarisation.
	BinarizeSeed uint64 `json:"binarize_seed,omitempty"`
	// Selection says which examples of the file were kept when not all
	// (e.g. "first 1000", "50000 after holding out 10000 for validation").
	Selection string `json:"selection,omitempty"`
	// N and D are the number of examples and of units per example.
	N int `json:"n"`
	D int `json:"d"`
	// SHA256 is the hash of the bits (see Hash).
	SHA256 string `json:"sha256"`
}

// Hash returns the hex SHA-256 of an n×d matrix of bits x (x[k] ∈ {0,1},
// row-major): of the 16 bytes n, d (little-endian uint64) followed by the
// rows packed 8 bits to a byte, most significant bit first, each row
// padded with zeros to whole bytes. Two splits have the same hash when
// they hold the same examples in the same order.
func Hash(n, d int, x []uint8) string {
	h := sha256.New()
	var head [16]byte
	binary.LittleEndian.PutUint64(head[:8], uint64(n))
	binary.LittleEndian.PutUint64(head[8:], uint64(d))
	h.Write(head[:])
	row := make([]byte, (d+7)/8)
	for i := range n {
		clear(row)
		for j, b := range x[i*d : (i+1)*d] {
			if b != 0 {
				row[j/8] |= 0x80 >> (j % 8)
			}
		}
		h.Write(row)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Short is the first 12 hex digits of the hash, enough to tell data sets
// apart by eye.
func (d Data) Short() string {
	if len(d.SHA256) > 12 {
		return d.SHA256[:12]
	}
	return d.SHA256
}

// How says how the bits were made from the spec, e.g. "stochastic
// binarisation, seed 13064104766502462585", "threshold 0.5", or "0/1 data".
func (d Data) How() string {
	switch d.Binarize {
	case "stochastic":
		return fmt.Sprintf("stochastic binarisation, seed %d", d.BinarizeSeed)
	case "threshold":
		return fmt.Sprintf("threshold %g", d.Threshold)
	}
	return "0/1 data"
}

// String describes the split in one line: spec, binarisation, selection,
// size and hash, e.g. "mnist:test, stochastic binarisation, seed 7,
// 10000 × 784, sha256 0fa7898d5092".
func (d Data) String() string {
	parts := []string{d.Spec, d.How()}
	if d.Selection != "" {
		parts = append(parts, d.Selection)
	}
	parts = append(parts, fmt.Sprintf("%d × %d", d.N, d.D), "sha256 "+d.Short())
	return strings.Join(parts, ", ")
}

// Same reports whether d and e hold the same bits.
func (d Data) Same(e Data) bool { return d.SHA256 == e.SHA256 && d.N == e.N && d.D == e.D }
