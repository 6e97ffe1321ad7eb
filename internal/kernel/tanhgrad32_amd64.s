//go:build amd64 && !purego

#include "textflag.h"

DATA onef32<>+0(SB)/4, $0x3f800000
GLOBL onef32<>(SB), RODATA|NOPTR, $4

// func tanhGrad32AVX2Asm(d, u *float32, n int)
// Eight entries a pass: u·u, 1 − that, d times that, each rounded.
TEXT ·tanhGrad32AVX2Asm(SB), NOSPLIT, $0-24
	MOVQ         d+0(FP), DI
	MOVQ         u+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS onef32<>(SB), Y15
	XORQ         AX, AX

loop:
	VMOVUPS (SI)(AX*4), Y0
	VMULPS  Y0, Y0, Y0
	VSUBPS  Y0, Y15, Y0
	VMULPS  (DI)(AX*4), Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, CX
	JLT     loop
	VZEROUPPER
	RET
