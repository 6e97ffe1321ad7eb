//go:build amd64 && !purego

#include "textflag.h"

// func addTilesAVX2(dst *float64, ld int, w *float64, ldw int, tiles, quads int, idx *int32, span *int32, M int)
//
// For each tile of 16 entries (then each quad of 4): for each row m of
// dst, load the tile into Y0–Y3, add the tiles of the rows idx[span[2m]:
// span[2m+1]] of w one after another (subtract row ^j for j < 0), store. Registers: DI dst + tile
// offset, SI w + tile offset, R8 ld, R9 ldw, R10 idx, R11 span, R12 M,
// CX rows left, BX span pointer, DX idx position, R13 idx end, AX row
// address, R14 dst row address.
TEXT ·addTilesAVX2(SB), NOSPLIT, $0-72
	MOVQ dst+0(FP), DI
	MOVQ ld+8(FP), R8
	MOVQ w+16(FP), SI
	MOVQ ldw+24(FP), R9
	MOVQ idx+48(FP), R10
	MOVQ span+56(FP), R11
	MOVQ M+64(FP), R12

tile16:
	DECQ tiles+32(FP)
	JLT  quad4
	MOVQ R12, CX
	MOVQ R11, BX
	MOVQ DI, R14

row16:
	VMOVUPD 0(R14), Y0
	VMOVUPD 32(R14), Y1
	VMOVUPD 64(R14), Y2
	VMOVUPD 96(R14), Y3
	MOVLQSX 0(BX), DX
	MOVLQSX 4(BX), R13
	CMPQ    DX, R13
	JGE     store16

add16:
	MOVLQSX (R10)(DX*4), AX
	TESTQ   AX, AX
	JLT     sub16
	IMULQ   R9, AX
	ADDQ    SI, AX
	VADDPD  0(AX), Y0, Y0
	VADDPD  32(AX), Y1, Y1
	VADDPD  64(AX), Y2, Y2
	VADDPD  96(AX), Y3, Y3
	INCQ    DX
	CMPQ    DX, R13
	JGE     store16
	MOVLQSX (R10)(DX*4), AX // the next row, unrolled
	TESTQ   AX, AX
	JLT     sub16
	IMULQ   R9, AX
	ADDQ    SI, AX
	VADDPD  0(AX), Y0, Y0
	VADDPD  32(AX), Y1, Y1
	VADDPD  64(AX), Y2, Y2
	VADDPD  96(AX), Y3, Y3
	INCQ    DX
	CMPQ    DX, R13
	JLT     add16
	JMP     store16

sub16:
	NOTQ    AX
	IMULQ   R9, AX
	ADDQ    SI, AX
	VSUBPD  0(AX), Y0, Y0
	VSUBPD  32(AX), Y1, Y1
	VSUBPD  64(AX), Y2, Y2
	VSUBPD  96(AX), Y3, Y3
	INCQ    DX
	CMPQ    DX, R13
	JLT     add16

store16:
	VMOVUPD Y0, 0(R14)
	VMOVUPD Y1, 32(R14)
	VMOVUPD Y2, 64(R14)
	VMOVUPD Y3, 96(R14)
	ADDQ    R8, R14
	ADDQ    $8, BX
	DECQ    CX
	JNE     row16
	ADDQ    $128, DI
	ADDQ    $128, SI
	JMP     tile16

quad4:
	DECQ quads+40(FP)
	JLT  done
	MOVQ R12, CX
	MOVQ R11, BX
	MOVQ DI, R14

row4:
	VMOVUPD 0(R14), Y0
	MOVLQSX 0(BX), DX
	MOVLQSX 4(BX), R13
	CMPQ    DX, R13
	JGE     store4

add4:
	MOVLQSX (R10)(DX*4), AX
	TESTQ   AX, AX
	JLT     sub4
	IMULQ   R9, AX
	ADDQ    SI, AX
	VADDPD  0(AX), Y0, Y0
	INCQ    DX
	CMPQ    DX, R13
	JLT     add4
	JMP     store4

sub4:
	NOTQ    AX
	IMULQ   R9, AX
	ADDQ    SI, AX
	VSUBPD  0(AX), Y0, Y0
	INCQ    DX
	CMPQ    DX, R13
	JLT     add4

store4:
	VMOVUPD Y0, 0(R14)
	ADDQ    R8, R14
	ADDQ    $8, BX
	DECQ    CX
	JNE     row4
	ADDQ    $32, DI
	ADDQ    $32, SI
	JMP     quad4

done:
	VZEROUPPER
	RET
