//go:build amd64 && !purego

// AVX layer-norm loops for float32, eight values at a time, with the same operations in the same
// order as the scalar Go loops in layernorm.go (no fused multiply-adds), so they give the same bits.

#include "textflag.h"

// func lnFwd8(y, x, gamma, beta []float32, mean, rstd float32)
// y[j] = ((x[j] − mean)·rstd)·gamma[j] + beta[j] for j < len(y)&^7.
TEXT ·lnFwd8(SB), NOSPLIT, $0-104
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ x_base+24(FP), SI
	MOVQ gamma_base+48(FP), R8
	MOVQ beta_base+72(FP), R9
	VBROADCASTSS mean+96(FP), Y14
	VBROADCASTSS rstd+100(FP), Y15
	SHRQ $3, CX
	TESTQ CX, CX
	JE fwddone
fwdloop:
	VMOVUPS (SI), Y0
	VSUBPS Y14, Y0, Y0
	VMULPS Y15, Y0, Y0
	VMULPS (R8), Y0, Y0
	VADDPS (R9), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R8
	ADDQ $32, R9
	DECQ CX
	JNE fwdloop
fwddone:
	VZEROUPPER
	RET

// func lnGammaAcc8(o, g, x []float32, mean, rstd float32)
// o[j] += (g[j]·(x[j] − mean))·rstd for j < len(o)&^7.
TEXT ·lnGammaAcc8(SB), NOSPLIT, $0-80
	MOVQ o_base+0(FP), DI
	MOVQ o_len+8(FP), CX
	MOVQ g_base+24(FP), SI
	MOVQ x_base+48(FP), R8
	VBROADCASTSS mean+72(FP), Y14
	VBROADCASTSS rstd+76(FP), Y15
	SHRQ $3, CX
	TESTQ CX, CX
	JE gamdone
gamloop:
	VMOVUPS (R8), Y0
	VSUBPS Y14, Y0, Y0
	VMULPS (SI), Y0, Y0
	VMULPS Y15, Y0, Y0
	VADDPS (DI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R8
	DECQ CX
	JNE gamloop
gamdone:
	VZEROUPPER
	RET

// func lnGradX8(dx, g, x, gamma []float32, mean, rstd, sg, sgx float32)
// dx[j] = rstd·((g[j]·gamma[j] − sg) − ((x[j] − mean)·rstd)·sgx) for j < len(dx)&^7.
TEXT ·lnGradX8(SB), NOSPLIT, $0-112
	MOVQ dx_base+0(FP), DI
	MOVQ dx_len+8(FP), CX
	MOVQ g_base+24(FP), SI
	MOVQ x_base+48(FP), R8
	MOVQ gamma_base+72(FP), R9
	VBROADCASTSS mean+96(FP), Y12
	VBROADCASTSS rstd+100(FP), Y13
	VBROADCASTSS sg+104(FP), Y14
	VBROADCASTSS sgx+108(FP), Y15
	SHRQ $3, CX
	TESTQ CX, CX
	JE gxdone
gxloop:
	VMOVUPS (SI), Y0
	VMULPS (R9), Y0, Y0
	VSUBPS Y14, Y0, Y0
	VMOVUPS (R8), Y1
	VSUBPS Y12, Y1, Y1
	VMULPS Y13, Y1, Y1
	VMULPS Y15, Y1, Y1
	VSUBPS Y1, Y0, Y0
	VMULPS Y13, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R8
	ADDQ $32, R9
	DECQ CX
	JNE gxloop
gxdone:
	VZEROUPPER
	RET
