//go:build amd64 && !purego

#include "textflag.h"

// Scale: for the flipping lanes (D ≠ 0) of each element, a ← a + D·w and
// s ← s·e (e = EN or EP by the lane's Sel), as scaleGo does.
//
// Registers: DI a, SI s, R8 w, R9 e^{w}, R10 e^{−w}, R13 n, CX element,
// BX offset of the element's lanes (bytes). Y0 D, Y1 the flipping lanes,
// Y2 the selection mask.
// Go's operand order: VOP src2, src1, dst computes dst = src1 op src2;
// VBLENDVPD mask, b, a, dst sets dst = mask ? b : a.

// func scaleAVX2k(a, s, w, ep, en *float64, n int, d *[4]float64, sel *[4]uint64)
TEXT ·scaleAVX2k(SB), NOSPLIT, $0-64
	MOVQ    a+0(FP), DI
	MOVQ    s+8(FP), SI
	MOVQ    w+16(FP), R8
	MOVQ    ep+24(FP), R9
	MOVQ    en+32(FP), R10
	MOVQ    n+40(FP), R13
	MOVQ    d+48(FP), AX
	VMOVUPD (AX), Y0
	VXORPD  Y6, Y6, Y6
	VCMPPD  $0x04, Y6, Y0, Y1 // D ≠ 0
	MOVQ    sel+56(FP), AX
	VMOVDQU (AX), Y2
	XORQ    CX, CX
	XORQ    BX, BX

scaleloop:
	VBROADCASTSD (R8)(CX*8), Y8
	VMULPD       Y8, Y0, Y8        // D·w
	VMOVUPD      (DI)(BX*1), Y9    // a
	VADDPD       Y8, Y9, Y8        // a + D·w
	VBLENDVPD    Y1, Y8, Y9, Y9    // flipping lanes take it
	VMOVUPD      Y9, (DI)(BX*1)
	VBROADCASTSD (R9)(CX*8), Y10
	VBROADCASTSD (R10)(CX*8), Y11
	VBLENDVPD    Y2, Y11, Y10, Y10 // e
	VMOVUPD      (SI)(BX*1), Y11   // s
	VMULPD       Y10, Y11, Y12     // s·e
	VBLENDVPD    Y1, Y12, Y11, Y11
	VMOVUPD      Y11, (SI)(BX*1)
	ADDQ         $32, BX
	INCQ         CX
	CMPQ         CX, R13
	JLT          scaleloop
	VZEROUPPER
	RET
