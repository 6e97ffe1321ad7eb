package data

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// indexSet returns n examples of 16 units, example k holding k in binary, so
// every row says which example it is.
func indexSet(n int) *Set {
	s := &Set{Name: "idx", N: n, D: 16, X: make([]uint8, n*16)}
	for k := range n {
		for i := range 16 {
			s.X[k*16+i] = uint8(k >> i & 1)
		}
	}
	return s
}

func rowIndex(r []uint8) int {
	k := 0
	for i, x := range r {
		k |= int(x) << i
	}
	return k
}

func TestSetRows(t *testing.T) {
	s := indexSet(10)
	if rowIndex(s.Row(6)) != 6 || len(s.Row(6)) != 16 {
		t.Fatalf("Row(6) = %v", s.Row(6))
	}
	f := make([]float64, 16)
	s.RowFloat(f, 5) // 5 = 1 + 4
	for i, x := range f {
		if want := float64(int(5) >> i & 1); x != want {
			t.Fatalf("RowFloat(5)[%d] = %v, want %v", i, x, want)
		}
	}
	sub := s.Subset([]int{9, 2, 2})
	if sub.N != 3 || rowIndex(sub.Row(0)) != 9 || rowIndex(sub.Row(1)) != 2 || rowIndex(sub.Row(2)) != 2 {
		t.Fatalf("Subset: %+v", sub)
	}
	sub.X[0] ^= 1 // Subset copies
	if s.X[9*16] != 1 {
		t.Fatal("Subset shares memory with its source")
	}
	for _, c := range []struct{ n, want int }{{3, 3}, {0, 10}, {-1, 10}, {10, 10}, {99, 10}} {
		l := s.Limit(c.n)
		if l.N != c.want || len(l.X) != c.want*16 || rowIndex(l.Row(l.N-1)) != c.want-1 {
			t.Errorf("Limit(%d): N = %d", c.n, l.N)
		}
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := &Set{Name: "b", N: 1, D: 2, X: []uint8{0, 2}}
	if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "b: example 0, unit 1 is 2") {
		t.Errorf("Validate: %v", err)
	}
}

func TestSplit(t *testing.T) {
	s := indexSet(100)
	train, valid, err := Split(s, 30, rand.New(rand.NewPCG(5, 0)))
	if err != nil {
		t.Fatal(err)
	}
	if train.N != 70 || valid.N != 30 || train.Name != "idx#train" || valid.Name != "idx#valid" {
		t.Fatalf("sizes %d/%d names %q %q", train.N, valid.N, train.Name, valid.Name)
	}
	// A partition, each part in the original order.
	seen := make([]int, 100)
	for _, part := range []*Set{train, valid} {
		last := -1
		for n := range part.N {
			k := rowIndex(part.Row(n))
			seen[k]++
			if k <= last {
				t.Fatalf("%s not in original order at %d", part.Name, n)
			}
			last = k
		}
	}
	for k, c := range seen {
		if c != 1 {
			t.Fatalf("example %d appears %d times", k, c)
		}
	}
	// Deterministic in the generator; another seed gives another split.
	train2, valid2, _ := Split(s, 30, rand.New(rand.NewPCG(5, 0)))
	if !bytes.Equal(train.X, train2.X) || !bytes.Equal(valid.X, valid2.X) {
		t.Error("same seed, different split")
	}
	_, valid3, _ := Split(s, 30, rand.New(rand.NewPCG(6, 0)))
	if bytes.Equal(valid.X, valid3.X) {
		t.Error("different seeds, same split")
	}
	// The held-out examples are not just the first or last ones.
	if rowIndex(valid.Row(0)) == 0 && rowIndex(valid.Row(29)) == 29 {
		t.Error("validation set is the first 30 examples")
	}
	if _, v, err := Split(s, 0, rand.New(rand.NewPCG(1, 0))); err != nil || v.N != 0 {
		t.Errorf("nValid = 0: %v %v", v, err)
	}
	for _, n := range []int{-1, 100, 101} {
		if _, _, err := Split(s, n, rand.New(rand.NewPCG(1, 0))); err == nil || !strings.Contains(err.Error(), "idx: cannot hold out") {
			t.Errorf("nValid = %d: %v", n, err)
		}
	}
	if _, _, err := Split(s, 3, nil); err == nil {
		t.Error("nil generator: no error")
	}
}

func TestLogOdds(t *testing.T) {
	// Columns: always 0, always 1, one in four.
	s := &Set{Name: "x", N: 4, D: 3, X: []uint8{0, 1, 1, 0, 1, 0, 0, 1, 0, 0, 1, 0}}
	for _, alpha := range []float64{0.5, 1, 2} {
		got := LogOdds(s, alpha)
		want := []float64{
			math.Log(alpha / (4 + alpha)),
			math.Log((4 + alpha) / alpha),
			math.Log((1 + alpha) / (3 + alpha)),
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12 || math.IsInf(got[i], 0) {
				t.Errorf("α=%v unit %d: got %v, want %v", alpha, i, got[i], want[i])
			}
		}
	}
}
