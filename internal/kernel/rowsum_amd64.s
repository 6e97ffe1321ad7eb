//go:build amd64 && !purego

#include "textflag.h"

// The kernels apply rows idx[0:m] of w (row stride s bytes) to dst[0:n]
// (n bytes, a positive multiple of the vector width): four rows per pass,
// dst_j ± ((r0_j + r1_j) + (r2_j + r3_j)), then the m mod 4 remaining rows
// one at a time, dst_j ± r_j. Every entry sees the operations of the Go
// loop in the same order, so the results are the same bits.
//
// Registers: DI dst, SI w, BX idx, R12 rows left, R13 s, CX n, AX offset
// in the row, R8…R11 the rows of a pass.

// ROWPTR loads the row address of idx[off] into reg.
#define ROWPTR(off, reg) \
	MOVLQSX off(BX), reg \
	IMULQ   R13, reg     \
	ADDQ    SI, reg

#define LOADARGS \
	MOVQ dst+0(FP), DI \
	MOVQ w+8(FP), SI   \
	MOVQ idx+16(FP), BX \
	MOVQ m+24(FP), R12 \
	MOVQ s+32(FP), R13 \
	MOVQ n+40(FP), CX

// func addRowsAVX2(dst, w *float64, idx *int32, m, s, n int)
TEXT ·addRowsAVX2(SB), NOSPLIT, $0-48
	LOADARGS

pass:
	CMPQ R12, $4
	JLT  single
	ROWPTR(0, R8)
	ROWPTR(4, R9)
	ROWPTR(8, R10)
	ROWPTR(12, R11)
	XORQ AX, AX

loop4:
	VMOVUPD (R8)(AX*1), Y0
	VADDPD  (R9)(AX*1), Y0, Y0
	VMOVUPD (R10)(AX*1), Y1
	VADDPD  (R11)(AX*1), Y1, Y1
	VADDPD  Y1, Y0, Y0
	VADDPD  (DI)(AX*1), Y0, Y0
	VMOVUPD Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop4
	ADDQ    $16, BX
	SUBQ    $4, R12
	JMP     pass

single:
	TESTQ R12, R12
	JEQ   done
	ROWPTR(0, R8)
	XORQ  AX, AX

loop1:
	VMOVUPD (DI)(AX*1), Y0
	VADDPD  (R8)(AX*1), Y0, Y0
	VMOVUPD Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop1
	ADDQ    $4, BX
	DECQ    R12
	JMP     single

done:
	VZEROUPPER
	RET

// func subRowsAVX2(dst, w *float64, idx *int32, m, s, n int)
TEXT ·subRowsAVX2(SB), NOSPLIT, $0-48
	LOADARGS

pass:
	CMPQ R12, $4
	JLT  single
	ROWPTR(0, R8)
	ROWPTR(4, R9)
	ROWPTR(8, R10)
	ROWPTR(12, R11)
	XORQ AX, AX

loop4:
	VMOVUPD (R8)(AX*1), Y0
	VADDPD  (R9)(AX*1), Y0, Y0
	VMOVUPD (R10)(AX*1), Y1
	VADDPD  (R11)(AX*1), Y1, Y1
	VADDPD  Y1, Y0, Y0
	VMOVUPD (DI)(AX*1), Y2
	VSUBPD  Y0, Y2, Y2
	VMOVUPD Y2, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop4
	ADDQ    $16, BX
	SUBQ    $4, R12
	JMP     pass

single:
	TESTQ R12, R12
	JEQ   done
	ROWPTR(0, R8)
	XORQ  AX, AX

loop1:
	VMOVUPD (DI)(AX*1), Y0
	VSUBPD  (R8)(AX*1), Y0, Y0
	VMOVUPD Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop1
	ADDQ    $4, BX
	DECQ    R12
	JMP     single

done:
	VZEROUPPER
	RET

// func addRows32AVX2(dst, w *float32, idx *int32, m, s, n int)
TEXT ·addRows32AVX2(SB), NOSPLIT, $0-48
	LOADARGS

pass:
	CMPQ R12, $4
	JLT  single
	ROWPTR(0, R8)
	ROWPTR(4, R9)
	ROWPTR(8, R10)
	ROWPTR(12, R11)
	XORQ AX, AX

loop4:
	VMOVUPS (R8)(AX*1), Y0
	VADDPS  (R9)(AX*1), Y0, Y0
	VMOVUPS (R10)(AX*1), Y1
	VADDPS  (R11)(AX*1), Y1, Y1
	VADDPS  Y1, Y0, Y0
	VADDPS  (DI)(AX*1), Y0, Y0
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop4
	ADDQ    $16, BX
	SUBQ    $4, R12
	JMP     pass

single:
	TESTQ R12, R12
	JEQ   done
	ROWPTR(0, R8)
	XORQ  AX, AX

loop1:
	VMOVUPS (DI)(AX*1), Y0
	VADDPS  (R8)(AX*1), Y0, Y0
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop1
	ADDQ    $4, BX
	DECQ    R12
	JMP     single

done:
	VZEROUPPER
	RET

// func subRows32AVX2(dst, w *float32, idx *int32, m, s, n int)
TEXT ·subRows32AVX2(SB), NOSPLIT, $0-48
	LOADARGS

pass:
	CMPQ R12, $4
	JLT  single
	ROWPTR(0, R8)
	ROWPTR(4, R9)
	ROWPTR(8, R10)
	ROWPTR(12, R11)
	XORQ AX, AX

loop4:
	VMOVUPS (R8)(AX*1), Y0
	VADDPS  (R9)(AX*1), Y0, Y0
	VMOVUPS (R10)(AX*1), Y1
	VADDPS  (R11)(AX*1), Y1, Y1
	VADDPS  Y1, Y0, Y0
	VMOVUPS (DI)(AX*1), Y2
	VSUBPS  Y0, Y2, Y2
	VMOVUPS Y2, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop4
	ADDQ    $16, BX
	SUBQ    $4, R12
	JMP     pass

single:
	TESTQ R12, R12
	JEQ   done
	ROWPTR(0, R8)
	XORQ  AX, AX

loop1:
	VMOVUPS (DI)(AX*1), Y0
	VSUBPS  (R8)(AX*1), Y0, Y0
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop1
	ADDQ    $4, BX
	DECQ    R12
	JMP     single

done:
	VZEROUPPER
	RET
