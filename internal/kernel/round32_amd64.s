//go:build amd64 && !purego

#include "textflag.h"

// func round32AVX2Asm(dst *float32, src *float64, n int)
// Eight entries a pass: two VCVTPD2PS of four (the MXCSR's rounding, round
// to nearest even as Go's conversion), one 256-bit store.
TEXT ·round32AVX2Asm(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

loop:
	VCVTPD2PSY  (SI)(AX*8), X0
	VCVTPD2PSY  32(SI)(AX*8), X1
	VINSERTF128 $1, X1, Y0, Y0
	VMOVUPS     Y0, (DI)(AX*4)
	ADDQ        $8, AX
	CMPQ        AX, CX
	JLT         loop
	VZEROUPPER
	RET
