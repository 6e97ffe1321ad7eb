//go:build amd64 && !purego

#include "textflag.h"

// Constants of math.Exp (math/exp_amd64.s), its FMA path.
#define LOG2E 1.4426950408889634073599246810018920
#define LN2U 0.69314718055966295651160180568695068359375
#define LN2L 0.28235290563031577122588448175013436025525412068e-12

DATA expc<>+0(SB)/8, $0.5
DATA expc<>+8(SB)/8, $1.0
DATA expc<>+16(SB)/8, $2.0
DATA expc<>+24(SB)/8, $1.6666666666666666667e-1
DATA expc<>+32(SB)/8, $4.1666666666666666667e-2
DATA expc<>+40(SB)/8, $8.3333333333333333333e-3
DATA expc<>+48(SB)/8, $1.3888888888888888889e-3
DATA expc<>+56(SB)/8, $1.9841269841269841270e-4
DATA expc<>+64(SB)/8, $2.4801587301587301587e-5
DATA expc<>+72(SB)/8, $LOG2E
DATA expc<>+80(SB)/8, $LN2U
DATA expc<>+88(SB)/8, $LN2L
DATA expc<>+96(SB)/8, $0.0625
DATA expc<>+104(SB)/8, $-708.0
DATA expc<>+112(SB)/8, $0x8000000000000000
DATA expc<>+120(SB)/8, $1023
DATA expc<>+128(SB)/8, $708.0
GLOBL expc<>(SB), RODATA, $136

// EXP4: Y0 = e^{Y0} for four lanes with math.Exp's operations (FMA path):
// k = round(x·log2e) (CVTSD2SL, round to nearest), x − k·ln2u − k·ln2l
// fused, ·1/16, the Taylor polynomial by FMAs, four squarings r(r+2),
// the last fused with +1, times 2^k. Uses Y1–Y5.
#define EXP4 \
	VBROADCASTSD expc<>+72(SB), Y1 \
	VMULPD       Y1, Y0, Y1 \
	VCVTPD2DQY   Y1, X2 \
	VCVTDQ2PD    X2, Y1 \
	VBROADCASTSD expc<>+80(SB), Y3 \
	VFNMADD231PD Y3, Y1, Y0 \
	VBROADCASTSD expc<>+88(SB), Y3 \
	VFNMADD231PD Y3, Y1, Y0 \
	VBROADCASTSD expc<>+96(SB), Y3 \
	VMULPD       Y3, Y0, Y0 \
	VBROADCASTSD expc<>+64(SB), Y1 \
	VBROADCASTSD expc<>+56(SB), Y3 \
	VFMADD213PD  Y3, Y0, Y1 \
	VBROADCASTSD expc<>+48(SB), Y3 \
	VFMADD213PD  Y3, Y0, Y1 \
	VBROADCASTSD expc<>+40(SB), Y3 \
	VFMADD213PD  Y3, Y0, Y1 \
	VBROADCASTSD expc<>+32(SB), Y3 \
	VFMADD213PD  Y3, Y0, Y1 \
	VBROADCASTSD expc<>+24(SB), Y3 \
	VFMADD213PD  Y3, Y0, Y1 \
	VBROADCASTSD expc<>+0(SB), Y3 \
	VFMADD213PD  Y3, Y0, Y1 \
	VBROADCASTSD expc<>+8(SB), Y4 \
	VFMADD213PD  Y4, Y0, Y1 \
	VMULPD       Y1, Y0, Y0 \
	VBROADCASTSD expc<>+16(SB), Y3 \
	VADDPD       Y3, Y0, Y1 \
	VMULPD       Y1, Y0, Y0 \
	VADDPD       Y3, Y0, Y1 \
	VMULPD       Y1, Y0, Y0 \
	VADDPD       Y3, Y0, Y1 \
	VMULPD       Y1, Y0, Y0 \
	VADDPD       Y3, Y0, Y1 \
	VFMADD213PD  Y4, Y1, Y0 \
	VPMOVSXDQ    X2, Y2 \
	VPBROADCASTQ expc<>+120(SB), Y5 \
	VPADDQ       Y5, Y2, Y2 \
	VPSLLQ       $52, Y2, Y2 \
	VMULPD       Y2, Y0, Y0

// func sigmoidBern4AVX2(dst, a *float64, n int) int
// DI dst, SI a, CX n, AX offset. Y6 = a, Y7 = −|a|.
TEXT ·sigmoidBern4AVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $3, CX
	XORQ AX, AX

sbloop:
	CMPQ         AX, CX
	JGE          sbdone
	VMOVUPD      (SI)(AX*1), Y6
	VBROADCASTSD expc<>+112(SB), Y7
	VORPD        Y7, Y6, Y7               // −|a|: the sign bit set, as −math.Abs
	VBROADCASTSD expc<>+104(SB), Y1
	VCMPPD       $0x1d, Y1, Y7, Y1        // −|a| ≥ −708 (ordered: NaN fails)
	VMOVMSKPD    Y1, BX
	CMPL         BX, $15
	JNE          sbdone
	VMOVAPD      Y7, Y0
	EXP4
	VBROADCASTSD expc<>+8(SB), Y1
	VADDPD       Y0, Y1, Y2               // 1 + e
	VDIVPD       Y2, Y1, Y2               // r = 1/(1 + e)
	VMULPD       Y2, Y0, Y3               // e·r
	VXORPD       Y1, Y1, Y1
	VCMPPD       $0x1e, Y1, Y6, Y1        // a > 0
	VBLENDVPD    Y1, Y2, Y3, Y3
	VMOVUPD      Y3, (DI)(AX*1)
	ADDQ         $32, AX
	JMP          sbloop

sbdone:
	SHRQ $3, AX
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET

// INRANGE: Y1 = −708 ≤ Y0 ≤ 708 (ordered: NaN fails); leaves BX = the
// lanes' mask.
#define INRANGE \
	VBROADCASTSD expc<>+104(SB), Y1 \
	VCMPPD       $0x1d, Y1, Y0, Y1 \
	VBROADCASTSD expc<>+128(SB), Y2 \
	VCMPPD       $0x12, Y2, Y0, Y2 \
	VANDPD       Y2, Y1, Y1 \
	VMOVMSKPD    Y1, BX

// func expAVX2(dst, x *float64, n int) int
TEXT ·expAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $3, CX
	XORQ AX, AX

exloop:
	CMPQ    AX, CX
	JGE     exdone
	VMOVUPD (SI)(AX*1), Y0
	INRANGE
	CMPL    BX, $15
	JNE     exdone
	EXP4
	VMOVUPD Y0, (DI)(AX*1)
	ADDQ    $32, AX
	JMP     exloop

exdone:
	SHRQ $3, AX
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET

// func sigPairAVX2(s, t, a *float64, n int) int
// Y6 = a; e = exp(−|a|), r = 1/(1+e), er = e·r; a ≥ 0: (r, er), else (er, r).
TEXT ·sigPairAVX2(SB), NOSPLIT, $0-40
	MOVQ s+0(FP), DI
	MOVQ t+8(FP), DX
	MOVQ a+16(FP), SI
	MOVQ n+24(FP), CX
	SHLQ $3, CX
	XORQ AX, AX

sploop:
	CMPQ         AX, CX
	JGE          spdone
	VMOVUPD      (SI)(AX*1), Y6
	VBROADCASTSD expc<>+112(SB), Y7
	VORPD        Y7, Y6, Y0               // −|a|
	INRANGE
	CMPL         BX, $15
	JNE          spdone
	EXP4
	VBROADCASTSD expc<>+8(SB), Y1
	VADDPD       Y0, Y1, Y2               // 1 + e
	VDIVPD       Y2, Y1, Y2               // r
	VMULPD       Y2, Y0, Y3               // e·r
	VXORPD       Y1, Y1, Y1
	VCMPPD       $0x1d, Y1, Y6, Y1        // a ≥ 0
	VBLENDVPD    Y1, Y2, Y3, Y4           // s
	VBLENDVPD    Y1, Y3, Y2, Y5           // t
	VMOVUPD      Y4, (DI)(AX*1)
	VMOVUPD      Y5, (DX)(AX*1)
	ADDQ         $32, AX
	JMP          sploop

spdone:
	SHRQ $3, AX
	MOVQ AX, ret+32(FP)
	VZEROUPPER
	RET

// func sigmoidAVX2(dst, x *float64, n int) int
// y = x ≥ 0 ? −x : x (= −|x|, but −(−0) = +0 as in 1/(1 + exp(−x))),
// e = exp(y), d = 1 + e; x ≥ 0: 1/d, else e/d.
TEXT ·sigmoidAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	SHLQ $3, CX
	XORQ AX, AX

sgloop:
	CMPQ         AX, CX
	JGE          sgdone
	VMOVUPD      (SI)(AX*1), Y6
	VXORPD       Y1, Y1, Y1
	VCMPPD       $0x1d, Y1, Y6, Y7        // x ≥ 0
	VBROADCASTSD expc<>+112(SB), Y1
	VXORPD       Y1, Y6, Y1               // −x
	VBLENDVPD    Y7, Y1, Y6, Y0           // y
	INRANGE
	CMPL         BX, $15
	JNE          sgdone
	EXP4
	VBROADCASTSD expc<>+8(SB), Y1
	VADDPD       Y0, Y1, Y2               // d = 1 + e
	VDIVPD       Y2, Y1, Y3               // 1/d
	VDIVPD       Y2, Y0, Y4               // e/d
	VBLENDVPD    Y7, Y3, Y4, Y4
	VMOVUPD      Y4, (DI)(AX*1)
	ADDQ         $32, AX
	JMP          sgloop

sgdone:
	SHRQ $3, AX
	MOVQ AX, ret+24(FP)
	VZEROUPPER
	RET
