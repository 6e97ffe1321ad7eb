package gemm

import "math"

// Cols32 is Cols in float32: columns j0…j1−1 of C op α·A·B, every entry
// the fused chain of the package comment with each fused multiply–add
// rounded once to float32 (fma32), then α·s rounded to float32. The
// AVX2/FMA kernel holds a 4×16 tile of C in registers; the portable kernel
// gives the same bits. Disjoint column ranges may be computed concurrently.
// It does not allocate.
func Cols32(op Op, alpha float32, m, j0, j1, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int) {
	if m == 0 || j1 <= j0 {
		return
	}
	_ = a[(m-1)*lda+k-1]
	_ = b[(k-1)*ldb+j1-1]
	_ = c[(m-1)*ldc+j1-1]
	var tile [64]float32
	j := j0
	for ; j+16 <= j1; j += 16 {
		i := 0
		for ; i+4 <= m; i += 4 {
			kern4x16(k, a[i*lda:], lda, b[j:], ldb, &tile)
			store32(op, alpha, tile[:], 16, 4, 16, c[i*ldc+j:], ldc)
		}
		if i < m {
			kernGeneric32(m-i, 16, k, a[i*lda:], lda, b[j:], ldb, &tile)
			store32(op, alpha, tile[:], 16, m-i, 16, c[i*ldc+j:], ldc)
		}
	}
	if j < j1 {
		nr := j1 - j
		for i := 0; i < m; i += 4 {
			mr := min(4, m-i)
			kernGeneric32(mr, nr, k, a[i*lda:], lda, b[j:], ldb, &tile)
			store32(op, alpha, tile[:], 16, mr, nr, c[i*ldc+j:], ldc)
		}
	}
}

// store32 writes the mr×nr tile t (row stride ts) into c.
func store32(op Op, alpha float32, t []float32, ts, mr, nr int, c []float32, ldc int) {
	for r := range mr {
		tr, cr := t[r*ts:r*ts+nr], c[r*ldc:r*ldc+nr]
		if op == Set {
			for q, s := range tr {
				cr[q] = alpha * s
			}
		} else {
			for q, s := range tr {
				cr[q] += float32(alpha * s)
			}
		}
	}
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
