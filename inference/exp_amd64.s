//go:build amd64 && !purego

#include "textflag.h"

// EXPNEGABS sets Y6 = e^{nb·|x|} for x in Y0 and nb in Y15, as the loop of
// expNegAbs (exp.go): constants at DX (expConsts), the table at R8. Go's
// operand order: VOP b, a, dst is dst = a op b. Clobbers Y1…Y7, Y13, Y14.
#define EXPNEGABS \
	VANDPD     0(DX), Y0, Y1          \ // |x|
	VMULPD     Y15, Y1, Y1            \ // a = nb·|x|
	VMAXPD     32(DX), Y1, Y1         \ // a > expMin ? a : expMin (NaN: expMin)
	VMULPD     64(DX), Y1, Y2         \ // a·256/ln2
	VADDPD     96(DX), Y2, Y2         \ // t = … + magic
	VPSUBQ     96(DX), Y2, Y3         \ // n = bits(t) − bits(magic)
	VSUBPD     96(DX), Y2, Y2         \ // kf = t − magic
	VMULPD     128(DX), Y2, Y4        \ // kf·hi
	VSUBPD     Y4, Y1, Y4             \ // a − kf·hi
	VMULPD     160(DX), Y2, Y5        \ // kf·lo
	VSUBPD     Y5, Y4, Y4             \ // r
	VMULPD     Y4, Y4, Y5             \ // r2 = r·r
	VMULPD     224(DX), Y4, Y6        \ // r·(1/6)
	VADDPD     192(DX), Y6, Y6        \ // ½ + r/6
	VMULPD     256(DX), Y5, Y7        \ // r2·(1/24)
	VADDPD     Y7, Y6, Y6             \ // (½ + r/6) + r2/24
	VMULPD     Y6, Y5, Y6             \ // r2·(…)
	VADDPD     Y6, Y4, Y6             \ // p = r + r2·(…)
	VPAND      320(DX), Y3, Y7        \ // n & 255
	VPCMPEQQ   Y13, Y13, Y13          \ // gather mask: all lanes
	VPGATHERQQ Y13, (R8)(Y7*8), Y14   \ // table[n & 255]
	VPSRLQ     $8, Y3, Y3             \ // n >> 8 (the bits kept below agree with
	VPSLLQ     $52, Y3, Y3            \ //   an arithmetic shift) << 52
	VPADDQ     Y3, Y14, Y14           \ // s = 2^{n>>8}·2^{(n&255)/256}
	VMULPD     Y6, Y14, Y6            \ // s·p
	VADDPD     Y6, Y14, Y6              // e = s + s·p

// func expNegAbsAVX2(dst, x *float64, n int, nb float64, c *[11][4]uint64)
TEXT ·expNegAbsAVX2(SB), NOSPLIT, $0-40
	MOVQ         dst+0(FP), DI
	MOVQ         x+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSD nb+24(FP), Y15
	MOVQ         c+32(FP), DX
	LEAQ         ·expTableBits(SB), R8
	XORQ         AX, AX

loop:
	VMOVUPD (SI)(AX*8), Y0
	EXPNEGABS
	VMOVUPD Y6, (DI)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, CX
	JLT     loop
	VZEROUPPER
	RET

// func sigmoidAVX2(p, x *float64, n int, c *[11][4]uint64)
// p = f/(1 + e) with e = e^{−|x|} and f = e for x < 0 (sign bit), else 1.
TEXT ·sigmoidAVX2(SB), NOSPLIT, $0-32
	MOVQ    p+0(FP), DI
	MOVQ    x+8(FP), SI
	MOVQ    n+16(FP), CX
	MOVQ    c+24(FP), DX
	LEAQ    ·expTableBits(SB), R8
	VMOVUPD 288(DX), Y12           // 1
	VXORPD  Y15, Y15, Y15
	VSUBPD  Y12, Y15, Y15          // nb = −1
	XORQ    AX, AX

loop:
	VMOVUPD   (SI)(AX*8), Y0
	EXPNEGABS
	VADDPD    Y12, Y6, Y7          // 1 + e
	VBLENDVPD Y0, Y6, Y12, Y9      // f = x < 0 ? e : 1
	VDIVPD    Y7, Y9, Y9           // f / (1 + e)
	VMOVUPD   Y9, (DI)(AX*8)
	ADDQ      $4, AX
	CMPQ      AX, CX
	JLT       loop
	VZEROUPPER
	RET
