//go:build amd64 && !purego

#include "textflag.h"

// EXPCLAMPED sets Y6 = e^a for a in Y1 (clamped at expMin, a NaN too),
// the exponential of the package comment (expClamped), with the constants
// at DX and expMagic in Y10, using Y1–Y5 and Y7. Step by step (Go's
// operand order: VOP src2, src1, dst computes dst = src1 op src2):
// a = a > expMin ? a : expMin; t = a·expC + magic;
// n = bits(t) − bits(magic); kf = t − magic; r = (a − kf·hi) − kf·lo;
// r2 = r·r; q = r + r2·((½ + r/6) + r2/24); s = table[n & 7] with
// (n >> 3) << 23 added to its bits; e = s + s·q.
#define EXPCLAMPED \
	VMAXPS  32(DX), Y1, Y1 \
	VMULPS  64(DX), Y1, Y2 \
	VADDPS  Y10, Y2, Y2    \
	VPSUBD  Y10, Y2, Y3    \
	VSUBPS  Y10, Y2, Y2    \
	VMULPS  128(DX), Y2, Y4 \
	VSUBPS  Y4, Y1, Y4     \
	VMULPS  160(DX), Y2, Y5 \
	VSUBPS  Y5, Y4, Y4     \
	VMULPS  Y4, Y4, Y5     \
	VMULPS  224(DX), Y4, Y6 \
	VADDPS  192(DX), Y6, Y6 \
	VMULPS  256(DX), Y5, Y7 \
	VADDPS  Y7, Y6, Y6     \
	VMULPS  Y6, Y5, Y6     \
	VADDPS  Y6, Y4, Y6     \
	VPERMPS 320(DX), Y3, Y7 \
	VPSRAD  $3, Y3, Y3     \
	VPSLLD  $23, Y3, Y3    \
	VPADDD  Y3, Y7, Y7     \
	VMULPS  Y6, Y7, Y6     \
	VADDPS  Y6, Y7, Y6

// EXPNEGABS sets Y6 = e^{−|x|} for x in Y0: a = −|x| (the sign bit set),
// then EXPCLAMPED.
#define EXPNEGABS \
	VORPS (DX), Y0, Y1 \
	EXPCLAMPED

// func sigmoid8AVX2(p, x *float32, n int, c *[11][8]float32)
// Constants at c: 0 sign bit, 32 expMin, 64 expC, 96 expMagic, 128 expHi,
// 160 expLo, 192 ½, 224 1/6, 256 1/24, 288 1, 320 table 2^{j/8}.
// Go's operand order: VOP src2, src1, dst computes dst = src1 op src2.
TEXT ·sigmoid8AVX2(SB), NOSPLIT, $0-32
	MOVQ p+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ c+24(FP), DX
	SHLQ $2, CX
	XORQ AX, AX
	VMOVUPS 96(DX), Y10  // expMagic
	VMOVUPS 288(DX), Y11 // 1

loop:
	VMOVUPS (SI)(AX*1), Y0         // x
	EXPNEGABS                      // e = e^{−|x|} in Y6
	VADDPS  Y11, Y6, Y8            // 1 + e
	VBLENDVPS Y0, Y6, Y11, Y9      // f = x < 0 (sign bit) ? e : 1
	VDIVPS  Y8, Y9, Y9             // f / (1 + e)
	VMOVUPS Y9, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     loop
	VZEROUPPER
	RET

// func logLik8AVX2(p, a, x *float32, n int, c *[11][8]float32, acc *[16]float64)
// The loop of sigmoid8AVX2 on a, plus, per lane, acc[lane] +=
// float64(x·a − max(a, 0)) and acc[8+lane] *= float64(1 + e). Lanes 0–3 of
// the sums are in Y12, 4–7 in Y13; the products in Y14, Y15.
// max(a, 0) is VMAXPS with the zero as Intel's second source: a > 0 ? a : 0
// (0 for a NaN too), as the Go loop's test.
TEXT ·logLik8AVX2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ x+16(FP), R8
	MOVQ n+24(FP), CX
	MOVQ c+32(FP), DX
	MOVQ acc+40(FP), R9
	SHLQ $2, CX
	XORQ AX, AX
	VMOVUPS 96(DX), Y10  // expMagic
	VMOVUPS 288(DX), Y11 // 1
	VMOVUPD 0(R9), Y12
	VMOVUPD 32(R9), Y13
	VMOVUPD 64(R9), Y14
	VMOVUPD 96(R9), Y15

lloop:
	VMOVUPS (SI)(AX*1), Y0         // a
	VMULPS  (R8)(AX*1), Y0, Y1     // x·a
	VXORPS  Y2, Y2, Y2
	VMAXPS  Y2, Y0, Y2             // a > 0 ? a : 0
	VSUBPS  Y2, Y1, Y1             // z = x·a − max(a, 0)
	VCVTPS2PD X1, Y2
	VADDPD  Y2, Y12, Y12
	VEXTRACTF128 $1, Y1, X1
	VCVTPS2PD X1, Y2
	VADDPD  Y2, Y13, Y13
	EXPNEGABS                      // e = e^{−|a|} in Y6
	VADDPS  Y11, Y6, Y8            // 1 + e
	VBLENDVPS Y0, Y6, Y11, Y9      // a < 0 (sign bit) ? e : 1
	VDIVPS  Y8, Y9, Y9
	VMOVUPS Y9, (DI)(AX*1)
	VCVTPS2PD X8, Y2
	VMULPD  Y2, Y14, Y14
	VEXTRACTF128 $1, Y8, X8
	VCVTPS2PD X8, Y2
	VMULPD  Y2, Y15, Y15
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     lloop
	VMOVUPD Y12, 0(R9)
	VMOVUPD Y13, 32(R9)
	VMOVUPD Y14, 64(R9)
	VMOVUPD Y15, 96(R9)
	VZEROUPPER
	RET

// func expNegAbs8AVX2(dst, x *float32, n int, beta float32, c *[11][8]float32)
// The loop of ExpNegAbs32: a = (−|x|)·β, then EXPCLAMPED.
TEXT ·expNegAbs8AVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS beta+24(FP), Y12
	MOVQ c+32(FP), DX
	SHLQ $2, CX
	XORQ AX, AX
	VMOVUPS 96(DX), Y10 // expMagic

eloop:
	VMOVUPS (SI)(AX*1), Y0
	VORPS   (DX), Y0, Y1 // −|x|
	VMULPS  Y12, Y1, Y1  // a = −|x|·β
	EXPCLAMPED
	VMOVUPS Y6, (DI)(AX*1)
	ADDQ    $32, AX
	CMPQ    AX, CX
	JLT     eloop
	VZEROUPPER
	RET
