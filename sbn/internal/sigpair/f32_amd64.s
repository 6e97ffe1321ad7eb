//go:build amd64 && !purego

#include "textflag.h"

// The float32 kernels (see prod8Go and shift8Go, whose operations each
// lane performs in the same order: the results are the same bits). One
// group of eight lanes, 32 bytes an element. A product is kept as two
// registers of four float64 lanes: lanes 0–3 and 4–7.
// Go's operand order: VOP src2, src1, dst computes dst = src1 op src2;
// VBLENDVPS mask, b, a, dst sets dst = mask ? b : a.

// BE32(q, poff, eoff): a block's end for the float64 product q of four
// lanes whose block-start values and exponents are at the pointers in the
// argument slots poff and eoff plus off. Leaves the ok mask in Y12.
#define BE32(q, off, poff, eoff) \
	VCMPPD    $0x1e, ·prodConsts+0(SB), q, Y12 \
	VCMPPD    $0x11, ·prodConsts+32(SB), q, Y13 \
	VANDPD    Y13, Y12, Y12 \
	VANDPD    ·prodConsts+64(SB), q, Y13 \
	VORPD     ·prodConsts+96(SB), Y13, Y13 \
	VPSRLQ    $52, q, Y14 \
	VPSUBQ    ·prodConsts+128(SB), Y14, Y14 \
	VPAND     Y12, Y14, Y14 \
	MOVQ      eoff(FP), AX \
	VPADDQ    off(AX), Y14, Y14 \
	VMOVDQU   Y14, off(AX) \
	MOVQ      poff(FP), AX \
	VMOVUPD   off(AX), Y15 \
	VBLENDVPD Y12, Y13, Y15, q \
	VMOVUPD   q, off(AX)

// BLOCKEND32: both halves' block ends; the bad lanes' bits go into the
// byte at R14 (then advanced) and, if any, 1 is ORed into flag. BX is used
// as scratch and set back to CX·32.
#define BLOCKEND32(poff, eoff, flag) \
	BE32(Y0, 0, poff, eoff) \
	VMOVMSKPD Y12, BX \
	BE32(Y1, 32, poff, eoff) \
	VMOVMSKPD Y12, AX \
	SHLL      $4, AX \
	ORL       BX, AX \
	MOVQ      CX, BX \
	SHLQ      $5, BX \
	XORL      $255, AX \
	ORB       AL, (R14) \
	INCQ      R14 \
	TESTL     AX, AX \
	SETNE     AL \
	MOVBLZX   AL, AX \
	ORL       AX, flag

// FACT32(f): multiplies the float32 factors of f (eight lanes) into Y0
// (lanes 0–3) and Y1 (4–7); clobbers f and Y13.
#define FACT32(f, fx) \
	VCVTPS2PD    fx, Y13 \
	VMULPD       Y13, Y0, Y0 \
	VEXTRACTF128 $1, f, fx \
	VCVTPS2PD    fx, f \
	VMULPD       f, Y1, Y1

// func prod32AVX2k(t, s, x *float32, w *float64, ep, en *float32, n int, sel *[8]uint32, p *[8]float64, exp *[8]int64, dot *[8]float64, bad *uint8) bool
// Registers: SI t, DI s, R8 x, R11 w, R9 e^{w}, R10 e^{−w}, R13 n, CX
// element, BX its offset, R12 end of the block, R14 the block's bad byte,
// DX the report. Y0/Y1 the product, Y3 the selection, Y4/Y5 the dot product.
TEXT ·prod32AVX2k(SB), NOSPLIT, $0-97
	MOVQ    t+0(FP), SI
	MOVQ    s+8(FP), DI
	MOVQ    x+16(FP), R8
	MOVQ    w+24(FP), R11
	MOVQ    ep+32(FP), R9
	MOVQ    en+40(FP), R10
	MOVQ    n+48(FP), R13
	MOVQ    bad+88(FP), R14
	MOVQ    sel+56(FP), AX
	VMOVDQU (AX), Y3
	MOVQ    p+64(FP), AX
	VMOVUPD 0(AX), Y0
	VMOVUPD 32(AX), Y1
	TESTQ   R8, R8
	JEQ     nodot
	MOVQ    dot+80(FP), AX
	VMOVUPD 0(AX), Y4
	VMOVUPD 32(AX), Y5

nodot:
	XORL DX, DX
	XORQ CX, CX
	XORQ BX, BX

p32block:
	LEAQ    32(CX), R12
	CMPQ    R12, R13
	CMOVQGT R13, R12

p32elem:
	VBROADCASTSS (R9)(CX*4), Y6
	VBROADCASTSS (R10)(CX*4), Y7
	VBLENDVPS    Y3, Y7, Y6, Y12
	VMULPS       (DI)(BX*1), Y12, Y12
	VADDPS       (SI)(BX*1), Y12, Y12
	FACT32(Y12, X12)
	TESTQ        R8, R8
	JEQ          p32next
	VBROADCASTSD (R11)(CX*8), Y8
	VCVTPS2PD    (R8)(BX*1), Y13
	VMULPD       Y8, Y13, Y13
	VADDPD       Y13, Y4, Y4
	VCVTPS2PD    16(R8)(BX*1), Y13
	VMULPD       Y8, Y13, Y13
	VADDPD       Y13, Y5, Y5

p32next:
	ADDQ $32, BX
	INCQ CX
	CMPQ CX, R12
	JLT  p32elem
	BLOCKEND32(p+64, exp+72, DX)
	CMPQ CX, R13
	JLT  p32block
	TESTQ   R8, R8
	JEQ     p32done
	MOVQ    dot+80(FP), AX
	VMOVUPD Y4, 0(AX)
	VMOVUPD Y5, 32(AX)

p32done:
	MOVB DX, ret+96(FP)
	VZEROUPPER
	RET

// SHIFT32: the update of element CX (see shift8Go); leaves the new s in
// Y12 and t in Y14. Registers: DI a, SI s, DX t, R8 w, R9 e^{w}, R10
// e^{−w}, R11 fb; Y2 D, Y3 the flipping lanes, Y4 the selection.
#define SHIFT32 \
	VBROADCASTSS (R8)(CX*4), Y10 \
	VMULPS       Y10, Y2, Y10 \
	VMOVUPS      (DI)(BX*1), Y11 \
	VADDPS       Y10, Y11, Y10 \
	VBLENDVPS    Y3, Y10, Y11, Y11 \
	VMOVUPS      Y11, (DI)(BX*1) \
	VANDPS       ·shift32Consts+0(SB), Y10, Y10 \
	VCMPPS       $0x12, ·shift32Consts+32(SB), Y10, Y10 \
	VBROADCASTSS (R9)(CX*4), Y11 \
	VBROADCASTSS (R10)(CX*4), Y12 \
	VBLENDVPS    Y4, Y12, Y11, Y11 \
	VMOVUPS      (SI)(BX*1), Y12 \
	VMULPS       Y11, Y12, Y13 \
	VMOVUPS      (DX)(BX*1), Y14 \
	VADDPS       Y13, Y14, Y13 \
	VCMPPS       $0x1e, ·shift32Consts+128(SB), Y13, Y15 \
	VANDPS       Y15, Y10, Y10 \
	VCMPPS       $0x12, ·shift32Consts+64(SB), Y13, Y15 \
	VANDPS       Y15, Y10, Y10 \
	VANDPS       Y3, Y10, Y10 \
	VMOVUPS      ·shift32Consts+96(SB), Y15 \
	VDIVPS       Y13, Y15, Y13 \
	VMULPS       Y13, Y11, Y11 \
	VMULPS       Y11, Y12, Y11 \
	VMULPS       Y13, Y14, Y13 \
	VBLENDVPS    Y10, Y11, Y12, Y12 \
	VMOVUPS      Y12, (SI)(BX*1) \
	VBLENDVPS    Y10, Y13, Y14, Y14 \
	VMOVUPS      Y14, (DX)(BX*1) \
	VANDNPS      Y3, Y10, Y15 \
	VMOVMSKPS    Y15, AX \
	TESTL        AX, AX

// func shift32AVX2k(a, s, t, w, ep, en *float32, n int, d *[8]float32, sel *[8]uint32, fb *uint8) bool
// Registers as SHIFT32.
TEXT ·shift32AVX2k(SB), NOSPLIT, $0-81
	MOVQ    a+0(FP), DI
	MOVQ    s+8(FP), SI
	MOVQ    t+16(FP), DX
	MOVQ    w+24(FP), R8
	MOVQ    ep+32(FP), R9
	MOVQ    en+40(FP), R10
	MOVQ    fb+72(FP), R11
	MOVQ    d+56(FP), AX
	VMOVUPS (AX), Y2
	VXORPS  Y3, Y3, Y3
	VCMPPS  $0x04, Y3, Y2, Y3
	MOVQ    sel+64(FP), AX
	VMOVDQU (AX), Y4
	MOVB    $0, ret+80(FP)
	XORQ    CX, CX
	XORQ    BX, BX

s32loop:
	SHIFT32
	JNE     s32fb

s32next:
	ADDQ $32, BX
	INCQ CX
	CMPQ CX, n+48(FP)
	JLT  s32loop
	VZEROUPPER
	RET

s32fb:
	ORB  AL, (R11)(CX*1)
	MOVB $1, ret+80(FP)
	JMP  s32next

// RHOUPD(eo, ro): Rho's update of element CX + eo/4 (eo its offset in
// the rows, ro = 8·eo in ρ); leaves the lanes' ρ (new on the flipping
// lanes) in Y12 and ORs the flipping lanes whose new ρ is outside [RhoLo,
// RhoHi] or NaN into Y8. Registers: SI ρ, R9 e^{w}, R10 e^{−w}; Y2 the
// flipping lanes, Y4 the selection, Y6 RhoLo, Y7 RhoHi.
#define RHOUPD(eo, ro) \
	VBROADCASTSS eo(R9)(CX*4), Y11 \
	VBROADCASTSS eo(R10)(CX*4), Y12 \
	VBLENDVPS    Y4, Y12, Y11, Y11 \
	VMOVUPS      ro(SI)(BX*1), Y12 \
	VMULPS       Y11, Y12, Y11 \
	VCMPPS       $0x1d, Y6, Y11, Y13 \
	VCMPPS       $0x12, Y7, Y11, Y14 \
	VANDPS       Y14, Y13, Y13 \
	VANDNPS      Y2, Y13, Y13 \
	VORPS        Y13, Y8, Y8 \
	VBLENDVPS    Y2, Y11, Y12, Y12 \
	VMOVUPS      Y12, ro(SI)(BX*1)

// RHOFACT(eo): multiplies the factor 1 + ρ·e' of the ρ in Y12 (e' of the
// row R12/R13 at offset eo, by the selection Y5; Y9 holds 1) into the
// float32 partial product Y10.
#define RHOFACT(eo) \
	VBROADCASTSS eo(R12)(CX*4), Y11 \
	VBROADCASTSS eo(R13)(CX*4), Y13 \
	VBLENDVPS    Y5, Y13, Y11, Y11 \
	VMULPS       Y11, Y12, Y11 \
	VADDPS       Y9, Y11, Y11 \
	VMULPS       Y11, Y10, Y10

// RHOFLUSH: the partial product Y10 into the float64 product Y0/Y1; Y10
// back to 1.
#define RHOFLUSH \
	FACT32(Y10, X10) \
	VMOVAPS Y9, Y10

// func rhoAVX2k(r, ep, en *float32, n int, flip, sel *[8]uint32, pep, pen *float32, psel *[8]uint32, p *[8]float64, exp *[8]int64, bad *uint8, c *[8][8]uint32) uint16
// Rho and/or RhoProd (ep nil: the product alone; pep nil: the update
// alone). Registers as RHOUPD and RHOFACT, and R14 the block's bad byte,
// R8 the end of the block, R11 the product's report; Y0/Y1 the product,
// Y10 the partial product of the current group of four elements.
TEXT ·rhoAVX2k(SB), NOSPLIT, $0-106
	MOVQ    r+0(FP), SI
	MOVQ    ep+8(FP), R9
	MOVQ    en+16(FP), R10
	MOVQ    pep+48(FP), R12
	MOVQ    pen+56(FP), R13
	MOVQ    bad+88(FP), R14
	MOVQ    c+96(FP), DX
	VMOVUPS 0(DX), Y6
	VMOVUPS 32(DX), Y7
	VMOVUPS 64(DX), Y9
	VMOVAPS Y9, Y10
	VXORPS  Y8, Y8, Y8
	XORL    R11, R11
	XORQ    CX, CX
	XORQ    BX, BX
	TESTQ   R9, R9
	JEQ     rhoprod
	MOVQ    flip+32(FP), AX
	VMOVDQU (AX), Y2
	MOVQ    sel+40(FP), AX
	VMOVDQU (AX), Y4
	TESTQ   R12, R12
	JNE     rhoprod

rhoupd:
	RHOUPD(0, 0)
	ADDQ $32, BX
	INCQ CX
	CMPQ CX, n+24(FP)
	JLT  rhoupd
	JMP  rhodone

rhoprod:
	MOVQ    psel+64(FP), AX
	VMOVDQU (AX), Y5
	MOVQ    p+72(FP), AX
	VMOVUPD 0(AX), Y0
	VMOVUPD 32(AX), Y1

rhoblock:
	LEAQ    32(CX), R8
	CMPQ    R8, n+24(FP)
	CMOVQGT n+24(FP), R8
	TESTQ   R9, R9
	JEQ     rhoponly

rhoboth:
	LEAQ 4(CX), AX
	CMPQ AX, R8
	JGT  rhobtail
	RHOUPD(0, 0)
	RHOFACT(0)
	RHOUPD(4, 32)
	RHOFACT(4)
	RHOUPD(8, 64)
	RHOFACT(8)
	RHOUPD(12, 96)
	RHOFACT(12)
	RHOFLUSH
	ADDQ $128, BX
	ADDQ $4, CX
	JMP  rhoboth

rhobtail:
	CMPQ CX, R8
	JGE  rhoend

rhobt1:
	RHOUPD(0, 0)
	RHOFACT(0)
	ADDQ $32, BX
	INCQ CX
	CMPQ CX, R8
	JLT  rhobt1
	RHOFLUSH
	JMP  rhoend

rhoponly:
	LEAQ    4(CX), AX
	CMPQ    AX, R8
	JGT     rhoptail
	VMOVUPS (SI)(BX*1), Y12
	RHOFACT(0)
	VMOVUPS 32(SI)(BX*1), Y12
	RHOFACT(4)
	VMOVUPS 64(SI)(BX*1), Y12
	RHOFACT(8)
	VMOVUPS 96(SI)(BX*1), Y12
	RHOFACT(12)
	RHOFLUSH
	ADDQ    $128, BX
	ADDQ    $4, CX
	JMP     rhoponly

rhoptail:
	CMPQ CX, R8
	JGE  rhoend

rhopt1:
	VMOVUPS (SI)(BX*1), Y12
	RHOFACT(0)
	ADDQ    $32, BX
	INCQ    CX
	CMPQ    CX, R8
	JLT     rhopt1
	RHOFLUSH

rhoend:
	BLOCKEND32(p+72, exp+80, R11)
	CMPQ CX, n+24(FP)
	JLT  rhoblock

rhodone:
	VMOVMSKPS Y8, AX
	SHLL      $8, R11
	ORL       R11, AX
	MOVW      AX, ret+104(FP)
	VZEROUPPER
	RET
