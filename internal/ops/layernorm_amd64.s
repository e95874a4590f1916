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

// func colSum8(y, x []float32, rows, ld int)
// y[j] = x[j] + x[ld+j] + … + x[(rows−1)·ld+j], summed in row order, for j < len(y)&^7: blocks
// of up to 32 columns are kept in four registers while the rows stream past.
TEXT ·colSum8(SB), NOSPLIT, $0-64
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), R10
	SHRQ $3, R10
	MOVQ x_base+24(FP), SI
	MOVQ rows+48(FP), R8
	MOVQ ld+56(FP), R9
	SHLQ $2, R9
csblock:
	CMPQ R10, $4
	JLT cstail
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	MOVQ SI, AX
	MOVQ R8, CX
	TESTQ CX, CX
	JE cs4store
cs4loop:
	VADDPS (AX), Y0, Y0
	VADDPS 32(AX), Y1, Y1
	VADDPS 64(AX), Y2, Y2
	VADDPS 96(AX), Y3, Y3
	ADDQ R9, AX
	DECQ CX
	JNE cs4loop
cs4store:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VMOVUPS Y2, 64(DI)
	VMOVUPS Y3, 96(DI)
	ADDQ $128, DI
	ADDQ $128, SI
	SUBQ $4, R10
	JMP csblock
cstail:
	TESTQ R10, R10
	JE csdone
	VXORPS Y0, Y0, Y0
	MOVQ SI, AX
	MOVQ R8, CX
	TESTQ CX, CX
	JE cs1store
cs1loop:
	VADDPS (AX), Y0, Y0
	ADDQ R9, AX
	DECQ CX
	JNE cs1loop
cs1store:
	VMOVUPS Y0, (DI)
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ R10
	JMP cstail
csdone:
	VZEROUPPER
	RET

// func lnGammaCols8(o, g, x, st []float32, rows, ld int)
// o[j] = Σ_r (g[r·ld+j]·(x[r·ld+j] − st[2r]))·st[2r+1], the sum in row order starting from 0,
// for j < len(o)&^7 (the scalar loop's operations, with o kept in registers over the rows).
TEXT ·lnGammaCols8(SB), NOSPLIT, $0-112
	MOVQ o_base+0(FP), DI
	MOVQ o_len+8(FP), R10
	SHRQ $3, R10
	MOVQ g_base+24(FP), SI
	MOVQ x_base+48(FP), DX
	MOVQ st_base+72(FP), R11
	MOVQ rows+96(FP), R8
	MOVQ ld+104(FP), R9
	SHLQ $2, R9
lgblock:
	TESTQ R10, R10
	JE lgdone
	CMPQ R10, $2
	JLT lgone
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	MOVQ SI, AX
	MOVQ DX, BX
	MOVQ R11, R12
	MOVQ R8, CX
	TESTQ CX, CX
	JE lg2store
lg2loop:
	VBROADCASTSS (R12), Y14
	VBROADCASTSS 4(R12), Y15
	VMOVUPS (BX), Y4
	VSUBPS Y14, Y4, Y4
	VMULPS (AX), Y4, Y4
	VMULPS Y15, Y4, Y4
	VADDPS Y4, Y0, Y0
	VMOVUPS 32(BX), Y5
	VSUBPS Y14, Y5, Y5
	VMULPS 32(AX), Y5, Y5
	VMULPS Y15, Y5, Y5
	VADDPS Y5, Y1, Y1
	ADDQ R9, AX
	ADDQ R9, BX
	ADDQ $8, R12
	DECQ CX
	JNE lg2loop
lg2store:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ $64, DI
	ADDQ $64, SI
	ADDQ $64, DX
	SUBQ $2, R10
	JMP lgblock
lgone:
	VXORPS Y0, Y0, Y0
	MOVQ SI, AX
	MOVQ DX, BX
	MOVQ R11, R12
	MOVQ R8, CX
	TESTQ CX, CX
	JE lg1store
lg1loop:
	VBROADCASTSS (R12), Y14
	VBROADCASTSS 4(R12), Y15
	VMOVUPS (BX), Y4
	VSUBPS Y14, Y4, Y4
	VMULPS (AX), Y4, Y4
	VMULPS Y15, Y4, Y4
	VADDPS Y4, Y0, Y0
	ADDQ R9, AX
	ADDQ R9, BX
	ADDQ $8, R12
	DECQ CX
	JNE lg1loop
lg1store:
	VMOVUPS Y0, (DI)
lgdone:
	VZEROUPPER
	RET

// func lnSumsT8(out, gt, xt, gamma, ms []float32)
// The layer-norm gradient's row sums of eight rows, one row a lane: gt and xt hold g and x
// transposed (row j: the eight rows' values of column j), ms the eight means then the eight
// rstds. out[0:8] gets Σⱼ gy and out[8:16] Σⱼ (gy·(x − mean))·rstd, gy = g·gamma[j], added in
// column order from zero with lnRowSums' operations (no fused multiply-add), over len(gamma)
// columns.
TEXT ·lnSumsT8(SB), NOSPLIT, $0-120
	MOVQ out_base+0(FP), DI
	MOVQ gt_base+24(FP), SI
	MOVQ xt_base+48(FP), DX
	MOVQ gamma_base+72(FP), BX
	MOVQ gamma_len+80(FP), CX
	MOVQ ms_base+96(FP), R8
	VMOVUPS 0(R8), Y6
	VMOVUPS 32(R8), Y7
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	TESTQ CX, CX
	JE lnsumsdone
lnsumsloop:
	VBROADCASTSS (BX), Y2
	VMULPS (SI), Y2, Y2
	VADDPS Y2, Y0, Y0
	VMOVUPS (DX), Y3
	VSUBPS Y6, Y3, Y3
	VMULPS Y3, Y2, Y3
	VMULPS Y7, Y3, Y3
	VADDPS Y3, Y1, Y1
	ADDQ $4, BX
	ADDQ $32, SI
	ADDQ $32, DX
	DECQ CX
	JNE lnsumsloop
lnsumsdone:
	VMOVUPS Y0, 0(DI)
	VMOVUPS Y1, 32(DI)
	VZEROUPPER
	RET
