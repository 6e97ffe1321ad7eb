package kernel

// BinMul32 multiplies a binary matrix by a float32 one without multiplying:
//
//	C_mj = Σ_{k<K} A_mk · B_kj   (A_mk ∈ {0, 1}),
//
// by the "four Russians" method. The K rows of B are taken four at a time
// (chunk c holds rows 4c…4c+3); for each chunk and a block of eight
// columns, a table holds the 16 sums T_c[p] = Σ_{i: bit i of p} B_{4c+i}
// of its subsets of rows, and a row of C is the sum over the chunks of one
// table entry each, the one its four bits A_{m,4c…4c+3} select (its code).
// That is K/4 additions of eight lanes per row and block where a GEMM
// takes K fused multiply–adds: the tables (16 entries per chunk, built
// with 11 additions) are shared by every row, and a block's tables stay in
// the first-level cache while the rows run over them.
//
// The rows of A come as codes (BinCodes32): each row's chunk codes,
// stored as byte offsets of the table entry, eight rows side by side so
// that the kernel sums eight rows at once. Every entry of C is the
// float32 sum, in the order of the chunks, of the table entries, each
// table entry a fixed sum of B's entries (T_3 = B_0 + B_1, T_7 = T_3 +
// B_2, T_{8+p} = T_p + B_3); the assembly and the portable kernels give
// the same bits. GemmAdd continues the sums from C's entries (C_mj + T
// + T' + …, not C_mj + (T + T' + …)), and so does a K longer than one
// piece of tables. The float32 numbers differ from a GEMM's in their last
// bits (another order of the same additions). Disjoint column ranges may
// be computed concurrently; it does not allocate.

// binPiece is the number of chunks whose tables are built at once: 50
// chunks' tables of one 8-column block take 25.6 KB, which stays in a
// 32 KB first-level cache; a longer K is summed piece by piece into C.
const binPiece = 50

// BinScratch32 is the length of the scratch BinMul32 needs (per
// concurrent caller).
const BinScratch32 = binPiece*16*8 + binPiece*4*8 + 64

// BinCodes32Len is the length of the codes of an m×k binary matrix: its
// rows in groups of eight (the last padded with zero codes), each group
// holding the ⌈k/4⌉ chunks' codes of its eight rows side by side.
func BinCodes32Len(m, k int) int {
	return (m + 7) / 8 * 8 * binChunks(k)
}

func binChunks(k int) int { return (k + 3) / 4 }

// BinCodes32 writes the codes of row m of a binary matrix A with K
// columns into codes (of BinCodes32Len(M, K) entries for the whole
// matrix): A_mk is a[k], nonzero meaning 1. Distinct rows may be written
// concurrently. The padding rows of the last group are summed but never
// written: their codes need only be codes (zero, as in a new slice, or
// those of an earlier matrix).
func BinCodes32(codes []int32, m, K int, a []float32) {
	C := binChunks(K)
	if C == 0 {
		return
	}
	g := codes[m/8*8*C+m%8:]
	_ = g[(C-1)*8]
	a = a[:K]
	for c := binCodesRow(g, a) / 4; c < C; c++ {
		var code int32
		for i, v := range a[4*c : min(4*c+4, K)] {
			code |= bit(v) << i
		}
		g[c*8] = code * 32 // the entry's byte offset in the chunk's table
	}
}

// BinCodesT32 writes the codes of rows m0…m1−1 (m0 a multiple of 8, at
// most eight rows) of the binary matrix A given transposed: A_mk is
// a[k·lda + m], k < K. Distinct groups of eight rows may be written
// concurrently.
func BinCodesT32(codes []int32, m0, m1, K int, a []float32, lda int) {
	C := binChunks(K)
	if C == 0 || m1 <= m0 {
		return
	}
	n := m1 - m0
	g := codes[m0/8*8*C : (m0/8+1)*8*C]
	_ = a[(K-1)*lda+m1-1]
	c0 := 0
	if n == 8 {
		c0 = binCodesT(g, a[m0:], lda, K)
	}
	for c := c0; c < C; c++ {
		var code [8]int32
		for i := 0; i < 4 && 4*c+i < K; i++ {
			row := a[(4*c+i)*lda+m0 : (4*c+i)*lda+m1]
			for u, v := range row[:min(n, 8)] {
				code[u] |= bit(v) << i
			}
		}
		for u := range n {
			g[8*c+u] = code[u] * 32
		}
	}
}

// bit is 1 for v ≠ 0, else 0, without a branch.
func bit(v float32) int32 {
	var b int32
	if v != 0 {
		b = 1
	}
	return b
}

// BinMul32 sets (op GemmSet) or adds to (GemmAdd) the columns j0…j1−1 of
// the rows m < M of C (row stride ldc) the products A·B, A the M×K binary
// matrix of codes (BinCodes32), B of K rows (row stride ldb). scratch has
// BinScratch32 entries.
func BinMul32(op GemmOp, M, j0, j1, K int, codes []int32, b []float32, ldb int, c []float32, ldc int, scratch []float32) {
	if M == 0 || j1 <= j0 {
		return
	}
	C := binChunks(K)
	if K == 0 {
		if op == GemmSet {
			for m := 0; m < M; m++ {
				clear(c[m*ldc+j0 : m*ldc+j1])
			}
		}
		return
	}
	_ = codes[BinCodes32Len(M, K)-1]
	_ = b[(K-1)*ldb+j1-1]
	_ = c[(M-1)*ldc+j1-1]
	scratch = scratch[:BinScratch32]
	table := scratch[:binPiece*16*8]
	pad := scratch[binPiece*16*8 : binPiece*16*8+binPiece*4*8]
	out := scratch[binPiece*16*8+binPiece*4*8:]
	groups := (M + 7) / 8
	for j := j0; j < j1; j += 8 {
		w := min(8, j1-j)
		for c0 := 0; c0 < C; c0 += binPiece {
			nc := min(binPiece, C-c0)
			// The piece's tables, from B's rows directly when the block
			// is whole and the piece's chunks have their four rows, else
			// from a copy padded with zeros.
			if w == 8 && 4*(c0+nc) <= K {
				binTable(table, b[4*c0*ldb+j:], ldb, nc)
			} else {
				clear(pad)
				for k := 4 * c0; k < min(K, 4*(c0+nc)); k++ {
					copy(pad[(k-4*c0)*8:(k-4*c0)*8+w], b[k*ldb+j:k*ldb+j+w])
				}
				binTable(table, pad, 8, nc)
			}
			add := op == GemmAdd || c0 > 0
			for g := 0; g < groups; g++ {
				cg := codes[(g*C+c0)*8:]
				rows := min(8, M-8*g)
				if w == 8 && rows == 8 {
					binSum(table, cg, nc, c[8*g*ldc+j:], ldc, add)
					continue
				}
				// A partial group or block: through out (8×8).
				clear(out)
				for r := 0; r < rows && add; r++ {
					copy(out[8*r:8*r+w], c[(8*g+r)*ldc+j:])
				}
				binSum(table, cg, nc, out, 8, add)
				for r := 0; r < rows; r++ {
					copy(c[(8*g+r)*ldc+j:(8*g+r)*ldc+j+w], out[8*r:8*r+w])
				}
			}
		}
	}
}

// binTableGo builds the tables of nc chunks (16 entries of 8 lanes each)
// from the 8-lane rows of b (row stride ldb), each entry as the assembly
// builds it.
func binTableGo(t []float32, b []float32, ldb, nc int) {
	for c := 0; c < nc; c++ {
		tc := t[c*128 : c*128+128]
		r := b[4*c*ldb:]
		for i := 0; i < 8; i++ {
			b0, b1, b2, b3 := r[i], r[ldb+i], r[2*ldb+i], r[3*ldb+i]
			t3, t5, t6 := b0+b1, b0+b2, b1+b2
			t7 := t3 + b2
			e := [16]float32{0, b0, b1, t3, b2, t5, t6, t7,
				b3, b0 + b3, b1 + b3, t3 + b3, b2 + b3, t5 + b3, t6 + b3, t7 + b3}
			for p, v := range e {
				tc[8*p+i] = v
			}
		}
	}
}

// binSumGo sets the eight 8-lane rows of c (row stride ldc) to the sums
// over nc chunks of the table entries at the byte offsets codes[8c+r],
// added in the order of the chunks to zero or (add) to c's rows.
func binSumGo(t []float32, codes []int32, nc int, c []float32, ldc int, add bool) {
	for r := 0; r < 8; r++ {
		var acc [8]float32
		dst := c[r*ldc : r*ldc+8]
		if add {
			copy(acc[:], dst)
		}
		for ch := 0; ch < nc; ch++ {
			e := t[ch*128+int(codes[8*ch+r])/4:]
			for i := range acc {
				acc[i] += e[i]
			}
		}
		copy(dst, acc[:])
	}
}
