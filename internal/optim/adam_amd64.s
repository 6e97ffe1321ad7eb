//go:build amd64 && !purego

#include "textflag.h"

// func adam4AVX2(n int, theta, m, s, grad *float64, k *[9]float64)
// k: scale, β₁, 1−β₁, β₂, 1−β₂, c₁, c₂, lr, ε, broadcast into Y7…Y15;
// per four entries the operations of adamGo in its order:
//   gi = scale·g; m = β₁m + (1−β₁)gi; s = β₂s + ((1−β₂)gi)gi;
//   θ = θ − (lr·(m·c₁)) / (√(s·c₂) + ε).
TEXT ·adam4AVX2(SB), NOSPLIT, $0-48
	MOVQ n+0(FP), CX
	MOVQ theta+8(FP), DI
	MOVQ m+16(FP), SI
	MOVQ s+24(FP), R8
	MOVQ grad+32(FP), R9
	MOVQ k+40(FP), DX
	VBROADCASTSD 0(DX), Y7   // scale
	VBROADCASTSD 8(DX), Y8   // β₁
	VBROADCASTSD 16(DX), Y9  // 1−β₁
	VBROADCASTSD 24(DX), Y10 // β₂
	VBROADCASTSD 32(DX), Y11 // 1−β₂
	VBROADCASTSD 40(DX), Y12 // c₁
	VBROADCASTSD 48(DX), Y13 // c₂
	VBROADCASTSD 56(DX), Y14 // lr
	VBROADCASTSD 64(DX), Y15 // ε
	XORQ AX, AX

loop:
	VMOVUPD (R9)(AX*8), Y0
	VMULPD  Y7, Y0, Y0       // gi
	VMOVUPD (SI)(AX*8), Y1
	VMULPD  Y8, Y1, Y1       // β₁m
	VMULPD  Y9, Y0, Y2       // (1−β₁)gi
	VADDPD  Y2, Y1, Y1       // m
	VMOVUPD Y1, (SI)(AX*8)
	VMOVUPD (R8)(AX*8), Y3
	VMULPD  Y10, Y3, Y3      // β₂s
	VMULPD  Y11, Y0, Y4      // (1−β₂)gi
	VMULPD  Y0, Y4, Y4       // ((1−β₂)gi)gi
	VADDPD  Y4, Y3, Y3       // s
	VMOVUPD Y3, (R8)(AX*8)
	VMULPD  Y12, Y1, Y1      // m·c₁
	VMULPD  Y1, Y14, Y1      // lr·(m·c₁)
	VMULPD  Y13, Y3, Y3      // s·c₂
	VSQRTPD Y3, Y3
	VADDPD  Y15, Y3, Y3      // √(s·c₂) + ε
	VDIVPD  Y3, Y1, Y1       // lr·(m·c₁) / (√(s·c₂) + ε)
	VMOVUPD (DI)(AX*8), Y5
	VSUBPD  Y1, Y5, Y5       // θ − …
	VMOVUPD Y5, (DI)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, CX
	JLT     loop

	VZEROUPPER
	RET
