package kernel

import "math"

// GemmCols32 is GemmCols in float32: columns j0…j1−1 of C op α·A·B, every entry
// the fused chain of the package comment with each fused multiply–add
// rounded once to float32 (fma32), then α·s rounded to float32. The
// AVX2/FMA kernel holds a 4×16 tile of C in registers; the portable kernel
// gives the same bits. Disjoint column ranges may be computed concurrently.
// It does not allocate.
func GemmCols32(op GemmOp, alpha float32, m, j0, j1, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	var tile [64]float32
	cols(op, alpha, m, j0, j1, k, a, lda, b, ldb, c, ldc, tile[:], 16,
		func(a []float32, b []float32) { kern4x16(k, a, lda, b, ldb, &tile) },
		func(mr, nr int, a []float32, b []float32) { kernGeneric32(mr, nr, k, a, lda, b, ldb, &tile) })
}

// kernGeneric32 sets the mr×nr tile t (mr ≤ 4, nr ≤ 16; row stride 16) to
// the float32 fused chains, in portable Go.
func kernGeneric32(mr, nr, k int, a []float32, lda int, b []float32, ldb int, t *[64]float32) {
	*t = [64]float32{}
	for p := range k {
		bp := b[p*ldb : p*ldb+nr]
		for r := range mr {
			x := a[r*lda+p]
			tr := t[r*16 : r*16+nr]
			for q, y := range bp {
				tr[q] = fma32(x, y, tr[q])
			}
		}
	}
}

// fma32 is x·y + z rounded once to float32 (the VFMADD…PS instruction).
// The product is exact in float64 (24 + 24 bits), so s = x·y + z in float64
// is the exact sum rounded once, and e (Knuth's two-sum) what that rounding
// lost. Rounding s to float32 then gives the correctly rounded result
// unless s lies exactly halfway between two float32 neighbours while e ≠ 0:
// then the exact value lies on e's side of the halfway point.
func fma32(x, y, z float32) float32 {
	p, zz := float64(x)*float64(y), float64(z)
	s := p + zz
	bb := s - p
	e := (p - (s - bb)) + (zz - bb)
	r := float32(s)
	if e == 0 || float64(r) == s || math.IsInf(s, 0) || math.IsNaN(s) {
		return r
	}
	// The float32 neighbour of r on s's side.
	toward := float32(math.Inf(1))
	if s < float64(r) {
		toward = float32(math.Inf(-1))
	}
	n := math.Nextafter32(r, toward)
	if s-float64(r) != float64(n)-s {
		return r // not halfway: one rounding is the correct one
	}
	// Halfway between r and n: the exact value s + e is nearer the one on e's side.
	if (e > 0) == (float64(n) > s) {
		return n
	}
	return r
}
