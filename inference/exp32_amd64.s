//go:build amd64 && !purego

#include "textflag.h"

// func expNegAbs32AVX2(dst, x *float32, n int, beta float32, c *[11][8]float32)
// The loop of expNegAbs32 (exp32.go), eight lanes at a time. Constants at
// c: 0 sign bit, 32 exp32Min, 64 exp32C, 96 exp32Magic, 128 exp32Hi,
// 160 exp32Lo, 192 ½, 224 1/6, 256 1/24, 288 1, 320 table 2^{j/8}.
// Go's operand order: VOP src2, src1, dst computes dst = src1 op src2.
// Step by step: a = (−|x|)·β; a = a > min ? a : min (NaN: min);
// t = a·C + magic; n = bits(t) − bits(magic); kf = t − magic;
// r = (a − kf·hi) − kf·lo; r2 = r·r; q = r + r2·((½ + r/6) + r2/24);
// s = table[n & 7] with (n >> 3) << 23 added to its bits; e = s + s·q.
TEXT ·expNegAbs32AVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS beta+24(FP), Y12
	MOVQ c+32(FP), DX
	SHLQ $2, CX
	XORQ AX, AX
	VMOVUPS 96(DX), Y10 // magic

loop:
	VMOVUPS (SI)(AX*1), Y0
	VORPS   (DX), Y0, Y1    // −|x|
	VMULPS  Y12, Y1, Y1     // a = −|x|·β
	VMAXPS  32(DX), Y1, Y1  // a > min ? a : min
	VMULPS  64(DX), Y1, Y2  // a·C
	VADDPS  Y10, Y2, Y2     // t
	VPSUBD  Y10, Y2, Y3     // n
	VSUBPS  Y10, Y2, Y2     // kf
	VMULPS  128(DX), Y2, Y4 // kf·hi
	VSUBPS  Y4, Y1, Y4      // a − kf·hi
	VMULPS  160(DX), Y2, Y5 // kf·lo
	VSUBPS  Y5, Y4, Y4      // r
	VMULPS  Y4, Y4, Y5      // r2
	VMULPS  224(DX), Y4, Y6 // r/6
	VADDPS  192(DX), Y6, Y6 // ½ + r/6
	VMULPS  256(DX), Y5, Y7 // r2/24
	VADDPS  Y7, Y6, Y6      // (½ + r/6) + r2/24
	VMULPS  Y6, Y5, Y6      // r2·(…)
	VADDPS  Y6, Y4, Y6      // q
	VPERMPS 320(DX), Y3, Y7 // table[n & 7]
	VPSRAD  $3, Y3, Y3
	VPSLLD  $23, Y3, Y3
	VPADDD  Y3, Y7, Y7      // s
	VMULPS  Y6, Y7, Y6      // s·q
	VADDPS  Y6, Y7, Y6      // e
	VMOVUPS Y6, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop
	VZEROUPPER
	RET
