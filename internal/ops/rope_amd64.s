//go:build amd64 && !purego

// RoPE's rotation of float32 rows, eight values (four pairs) at a time (AVX).

#include "textflag.h"

// func rotPairs8(x, y, cs, sc *float32, heads, dh, n int)
// For each head h, j < n in steps of 8 (x, y at h·dh): with e = (x0 x0 x2 x2 …) and
// o = (x1 x1 x3 x3 …), y = e·cs ∓ o·sc (VADDSUBPS: the even lanes subtract, the odd ones add):
// y0 = x0·c − x1·s, y1 = x0·s + x1·c, each product rounded.
TEXT ·rotPairs8(SB), NOSPLIT, $0-56
	MOVQ x+0(FP), SI
	MOVQ y+8(FP), DI
	MOVQ cs+16(FP), R8
	MOVQ sc+24(FP), R9
	MOVQ heads+32(FP), CX
	MOVQ dh+40(FP), DX
	SHLQ $2, DX
	MOVQ n+48(FP), BX
	SHLQ $2, BX

head:
	XORQ AX, AX

pairs:
	VMOVSLDUP (SI)(AX*1), Y0
	VMOVSHDUP (SI)(AX*1), Y1
	VMULPS    (R8)(AX*1), Y0, Y0
	VMULPS    (R9)(AX*1), Y1, Y1
	VADDSUBPS Y1, Y0, Y0
	VMOVUPS   Y0, (DI)(AX*1)
	ADDQ      $32, AX
	CMPQ      AX, BX
	JLT       pairs
	ADDQ      DX, SI
	ADDQ      DX, DI
	DECQ      CX
	JNZ       head
	VZEROUPPER
	RET
