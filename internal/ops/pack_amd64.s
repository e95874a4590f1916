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

// func transpose8(dst []float32, ldd int, src []float32, lds, rows, cols int)
// dst[r·ldd + p] = src[p·lds + r] for r < rows, p < cols (rows and cols multiples of 8; AVX2:
// blocks of 8×8, eight rows of src loaded and eight rows of dst stored).
TEXT ·transpose8(SB), NOSPLIT, $0-80
	MOVQ dst_base+0(FP), DI
	MOVQ ldd+24(FP), R10
	SHLQ $2, R10
	LEAQ (R10)(R10*2), R11
	MOVQ src_base+32(FP), SI
	MOVQ lds+56(FP), R8
	SHLQ $2, R8
	LEAQ (R8)(R8*2), R9
	MOVQ rows+64(FP), CX
	SHRQ $3, CX
	JE transpose8_done
	MOVQ cols+72(FP), DX
	SHRQ $3, DX
	JE transpose8_done
transpose8_rows:
	MOVQ SI, AX // src block: rows p0.., columns r0..
	MOVQ DI, BX // dst block: rows r0.., columns p0..
	MOVQ DX, R12
transpose8_cols:
	LEAQ (AX)(R8*4), R13
	VMOVUPS (AX), Y0
	VMOVUPS (AX)(R8*1), Y1
	VMOVUPS (AX)(R8*2), Y2
	VMOVUPS (AX)(R9*1), Y3
	VMOVUPS (R13), Y4
	VMOVUPS (R13)(R8*1), Y5
	VMOVUPS (R13)(R8*2), Y6
	VMOVUPS (R13)(R9*1), Y7
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	LEAQ (BX)(R10*4), R14
	VMOVUPS Y8, (BX)
	VMOVUPS Y9, (BX)(R10*1)
	VMOVUPS Y10, (BX)(R10*2)
	VMOVUPS Y11, (BX)(R11*1)
	VMOVUPS Y12, (R14)
	VMOVUPS Y13, (R14)(R10*1)
	VMOVUPS Y14, (R14)(R10*2)
	VMOVUPS Y15, (R14)(R11*1)
	LEAQ (AX)(R8*8), AX
	ADDQ $32, BX
	DECQ R12
	JNE transpose8_cols
	ADDQ $32, SI
	LEAQ (DI)(R10*8), DI
	DECQ CX
	JNE transpose8_rows
transpose8_done:
	VZEROUPPER
	RET

// func copyRowsWide16(dst, src []float32, ldb, kc, np int)
// dst[q·kc·16 + p·16 + j] = src[p·ldb + q·16 + j] for q < np, p < kc, j < 16: np panels of 16
// columns packed row by row (each row of src read once, left to right), for a B whose rows are
// far apart, where copyRows16's walk down one panel's column strip reads a line per row.
// The caller checks the bounds.
TEXT ·copyRowsWide16(SB), NOSPLIT, $0-72
	MOVQ dst_base+0(FP), DI
	MOVQ src_base+24(FP), SI
	MOVQ ldb+48(FP), DX
	SHLQ $2, DX
	MOVQ kc+56(FP), CX
	MOVQ np+64(FP), R9
	MOVQ CX, R8
	SHLQ $6, R8
	TESTQ CX, CX
	JE copyRowsWide16_done
	TESTQ R9, R9
	JE copyRowsWide16_done
copyRowsWide16_p:
	MOVQ SI, R10
	MOVQ DI, R11
	MOVQ R9, R12
copyRowsWide16_q:
	VMOVUPS (R10), Y0
	VMOVUPS 32(R10), Y1
	VMOVUPS Y0, (R11)
	VMOVUPS Y1, 32(R11)
	ADDQ $64, R10
	ADDQ R8, R11
	DECQ R12
	JNE copyRowsWide16_q
	ADDQ DX, SI
	ADDQ $64, DI
	DECQ CX
	JNE copyRowsWide16_p
copyRowsWide16_done:
	VZEROUPPER
	RET
