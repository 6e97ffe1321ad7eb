//go:build amd64 && !purego

#include "textflag.h"

// func widen32AVX2Asm(dst *float64, src *float32, n int, a float64)
// Four entries a pass: VCVTPS2PD (exact), then the product by a.
TEXT ·widen32AVX2Asm(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         src+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD a+24(FP), Y15
	XORQ         AX, AX

loop:
	VCVTPS2PD (SI)(AX*4), Y0
	VMULPD    Y0, Y15, Y0
	VMOVUPD   Y0, (DI)(AX*8)
	ADDQ      $4, AX
	CMPQ      AX, CX
	JLT       loop
	VZEROUPPER
	RET
