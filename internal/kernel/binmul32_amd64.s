//go:build amd64 && !purego

#include "textflag.h"

// func binTableAVX2(t *float32, b *float32, ldb, nc int)
// Per chunk: Y0…Y3 = the four 8-lane rows of b; the 16 subset sums
// stored at t (512 bytes per chunk) as binTableGo forms them.
TEXT ·binTableAVX2(SB), NOSPLIT, $0-32
	MOVQ t+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ ldb+16(FP), R8
	MOVQ nc+24(FP), CX
	VXORPS Y15, Y15, Y15

tloop:
	VMOVUPS (SI), Y0
	LEAQ    (SI)(R8*1), R9
	VMOVUPS (R9), Y1
	ADDQ    R8, R9
	VMOVUPS (R9), Y2
	ADDQ    R8, R9
	VMOVUPS (R9), Y3
	ADDQ    R8, R9
	MOVQ    R9, SI
	VADDPS  Y1, Y0, Y4          // t3 = b0 + b1
	VADDPS  Y2, Y0, Y5          // t5 = b0 + b2
	VADDPS  Y2, Y1, Y6          // t6 = b1 + b2
	VADDPS  Y2, Y4, Y7          // t7 = t3 + b2
	VMOVUPS Y15, 0(DI)
	VMOVUPS Y0, 32(DI)
	VMOVUPS Y1, 64(DI)
	VMOVUPS Y4, 96(DI)
	VMOVUPS Y2, 128(DI)
	VMOVUPS Y5, 160(DI)
	VMOVUPS Y6, 192(DI)
	VMOVUPS Y7, 224(DI)
	VMOVUPS Y3, 256(DI)
	VADDPS  Y3, Y0, Y8
	VADDPS  Y3, Y1, Y9
	VADDPS  Y3, Y4, Y10
	VADDPS  Y3, Y2, Y11
	VMOVUPS Y8, 288(DI)
	VMOVUPS Y9, 320(DI)
	VMOVUPS Y10, 352(DI)
	VMOVUPS Y11, 384(DI)
	VADDPS  Y3, Y5, Y12
	VADDPS  Y3, Y6, Y13
	VADDPS  Y3, Y7, Y14
	VMOVUPS Y12, 416(DI)
	VMOVUPS Y13, 448(DI)
	VMOVUPS Y14, 480(DI)
	ADDQ    $512, DI
	DECQ    CX
	JNZ     tloop
	VZEROUPPER
	RET

// func binSumAVX2(t *float32, codes *int32, nc int, c *float32, ldc, add int)
// Y0…Y7: the eight rows' sums, starting from c's rows (add) or zero; per
// chunk, eight byte offsets into its table (512 bytes per chunk) and eight
// additions.
TEXT ·binSumAVX2(SB), NOSPLIT, $0-48
	MOVQ t+0(FP), SI
	MOVQ codes+8(FP), DI
	MOVQ nc+16(FP), CX
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R10
	MOVQ add+40(FP), R11
	TESTQ R11, R11
	JNZ  load
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	JMP  sloop

load:
	MOVQ    DX, R12
	VMOVUPS (R12), Y0
	ADDQ    R10, R12
	VMOVUPS (R12), Y1
	ADDQ    R10, R12
	VMOVUPS (R12), Y2
	ADDQ    R10, R12
	VMOVUPS (R12), Y3
	ADDQ    R10, R12
	VMOVUPS (R12), Y4
	ADDQ    R10, R12
	VMOVUPS (R12), Y5
	ADDQ    R10, R12
	VMOVUPS (R12), Y6
	ADDQ    R10, R12
	VMOVUPS (R12), Y7

sloop:
	MOVQ   0(DI), AX
	MOVQ   8(DI), R8
	MOVL   AX, BX
	SHRQ   $32, AX
	MOVL   R8, R9
	SHRQ   $32, R8
	VADDPS (SI)(BX*1), Y0, Y0
	VADDPS (SI)(AX*1), Y1, Y1
	VADDPS (SI)(R9*1), Y2, Y2
	VADDPS (SI)(R8*1), Y3, Y3
	MOVQ   16(DI), AX
	MOVQ   24(DI), R8
	MOVL   AX, BX
	SHRQ   $32, AX
	MOVL   R8, R9
	SHRQ   $32, R8
	VADDPS (SI)(BX*1), Y4, Y4
	VADDPS (SI)(AX*1), Y5, Y5
	VADDPS (SI)(R9*1), Y6, Y6
	VADDPS (SI)(R8*1), Y7, Y7
	ADDQ   $32, DI
	ADDQ   $512, SI
	DECQ   CX
	JNZ    sloop

	VMOVUPS Y0, (DX)
	ADDQ    R10, DX
	VMOVUPS Y1, (DX)
	ADDQ    R10, DX
	VMOVUPS Y2, (DX)
	ADDQ    R10, DX
	VMOVUPS Y3, (DX)
	ADDQ    R10, DX
	VMOVUPS Y4, (DX)
	ADDQ    R10, DX
	VMOVUPS Y5, (DX)
	ADDQ    R10, DX
	VMOVUPS Y6, (DX)
	ADDQ    R10, DX
	VMOVUPS Y7, (DX)
	VZEROUPPER
	RET

// func binCodesRowAVX2(dst *int32, a *float32, n8 int)
// Per eight entries of a: the mask of those ≠ 0 (VCMPPS, VMOVMSKPS), its
// low nibble times 32 the code of the first chunk (at g), its high nibble
// that of the second (at g + 32 bytes); g advances 64 bytes.
TEXT ·binCodesRowAVX2(SB), NOSPLIT, $0-24
	MOVQ   dst+0(FP), DI
	MOVQ   a+8(FP), SI
	MOVQ   n8+16(FP), CX
	VXORPS Y15, Y15, Y15

rloop:
	VMOVUPS   (SI), Y0
	VCMPPS    $4, Y15, Y0, Y0
	VMOVMSKPS Y0, AX
	MOVL      AX, BX
	ANDL      $15, AX
	SHRL      $4, BX
	SHLL      $5, AX
	SHLL      $5, BX
	MOVL      AX, (DI)
	MOVL      BX, 32(DI)
	ADDQ      $32, SI
	ADDQ      $64, DI
	DECQ      CX
	JNZ       rloop
	VZEROUPPER
	RET

// func binCodesTAVX2(dst *int32, a *float32, lda, nc int)
// Per chunk: the four rows of eight entries (row stride lda bytes)
// compared with zero, row i's lanes masked to 32·2ⁱ and or-ed: the eight
// codes, stored at g (32 bytes per chunk).
TEXT ·binCodesTAVX2(SB), NOSPLIT, $0-32
	MOVQ         dst+0(FP), DI
	MOVQ         a+8(FP), SI
	MOVQ         lda+16(FP), R8
	MOVQ         nc+24(FP), CX
	VXORPS       Y15, Y15, Y15
	MOVL         $32, AX
	MOVQ         AX, X11
	VPBROADCASTD X11, Y11
	VPSLLD       $1, Y11, Y12
	VPSLLD       $2, Y11, Y13
	VPSLLD       $3, Y11, Y14

tcloop:
	LEAQ    (SI)(R8*1), R9
	VCMPPS  $4, (SI), Y15, Y0
	VCMPPS  $4, (R9), Y15, Y1
	ADDQ    R8, R9
	VCMPPS  $4, (R9), Y15, Y2
	ADDQ    R8, R9
	VCMPPS  $4, (R9), Y15, Y3
	ADDQ    R8, R9
	MOVQ    R9, SI
	VPAND   Y11, Y0, Y0
	VPAND   Y12, Y1, Y1
	VPAND   Y13, Y2, Y2
	VPAND   Y14, Y3, Y3
	VPOR    Y1, Y0, Y0
	VPOR    Y3, Y2, Y2
	VPOR    Y2, Y0, Y0
	VMOVDQU Y0, (DI)
	ADDQ    $32, DI
	DECQ    CX
	JNZ     tcloop
	VZEROUPPER
	RET
