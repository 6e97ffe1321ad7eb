//go:build amd64 && !purego

#include "textflag.h"

// func stepAVX2(w, vel, grad *float64, grad32, w32 *float32, n int, p *[4]float64, acc *[8]float64)
// p = {μ, ε, c, λ}. Per entry, as the Go loop: u = μ·vel + ε·(c·g − λ·x),
// vel = u, y = x + u, w = y (and w32 = float32(y)); Y13 sums y per lane,
// Y14 keeps the largest |y| per lane. Go's operand order: VOP b, a, dst is
// dst = a op b.
TEXT ·stepAVX2(SB), NOSPLIT, $0-64
	MOVQ w+0(FP), DI
	MOVQ vel+8(FP), SI
	MOVQ grad+16(FP), DX
	MOVQ grad32+24(FP), R8
	MOVQ w32+32(FP), R9
	MOVQ n+40(FP), CX
	MOVQ p+48(FP), R10
	MOVQ acc+56(FP), R11
	VBROADCASTSD 0(R10), Y8  // μ
	VBROADCASTSD 8(R10), Y9  // ε
	VBROADCASTSD 16(R10), Y10 // c
	VBROADCASTSD 24(R10), Y11 // λ
	VPCMPEQQ     Y12, Y12, Y12
	VPSRLQ       $1, Y12, Y12 // 0x7fff…: |·| mask
	VXORPD       Y13, Y13, Y13
	VXORPD       Y14, Y14, Y14
	XORQ         AX, AX
	TESTQ        R9, R9
	JNE          loop32

loop64:
	VMOVUPD (DI)(AX*8), Y0     // x
	VMULPD  (DX)(AX*8), Y10, Y1 // c·g
	VMULPD  Y11, Y0, Y2        // λ·x
	VSUBPD  Y2, Y1, Y1         // c·g − λ·x
	VMULPD  Y9, Y1, Y1         // ε·(…)
	VMULPD  (SI)(AX*8), Y8, Y3 // μ·vel
	VADDPD  Y1, Y3, Y3         // u
	VMOVUPD Y3, (SI)(AX*8)
	VADDPD  Y3, Y0, Y0         // y = x + u
	VMOVUPD Y0, (DI)(AX*8)
	VADDPD  Y0, Y13, Y13
	VANDPD  Y12, Y0, Y5
	VMAXPD  Y5, Y14, Y14
	ADDQ    $4, AX
	CMPQ    AX, CX
	JLT     loop64
	JMP     done

loop32:
	VMOVUPD    (DI)(AX*8), Y0     // x
	VCVTPS2PD  (R8)(AX*4), Y1     // g
	VMULPD     Y10, Y1, Y1        // c·g
	VMULPD     Y11, Y0, Y2        // λ·x
	VSUBPD     Y2, Y1, Y1         // c·g − λ·x
	VMULPD     Y9, Y1, Y1         // ε·(…)
	VMULPD     (SI)(AX*8), Y8, Y3 // μ·vel
	VADDPD     Y1, Y3, Y3         // u
	VMOVUPD    Y3, (SI)(AX*8)
	VADDPD     Y3, Y0, Y0         // y = x + u
	VMOVUPD    Y0, (DI)(AX*8)
	VCVTPD2PSY Y0, X4
	VMOVUPS    X4, (R9)(AX*4)
	VADDPD     Y0, Y13, Y13
	VANDPD     Y12, Y0, Y5
	VMAXPD     Y5, Y14, Y14
	ADDQ       $4, AX
	CMPQ       AX, CX
	JLT        loop32

done:
	VMOVUPD Y13, (R11)
	VMOVUPD Y14, 32(R11)
	VZEROUPPER
	RET
