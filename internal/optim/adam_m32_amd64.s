//go:build amd64 && !purego

#include "textflag.h"

DATA absmask<>+0(SB)/8, $0x7fffffffffffffff
GLOBL absmask<>(SB), RODATA|NOPTR, $8

// adam32AVX2's operations with M and S loaded from float32 (widened) and
// stored rounded to float32; this step's θ update uses them unrounded.
TEXT ·adamM32AVX2(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), CX
	MOVQ theta+8(FP), DI
	MOVQ m+16(FP), SI
	MOVQ s+24(FP), R8
	MOVQ grad+32(FP), R9
	MOVQ w+40(FP), R10
	MOVQ k+48(FP), DX
	VBROADCASTSD 0(DX), Y7   // scale
	VBROADCASTSD 8(DX), Y8   // β₁
	VBROADCASTSD 16(DX), Y9  // 1−β₁
	VBROADCASTSD 24(DX), Y10 // β₂
	VBROADCASTSD 32(DX), Y11 // 1−β₂
	VBROADCASTSD 40(DX), Y12 // c₁
	VBROADCASTSD 48(DX), Y13 // c₂
	VBROADCASTSD 56(DX), Y14 // lr
	VBROADCASTSD 64(DX), Y15 // ε
	VXORPD Y6, Y6, Y6        // largest |θ|
	VXORPD Y2, Y2, Y2        // NaN lanes
	XORQ AX, AX

loopm:
	VCVTPS2PD (R9)(AX*4), Y0
	VMULPD  Y7, Y0, Y0       // gi
	VCVTPS2PD (SI)(AX*4), Y1
	VMULPD  Y8, Y1, Y1       // β₁m
	VMULPD  Y9, Y0, Y4       // (1−β₁)gi
	VADDPD  Y4, Y1, Y1       // m
	VCVTPD2PSY Y1, X4
	VMOVUPS X4, (SI)(AX*4)
	VCVTPS2PD (R8)(AX*4), Y3
	VMULPD  Y10, Y3, Y3      // β₂s
	VMULPD  Y11, Y0, Y4      // (1−β₂)gi
	VMULPD  Y0, Y4, Y4       // ((1−β₂)gi)gi
	VADDPD  Y4, Y3, Y3       // s
	VCVTPD2PSY Y3, X4
	VMOVUPS X4, (R8)(AX*4)
	VMULPD  Y12, Y1, Y1      // m·c₁
	VMULPD  Y1, Y14, Y1      // lr·(m·c₁)
	VMULPD  Y13, Y3, Y3      // s·c₂
	VSQRTPD Y3, Y3
	VADDPD  Y15, Y3, Y3      // √(s·c₂) + ε
	VDIVPD  Y3, Y1, Y1       // lr·(m·c₁) / (√(s·c₂) + ε)
	VMOVUPD (DI)(AX*8), Y5
	VSUBPD  Y1, Y5, Y5       // θ − …
	VMOVUPD Y5, (DI)(AX*8)
	VCVTPD2PSY Y5, X1
	VMOVUPS X1, (R10)(AX*4)
	VBROADCASTSD absmask<>(SB), Y4
	VANDPD  Y4, Y5, Y5       // |θ|
	VCMPPD  $3, Y5, Y5, Y4   // unordered: NaN
	VORPD   Y4, Y2, Y2
	VMAXPD  Y6, Y5, Y6       // max(|θ|, running); NaN → running
	ADDQ    $4, AX
	CMPQ    AX, CX
	JLT     loopm

	// Reduce the four lanes.
	VEXTRACTF128 $1, Y6, X0
	VMAXPD  X0, X6, X6
	VPERMILPD $1, X6, X0
	VMAXPD  X0, X6, X6
	VEXTRACTF128 $1, Y2, X0
	VORPD   X0, X2, X2
	VPERMILPD $1, X2, X0
	VORPD   X0, X2, X2
	MOVQ out+56(FP), DX
	VMOVSD  X6, 0(DX)
	VMOVSD  X2, 8(DX)
	VZEROUPPER
	RET
