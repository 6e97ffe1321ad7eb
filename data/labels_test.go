package data

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLoadKeepsLabels: mnist:SPLIT reads the labels file beside the
// images (raw or .gz) into Set.Labels, and Subset, Limit and Split keep
// each example's label with it; without a labels file Labels is nil; a
// labels file of the wrong length is an error naming it.
func TestLoadKeepsLabels(t *testing.T) {
	dir := t.TempDir()
	imgs := []byte{0, 255, 255, 0, 255, 255, 0, 0, 0, 0, 255, 255, 255, 0, 0, 255, 0, 255, 0, 255} // 5 images of 2×2
	labels := []byte{3, 1, 4, 1, 5}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("train-images-idx3-ubyte", makeIDX([]int{5, 2, 2}, imgs))
	write("train-labels-idx1-ubyte.gz", gz(t, append([]byte{0, 0, 0x08, 1, 0, 0, 0, 5}, labels...)))
	write("t10k-images-idx3-ubyte", makeIDX([]int{5, 2, 2}, imgs))
	opt := Options{DataDir: dir, Binarize: Binarization{Method: Threshold, Threshold: 0.5}}
	s, err := Load("mnist:train", opt)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Labels, labels) {
		t.Fatalf("labels %v, want %v", s.Labels, labels)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	sub := s.Subset([]int{4, 0, 2})
	if !slices.Equal(sub.Labels, []uint8{5, 3, 4}) || !slices.Equal(sub.Row(0), s.Row(4)) {
		t.Errorf("Subset labels %v", sub.Labels)
	}
	if l := s.Limit(2); !slices.Equal(l.Labels, []uint8{3, 1}) {
		t.Errorf("Limit labels %v", l.Labels)
	}
	test, err := Load("mnist:test", opt)
	if err != nil {
		t.Fatal(err)
	}
	if test.Labels != nil {
		t.Errorf("no labels file, yet labels %v", test.Labels)
	}
	write("t10k-labels-idx1-ubyte", append([]byte{0, 0, 0x08, 1, 0, 0, 0, 4}, labels[:4]...))
	if _, err := Load("mnist:test", opt); err == nil || !strings.Contains(err.Error(), "t10k-labels-idx1-ubyte: 4 labels for the 5 images") {
		t.Errorf("short labels file: %v", err)
	}
}
