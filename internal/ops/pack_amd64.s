//go:build amd64 && !purego

#include "textflag.h"

// func copyRows16(dst, src []float32, ldb, kc int)
// dst[p·16 : p·16+16] = src[p·ldb : p·ldb+16] for p < kc (AVX2: two YMM a row).
TEXT ·copyRows16(SB), NOSPLIT, $0-64
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ ldb+48(FP), DX
	SHLQ $2, DX
	MOVQ kc+56(FP), CX
	TESTQ CX, CX
	JE copyRows16_done
copyRows16_loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ DX, SI
	ADDQ $64, DI
	DECQ CX
	JNE copyRows16_loop
copyRows16_done:
	VZEROUPPER
	RET

// func copyRows32(dst, src []float32, ldb, kc int)
// dst[p·32 : p·32+32] = src[p·ldb : p·ldb+32] for p < kc (AVX512F: two ZMM a row).
TEXT ·copyRows32(SB), NOSPLIT, $0-64
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ ldb+48(FP), DX
	SHLQ $2, DX
	MOVQ kc+56(FP), CX
	TESTQ CX, CX
	JE copyRows32_done
copyRows32_loop:
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	ADDQ DX, SI
	ADDQ $128, DI
	DECQ CX
	JNE copyRows32_loop
copyRows32_done:
	VZEROUPPER
	RET

// func copyRowsSum16(dst, src []float32, ldb, kc int, sum []float32)
// copyRows16, adding each row to sum[0:16] as it goes (sum[j] += src[p·ldb+j], p in order).
TEXT ·copyRowsSum16(SB), NOSPLIT, $0-88
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ ldb+48(FP), DX
	SHLQ $2, DX
	MOVQ kc+56(FP), CX
	MOVQ sum_base+64(FP), R8
	VMOVUPS (R8), Y2
	VMOVUPS 32(R8), Y3
	TESTQ CX, CX
	JE copyRowsSum16_done
copyRowsSum16_loop:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	VADDPS Y0, Y2, Y2
	VADDPS Y1, Y3, Y3
	ADDQ DX, SI
	ADDQ $64, DI
	DECQ CX
	JNE copyRowsSum16_loop
copyRowsSum16_done:
	VMOVUPS Y2, (R8)
	VMOVUPS Y3, 32(R8)
	VZEROUPPER
	RET

// func copyRowsSum32(dst, src []float32, ldb, kc int, sum []float32)
// copyRows32, adding each row to sum[0:32] as it goes (AVX512F).
TEXT ·copyRowsSum32(SB), NOSPLIT, $0-88
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ ldb+48(FP), DX
	SHLQ $2, DX
	MOVQ kc+56(FP), CX
	MOVQ sum_base+64(FP), R8
	VMOVUPS (R8), Z2
	VMOVUPS 64(R8), Z3
	TESTQ CX, CX
	JE copyRowsSum32_done
copyRowsSum32_loop:
	VMOVUPS (SI), Z0
	VMOVUPS 64(SI), Z1
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VADDPS Z0, Z2, Z2
	VADDPS Z1, Z3, Z3
	ADDQ DX, SI
	ADDQ $128, DI
	DECQ CX
	JNE copyRowsSum32_loop
copyRowsSum32_done:
	VMOVUPS Z2, (R8)
	VMOVUPS Z3, 64(R8)
	VZEROUPPER
	RET
