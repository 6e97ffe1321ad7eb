//go:build amd64 && !purego

#include "textflag.h"

// func add4AVX2(dst, r0, r1, r2, r3 *float64, n int)
TEXT ·add4AVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ r0+8(FP), R8
	MOVQ r1+16(FP), R9
	MOVQ r2+24(FP), R10
	MOVQ r3+32(FP), R11
	MOVQ n+40(FP), CX
	XORQ AX, AX
	SHLQ $3, CX

loop:
	VMOVUPD (R8)(AX*1), Y0
	VADDPD  (R9)(AX*1), Y0, Y0
	VMOVUPD (R10)(AX*1), Y1
	VADDPD  (R11)(AX*1), Y1, Y1
	VADDPD  Y1, Y0, Y0
	VADDPD  (DI)(AX*1), Y0, Y0
	VMOVUPD Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop
	VZEROUPPER
	RET

// func sub4AVX2(dst, r0, r1, r2, r3 *float64, n int)
TEXT ·sub4AVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ r0+8(FP), R8
	MOVQ r1+16(FP), R9
	MOVQ r2+24(FP), R10
	MOVQ r3+32(FP), R11
	MOVQ n+40(FP), CX
	XORQ AX, AX
	SHLQ $3, CX

loop:
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
	JLT     loop
	VZEROUPPER
	RET

// func add4F32AVX2(dst, r0, r1, r2, r3 *float32, n int)
TEXT ·add4F32AVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ r0+8(FP), R8
	MOVQ r1+16(FP), R9
	MOVQ r2+24(FP), R10
	MOVQ r3+32(FP), R11
	MOVQ n+40(FP), CX
	XORQ AX, AX
	SHLQ $2, CX

loop:
	VMOVUPS (R8)(AX*1), Y0
	VADDPS  (R9)(AX*1), Y0, Y0
	VMOVUPS (R10)(AX*1), Y1
	VADDPS  (R11)(AX*1), Y1, Y1
	VADDPS  Y1, Y0, Y0
	VADDPS  (DI)(AX*1), Y0, Y0
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop
	VZEROUPPER
	RET

// func sub4F32AVX2(dst, r0, r1, r2, r3 *float32, n int)
TEXT ·sub4F32AVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ r0+8(FP), R8
	MOVQ r1+16(FP), R9
	MOVQ r2+24(FP), R10
	MOVQ r3+32(FP), R11
	MOVQ n+40(FP), CX
	XORQ AX, AX
	SHLQ $2, CX

loop:
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
	JLT     loop
	VZEROUPPER
	RET
