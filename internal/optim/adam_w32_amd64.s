//go:build amd64 && !purego

#include "textflag.h"

DATA absmaskw32<>+0(SB)/8, $0x7fffffffffffffff
GLOBL absmaskw32<>(SB), RODATA|NOPTR, $8

// adamW32AVX2: adamW32Go's float32 operations, eight lanes at a time; θ
// in two float64 halves of four.
TEXT ·adamW32AVX2(SB), NOSPLIT, $0-64
	MOVQ n+0(FP), CX
	MOVQ theta+8(FP), DI
	MOVQ m+16(FP), SI
	MOVQ s+24(FP), R8
	MOVQ grad+32(FP), R9
	MOVQ w+40(FP), R10
	MOVQ k+48(FP), DX
	VBROADCASTSS 0(DX), Y7   // scale
	VBROADCASTSS 4(DX), Y8   // β₁
	VBROADCASTSS 8(DX), Y9   // 1−β₁
	VBROADCASTSS 12(DX), Y10 // β₂
	VBROADCASTSS 16(DX), Y11 // 1−β₂
	VBROADCASTSS 20(DX), Y12 // c₁
	VBROADCASTSS 24(DX), Y13 // c₂
	VBROADCASTSS 28(DX), Y14 // lr
	VBROADCASTSS 32(DX), Y15 // ε
	VXORPD Y6, Y6, Y6        // largest |θ|
	VXORPD Y2, Y2, Y2        // NaN lanes
	XORQ AX, AX

loopw:
	VMULPS  (R9)(AX*4), Y7, Y0 // gi
	VMULPS  (SI)(AX*4), Y8, Y1 // β₁m
	VMULPS  Y9, Y0, Y4         // (1−β₁)gi
	VADDPS  Y4, Y1, Y1         // m
	VMOVUPS Y1, (SI)(AX*4)
	VMULPS  (R8)(AX*4), Y10, Y3 // β₂s
	VMULPS  Y11, Y0, Y4        // (1−β₂)gi
	VMULPS  Y0, Y4, Y4         // ((1−β₂)gi)gi
	VADDPS  Y4, Y3, Y3         // s
	VMOVUPS Y3, (R8)(AX*4)
	VMULPS  Y12, Y1, Y1        // m·c₁
	VMULPS  Y1, Y14, Y1        // lr·(m·c₁)
	VMULPS  Y13, Y3, Y3        // s·c₂
	VSQRTPS Y3, Y3
	VADDPS  Y15, Y3, Y3        // √(s·c₂) + ε
	VDIVPS  Y3, Y1, Y1         // the step
	VBROADCASTSD absmaskw32<>(SB), Y5
	// w − step in float32, then θ = float64(w)
	VMOVUPS (R10)(AX*4), Y0
	VSUBPS  Y1, Y0, Y0
	VMOVUPS Y0, (R10)(AX*4)
	VCVTPS2PD X0, Y3
	VEXTRACTF128 $1, Y0, X0
	VCVTPS2PD X0, Y4
	VMOVUPD Y3, (DI)(AX*8)
	VMOVUPD Y4, 32(DI)(AX*8)
	VANDPD  Y5, Y3, Y3         // |θ|
	VANDPD  Y5, Y4, Y4
	VCMPPD  $3, Y3, Y3, Y0     // unordered: NaN
	VORPD   Y0, Y2, Y2
	VCMPPD  $3, Y4, Y4, Y0
	VORPD   Y0, Y2, Y2
	VMAXPD  Y6, Y3, Y6         // max(|θ|, running); NaN → running
	VMAXPD  Y6, Y4, Y6
	ADDQ    $8, AX
	CMPQ    AX, CX
	JLT     loopw

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
