//go:build amd64 && !purego

#include "textflag.h"

// func weigh32AVX2(p, h, e *float32, n int, w float32)
// Per entry, as the Go loop: v = w·(h − p) (h − p rounded, then the
// product), p = v and, with e non-nil, e = e + v. Go's operand order:
// VOP b, a, dst is dst = a op b.
TEXT ·weigh32AVX2(SB), NOSPLIT, $0-36
	MOVQ         p+0(FP), DI
	MOVQ         h+8(FP), SI
	MOVQ         e+16(FP), DX
	MOVQ         n+24(FP), CX
	VBROADCASTSS w+32(FP), Y15
	XORQ         AX, AX
	TESTQ        DX, DX
	JNE          loope

loop:
	VMOVUPS (SI)(AX*4), Y0
	VSUBPS  (DI)(AX*4), Y0, Y0 // h − p
	VMULPS  Y15, Y0, Y0        // w·(h − p)
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, CX
	JLT     loop
	VZEROUPPER
	RET

loope:
	VMOVUPS (SI)(AX*4), Y0
	VSUBPS  (DI)(AX*4), Y0, Y0
	VMULPS  Y15, Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	VADDPS  (DX)(AX*4), Y0, Y1 // e + v
	VMOVUPS Y1, (DX)(AX*4)
	ADDQ    $8, AX
	CMPQ    AX, CX
	JLT     loope
	VZEROUPPER
	RET
