//go:build amd64 && !purego

#include "textflag.h"

// Prod: each lane's product Π (t_i + s_i·e_i) over elements [0, n) in
// blocks of 32 (see prodGo, whose operations each lane performs in the same
// order, so the results are the same bits).
//
// Registers: SI t, DI s, R8 x, R11 w, R9 e^{w}, R10 e^{−w}, BX stride
// (bytes), R13 n, CX element, DX offset of the element's lanes (bytes),
// R12 end of the block, R14 bad bits of the block. Y0 the product, Y3 the
// selection mask, Y6/Y7 e^{±w_i}, Y8 w_i, Y9 the dot product, Y12–Y15
// temporaries.
// Go's operand order: VOP src2, src1, dst computes dst = src1 op src2;
// VBLENDVPD mask, b, a, dst sets dst = mask ? b : a.

// func prod…(t, s, x, w, ep, en *float64, stride, n int, sel *uint64, p *float64, exp *int64, dot *float64, bad *uint8, badStep int, c *[5][4]uint64) bool
#define LOADPROD \
	MOVQ t+0(FP), SI \
	MOVQ s+8(FP), DI \
	MOVQ x+16(FP), R8 \
	MOVQ w+24(FP), R11 \
	MOVQ ep+32(FP), R9 \
	MOVQ en+40(FP), R10 \
	MOVQ stride+48(FP), BX \
	MOVQ n+56(FP), R13 \
	MOVQ bad+96(FP), R14 \
	XORQ CX, CX \
	XORQ DX, DX

// LANES loads a group's selection mask, product and dot product.
#define LANES(off, m, q, d) \
	MOVQ sel+64(FP), AX \
	VMOVDQU off(AX), m \
	MOVQ p+72(FP), AX \
	VMOVUPD off(AX), q \
	MOVQ dot+88(FP), AX \
	VMOVUPD off(AX), d

#define STOREDOT(off, d) \
	MOVQ dot+88(FP), AX \
	VMOVUPD d, off(AX)

// BLOCKLEN sets R12 to the end of the next block: min(CX + 32, n).
#define BLOCKLEN \
	LEAQ    32(CX), R12 \
	CMPQ    R12, R13 \
	CMOVQGT R13, R12

// FACTOR: q ← q·(t + s·e) for one group, e chosen by its mask.
#define FACTOR(off, m, q, tmp) \
	VBLENDVPD m, Y7, Y6, tmp \
	VMULPD    off(DI)(DX*1), tmp, tmp \
	VADDPD    off(SI)(DX*1), tmp, tmp \
	VMULPD    tmp, q, q

// DOT: d ← d + x·w for one group.
#define DOT(off, d, tmp) \
	VMULPD off(R8)(DX*1), Y8, tmp \
	VADDPD tmp, d, d

// BLOCKEND: a group's product q at the end of a block. Where lo < q < hi
// (ordered) it becomes its frexp fraction (the exponent field set to 1022)
// and exp gains its exponent − 1022; elsewhere q returns to the block's
// start value (kept in p) and the lane's bit is set in the block's bad
// byte and in the result.
#define BLOCKEND(off, q, boff) \
	MOVQ      c+112(FP), AX \
	VCMPPD    $0x1e, 0(AX), q, Y12 \
	VCMPPD    $0x11, 32(AX), q, Y13 \
	VANDPD    Y13, Y12, Y12 \
	VANDPD    64(AX), q, Y13 \
	VORPD     96(AX), Y13, Y13 \
	VPSRLQ    $52, q, Y14 \
	VPSUBQ    128(AX), Y14, Y14 \
	VPAND     Y12, Y14, Y14 \
	MOVQ      exp+80(FP), AX \
	VPADDQ    off(AX), Y14, Y14 \
	VMOVDQU   Y14, off(AX) \
	MOVQ      p+72(FP), AX \
	VMOVUPD   off(AX), Y15 \
	VBLENDVPD Y12, Y13, Y15, q \
	VMOVUPD   q, off(AX) \
	VMOVMSKPD Y12, AX \
	XORL      $15, AX \
	ORB       AL, boff(R14) \
	TESTL     AX, AX \
	SETNE     AL \
	ORB       AL, ret+120(FP)

#define NEXTELEM \
	ADDQ BX, DX \
	INCQ CX \
	CMPQ CX, R12

#define NEXTBLOCK \
	ADDQ badStep+104(FP), R14 \
	CMPQ CX, R13

// PBLOCKEND2: the end of a block of the product q whose block-start value, exponent
// and bad byte are at the argument slots poff, eoff, boff; bit is the
// bit of the result (at retoff). Uses Y8, Y12–Y14.
#define PBLOCKEND2(q, poff, eoff, boff, bit, retoff) \
	VCMPPD    $0x1e, ·prodConsts+0(SB), q, Y12 \
	VCMPPD    $0x11, ·prodConsts+32(SB), q, Y13 \
	VANDPD    Y13, Y12, Y12 \
	VANDPD    ·prodConsts+64(SB), q, Y13 \
	VORPD     ·prodConsts+96(SB), Y13, Y13 \
	VPSRLQ    $52, q, Y14 \
	VPSUBQ    ·prodConsts+128(SB), Y14, Y14 \
	VPAND     Y12, Y14, Y14 \
	MOVQ      eoff(FP), AX \
	VPADDQ    (AX), Y14, Y14 \
	VMOVDQU   Y14, (AX) \
	MOVQ      poff(FP), AX \
	VMOVUPD   (AX), Y8 \
	VBLENDVPD Y12, Y13, Y8, q \
	VMOVUPD   q, (AX) \
	VMOVMSKPD Y12, AX \
	XORL      $15, AX \
	MOVQ      boff(FP), BX \
	ORB       AL, (BX) \
	INCQ      boff(FP) \
	MOVQ      CX, BX \
	SHLQ      $5, BX \
	TESTL     AX, AX \
	SETNE     AL \
	SHLB      $bit, AL \
	ORB       AL, retoff(FP)

// func prod2AVX2k(tA, sA, tB, sB, ep, en *float64, n int, selA, selB *uint64, pA *float64, expA *int64, badA *uint8, pB *float64, expB *int64, badB *uint8) uint8
//
// Prod on two groups A and B of contiguous lanes (no dot product), the
// row's exponentials loaded once for both. Registers: SI/DI t and s of
// A, R8/R13 of B, R9/R10 e^{±w}, CX element, BX its offset. Y0/Y4 the
// products, Y2/Y6 the selections, Y8/Y9 e^{±w_i}, Y10–Y14 temporaries.
// The end of the current block is kept in the argument slot selA (read
// first). Result bit 0: a block of A's product left the safe range; bit
// 1: of B's.
#define PFACT2(treg, sreg, sel, q, e) \
	VBLENDVPD sel, Y9, Y8, e \
	VMULPD    (sreg)(BX*1), e, e \
	VADDPD    (treg)(BX*1), e, e \
	VMULPD    e, q, q

TEXT ·prod1AVX2(SB), NOSPLIT, $0-121
	LOADPROD
	MOVB $0, ret+120(FP)
	LANES(0, Y3, Y0, Y9)

block1:
	BLOCKLEN

elem1:
	VBROADCASTSD (R9)(CX*8), Y6
	VBROADCASTSD (R10)(CX*8), Y7
	FACTOR(0, Y3, Y0, Y12)
	NEXTELEM
	JLT elem1
	BLOCKEND(0, Y0, 0)
	NEXTBLOCK
	JLT block1
	VZEROUPPER
	RET

TEXT ·prod1DotAVX2(SB), NOSPLIT, $0-121
	LOADPROD
	MOVB $0, ret+120(FP)
	LANES(0, Y3, Y0, Y9)

block1d:
	BLOCKLEN

elem1d:
	VBROADCASTSD (R9)(CX*8), Y6
	VBROADCASTSD (R10)(CX*8), Y7
	VBROADCASTSD (R11)(CX*8), Y8
	DOT(0, Y9, Y15)
	FACTOR(0, Y3, Y0, Y12)
	NEXTELEM
	JLT elem1d
	BLOCKEND(0, Y0, 0)
	NEXTBLOCK
	JLT block1d
	STOREDOT(0, Y9)
	VZEROUPPER
	RET

// func shiftAVX2k(a, s, t, w, ep, en *float64, stride, n int, d *[4]float64, sel *[4]uint64, fb *uint8, c *[4][4]uint64) bool
// Shift on one group (see shiftGo): DI a, SI s, DX t, R8 w, R9 e^{w},
// R10 e^{−w}, R12 stride (bytes), R13 n, R11 fb, CX element, BX offset of
// its lanes. Y0 D, Y1 flipping lanes, Y2 selection mask, Y3 the mask of
// |x|, Y4 Extreme, Y5 MaxFloat64, Y6 0, Y7 1.
TEXT ·shiftAVX2k(SB), NOSPLIT, $0-97
	MOVQ    a+0(FP), DI
	MOVQ    s+8(FP), SI
	MOVQ    t+16(FP), DX
	MOVQ    w+24(FP), R8
	MOVQ    ep+32(FP), R9
	MOVQ    en+40(FP), R10
	MOVQ    stride+48(FP), R12
	MOVQ    n+56(FP), R13
	MOVQ    fb+80(FP), R11
	MOVQ    d+64(FP), AX
	VMOVUPD (AX), Y0
	VXORPD  Y6, Y6, Y6
	VCMPPD  $0x04, Y6, Y0, Y1
	MOVQ    sel+72(FP), AX
	VMOVDQU (AX), Y2
	MOVQ    c+88(FP), AX
	VMOVDQU 0(AX), Y3
	VMOVUPD 32(AX), Y4
	VMOVUPD 64(AX), Y5
	VMOVUPD 96(AX), Y7
	MOVB    $0, ret+96(FP)
	XORQ    CX, CX
	XORQ    BX, BX

shiftloop:
	VBROADCASTSD (R8)(CX*8), Y8
	VMULPD       Y8, Y0, Y8           // d·w
	VMOVUPD      (DI)(BX*1), Y9       // a
	VADDPD       Y8, Y9, Y8           // x = a + d·w
	VBLENDVPD    Y1, Y8, Y9, Y9       // flipping lanes take x
	VMOVUPD      Y9, (DI)(BX*1)
	VBROADCASTSD (R9)(CX*8), Y10
	VBROADCASTSD (R10)(CX*8), Y11
	VBLENDVPD    Y2, Y11, Y10, Y10    // e
	VMOVUPD      (SI)(BX*1), Y11      // s
	VMULPD       Y10, Y11, Y12        // s·e
	VMOVUPD      (DX)(BX*1), Y13      // t
	VADDPD       Y12, Y13, Y12        // r = t + s·e
	VCMPPD       $0x1e, Y6, Y12, Y14  // r > 0
	VCMPPD       $0x12, Y5, Y12, Y15  // r ≤ MaxFloat64
	VANDPD       Y15, Y14, Y14
	VANDPD       Y3, Y8, Y15          // |x|
	VCMPPD       $0x12, Y4, Y15, Y15  // |x| ≤ Extreme
	VANDPD       Y15, Y14, Y14
	VANDPD       Y1, Y14, Y14         // ok, on flipping lanes
	VDIVPD       Y12, Y7, Y12         // 1/r
	VMULPD       Y12, Y10, Y10        // e·(1/r)
	VMULPD       Y10, Y11, Y10        // s·(e·(1/r))
	VMULPD       Y12, Y13, Y12        // t·(1/r)
	VBLENDVPD    Y14, Y10, Y11, Y11
	VMOVUPD      Y11, (SI)(BX*1)
	VBLENDVPD    Y14, Y12, Y13, Y13
	VMOVUPD      Y13, (DX)(BX*1)
	VANDNPD      Y1, Y14, Y15         // flipping and not ok
	VMOVMSKPD    Y15, AX
	TESTL        AX, AX
	JNE          shiftfb

shiftnext:
	ADDQ R12, BX
	INCQ CX
	CMPQ CX, R13
	JLT  shiftloop
	VZEROUPPER
	RET

shiftfb:
	ORB  AL, (R11)(CX*1)
	MOVB $1, ret+96(FP)
	JMP  shiftnext

TEXT ·prod2AVX2k(SB), NOSPLIT, $0-121
	MOVQ    tA+0(FP), SI
	MOVQ    sA+8(FP), DI
	MOVQ    tB+16(FP), R13
	MOVQ    sB+24(FP), R8
	MOVQ    ep+32(FP), R9
	MOVQ    en+40(FP), R10
	MOVQ    selA+56(FP), AX
	VMOVDQU (AX), Y2
	MOVQ    selB+64(FP), AX
	VMOVDQU (AX), Y6
	MOVQ    pA+72(FP), AX
	VMOVUPD (AX), Y0
	MOVQ    pB+96(FP), AX
	VMOVUPD (AX), Y4
	MOVB    $0, ret+120(FP)
	XORQ    CX, CX
	XORQ    BX, BX

q2block:
	LEAQ    32(CX), AX
	CMPQ    AX, n+48(FP)
	CMOVQGT n+48(FP), AX
	MOVQ    AX, selA+56(FP)

q2elem:
	VBROADCASTSD (R9)(CX*8), Y8
	VBROADCASTSD (R10)(CX*8), Y9
	PFACT2(SI, DI, Y2, Y0, Y10)
	PFACT2(R13, R8, Y6, Y4, Y11)
	ADDQ         $32, BX
	INCQ         CX
	CMPQ         CX, selA+56(FP)
	JLT          q2elem
	PBLOCKEND2(Y0, pA+72, expA+80, badA+88, 0, ret+120)
	PBLOCKEND2(Y4, pB+96, expB+104, badB+112, 1, ret+120)
	CMPQ         CX, n+48(FP)
	JLT          q2block
	VZEROUPPER
	RET
