package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naiveSeqsum is AddSelected entry by entry.
func naiveSeqsum(dst []float64, ld int, w []float64, ldw int, n int, idx []int32, span []int32) {
	for m := range len(span) / 2 {
		for i := range n {
			for _, j := range idx[span[2*m]:span[2*m+1]] {
				if j < 0 {
					dst[m*ld+i] -= w[int(^j)*ldw+i]
					continue
				}
				dst[m*ld+i] += w[int(j)*ldw+i]
			}
		}
	}
}

type problem struct {
	dst, w    []float64
	ld, ldw   int
	n         int
	idx, span []int32
}

func newProblem(rng *rand.Rand, M, rows, n int) problem {
	p := problem{ld: n + rng.IntN(3), ldw: n + rng.IntN(3), n: n}
	p.dst = make([]float64, M*p.ld)
	p.w = make([]float64, (rows-1)*p.ldw+n) // the last row without its padding
	for i := range p.dst {
		p.dst[i] = rng.NormFloat64()
	}
	for i := range p.w {
		p.w[i] = rng.NormFloat64() * math.Exp(6*rng.NormFloat64())
	}
	for m := range M {
		p.span = append(p.span, int32(len(p.idx)))
		for range rng.IntN(2 * rows) {
			j := int32(rng.IntN(rows))
			if rng.IntN(3) == 0 {
				j = ^j // subtract
			}
			p.idx = append(p.idx, j)
		}
		p.span = append(p.span, int32(len(p.idx)))
		if m == 1 { // a row with an empty selection
			p.span[len(p.span)-1] = p.span[len(p.span)-2]
		}
	}
	return p
}

// TestAddSelected: the sums equal the entry-by-entry loop bit for bit (the
// same additions in the same order), with the assembly and without, for
// row lengths with full tiles, quads and a tail, strides longer than the
// rows, repeated and empty selections.
func TestAddSelected(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	has := seqsumAVX2
	defer func() { seqsumAVX2 = has }()
	for _, avx := range []bool{false, true} {
		if avx && !has {
			t.Log("no AVX2 kernel on this build or CPU")
			continue
		}
		seqsumAVX2 = avx
		for _, n := range []int{1, 3, 4, 7, 15, 16, 17, 20, 35, 200, 784} {
			for _, M := range []int{1, 2, 5, 13} {
				p := newProblem(rng, M, 1+rng.IntN(9), n)
				want := append([]float64(nil), p.dst...)
				naiveSeqsum(want, p.ld, p.w, p.ldw, n, p.idx, p.span)
				AddSelected(p.dst, p.ld, p.w, p.ldw, n, p.idx, p.span)
				for i := range want {
					if math.Float64bits(p.dst[i]) != math.Float64bits(want[i]) {
						t.Fatalf("avx %v n %d M %d: dst[%d] = %v, entry by entry %v", avx, n, M, i, p.dst[i], want[i])
					}
				}
			}
		}
	}
}

// TestAddSelectedRange: a selected row beyond w panics before any work.
func TestAddSelectedRange(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("row out of range did not panic")
		}
	}()
	dst := make([]float64, 8)
	AddSelected(dst, 8, make([]float64, 16), 8, 8, []int32{2}, []int32{0, 1})
}
