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
