//go:build amd64 && !purego

// FIRE's MLP (ops.fireChunksLanes, fire_lanes.go) on sixteen keys at a time: x = ar / bn, then
// for every hidden unit k, z = max(w1[k]·x + b1[k], 0) and acc_h += w2[k, h]·z for the group's
// four heads, each product and sum rounded (no fused multiply-add), so that every lane has the
// bits of the Go lanes. The results are stored as float32, or as float64 (exactly) when wide.

#include "textflag.h"

// STORE16Z stores the float32 lanes of Z at (R13), as float64 when R12 is 128 (the chunk's bytes).
#define STORE16Z(Z, YLO, ZLO, YHI, ZHI) \
	CMPQ R12, $64 \
	JNE 3(PC) \
	VMOVUPS Z, (R13) \
	JMP 6(PC) \
	VCVTPS2PD YLO, Z5 \
	VEXTRACTF64X4 $1, Z, Y6 \
	VCVTPS2PD Y6, Z6 \
	VMOVUPD Z5, (R13) \
	VMOVUPD Z6, 64(R13)

// func fireMLP16AVX512(out unsafe.Pointer, stride int, ar []float32, bn float32, w1, b1, w2, b2 []float32, nc, nh int, wide bool)
TEXT ·fireMLP16AVX512(SB), NOSPLIT, $0-161
	MOVQ out+0(FP), DI
	MOVQ stride+8(FP), R8
	MOVQ ar_base+16(FP), SI
	VBROADCASTSS bn+40(FP), Z31
	MOVQ w1_base+48(FP), AX
	MOVQ w1_len+56(FP), R9
	LEAQ (AX)(R9*4), R9 // the end of w1
	MOVQ b1_base+72(FP), BX
	MOVQ w2_base+96(FP), CX
	MOVQ b2_base+120(FP), DX
	MOVQ nc+144(FP), R10
	MOVQ nh+152(FP), R11
	MOVBQZX wide+160(FP), R12
	VPXORD Z30, Z30, Z30
	SHLQ $2, R8 // the stride in bytes: float32
	SHLQ $6, R12
	ADDQ $64, R12 // a chunk's bytes in out: 64 (float32) or 128 (float64)
	CMPQ R12, $64
	JE fire512_chunk
	SHLQ $1, R8 // float64

fire512_chunk:
	VMOVUPS (SI), Z0
	VDIVPS Z31, Z0, Z0 // x = ar / bn
	VBROADCASTSS (DX), Z1
	VBROADCASTSS 4(DX), Z2
	VBROADCASTSS 8(DX), Z3
	VBROADCASTSS 12(DX), Z4
	MOVQ AX, R13
	MOVQ BX, R14
	MOVQ CX, R15

fire512_unit:
	VMULPS.BCST (R13), Z0, Z5 // w1[k]·x
	VADDPS.BCST (R14), Z5, Z5 // + b1[k]
	VMAXPS Z30, Z5, Z5        // max(z, 0): 0 when z is NaN
	VMULPS.BCST (R15), Z5, Z6
	VADDPS Z6, Z1, Z1
	VMULPS.BCST 4(R15), Z5, Z7
	VADDPS Z7, Z2, Z2
	VMULPS.BCST 8(R15), Z5, Z8
	VADDPS Z8, Z3, Z3
	VMULPS.BCST 12(R15), Z5, Z9
	VADDPS Z9, Z4, Z4
	ADDQ $4, R13
	ADDQ $4, R14
	ADDQ $16, R15
	CMPQ R13, R9
	JB fire512_unit

	MOVQ DI, R13
	STORE16Z(Z1, Y1, Z5, Y6, Z6)
	CMPQ R11, $2
	JLT fire512_next
	ADDQ R8, R13
	STORE16Z(Z2, Y2, Z5, Y6, Z6)
	CMPQ R11, $3
	JLT fire512_next
	ADDQ R8, R13
	STORE16Z(Z3, Y3, Z5, Y6, Z6)
	CMPQ R11, $4
	JLT fire512_next
	ADDQ R8, R13
	STORE16Z(Z4, Y4, Z5, Y6, Z6)

fire512_next:
	ADDQ $64, SI
	ADDQ R12, DI
	DECQ R10
	JNZ fire512_chunk
	VZEROUPPER
	RET

// STORE16Y stores the float32 lanes of LO (keys 0-7) and HI (8-15) at (R13), as float64 when
// R12 is 128.
#define STORE16Y(LO, XLO, HI, XHI) \
	CMPQ R12, $64 \
	JNE 4(PC) \
	VMOVUPS LO, (R13) \
	VMOVUPS HI, 32(R13) \
	JMP 11(PC) \
	VCVTPS2PD XLO, Y12 \
	VEXTRACTF128 $1, LO, X13 \
	VCVTPS2PD X13, Y13 \
	VMOVUPD Y12, (R13) \
	VMOVUPD Y13, 32(R13) \
	VCVTPS2PD XHI, Y12 \
	VEXTRACTF128 $1, HI, X13 \
	VCVTPS2PD X13, Y13 \
	VMOVUPD Y12, 64(R13) \
	VMOVUPD Y13, 96(R13)

// HEADY adds head H's products, acc (LO, HI) += w2[k, H]·z, z in Y12 (keys 0-7) and Y13 (8-15).
#define HEADY(OFF, LO, HI) \
	VBROADCASTSS OFF(R15), Y14 \
	VMULPS Y14, Y12, Y15 \
	VADDPS Y15, LO, LO \
	VMULPS Y14, Y13, Y15 \
	VADDPS Y15, HI, HI

// func fireMLP16AVX2(out unsafe.Pointer, stride int, ar []float32, bn float32, w1, b1, w2, b2 []float32, nc, nh int, wide bool)
TEXT ·fireMLP16AVX2(SB), NOSPLIT, $0-161
	MOVQ out+0(FP), DI
	MOVQ stride+8(FP), R8
	MOVQ ar_base+16(FP), SI
	VBROADCASTSS bn+40(FP), Y10
	MOVQ w1_base+48(FP), AX
	MOVQ w1_len+56(FP), R9
	LEAQ (AX)(R9*4), R9 // the end of w1
	MOVQ b1_base+72(FP), BX
	MOVQ w2_base+96(FP), CX
	MOVQ b2_base+120(FP), DX
	MOVQ nc+144(FP), R10
	MOVQ nh+152(FP), R11
	MOVBQZX wide+160(FP), R12
	VXORPS Y11, Y11, Y11
	SHLQ $2, R8
	SHLQ $6, R12
	ADDQ $64, R12
	CMPQ R12, $64
	JE fire256_chunk
	SHLQ $1, R8

fire256_chunk:
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VDIVPS Y10, Y0, Y0 // x = ar / bn
	VDIVPS Y10, Y1, Y1
	VBROADCASTSS (DX), Y2
	VMOVAPS Y2, Y3
	VBROADCASTSS 4(DX), Y4
	VMOVAPS Y4, Y5
	VBROADCASTSS 8(DX), Y6
	VMOVAPS Y6, Y7
	VBROADCASTSS 12(DX), Y8
	VMOVAPS Y8, Y9
	MOVQ AX, R13
	MOVQ BX, R14
	MOVQ CX, R15

fire256_unit:
	VBROADCASTSS (R13), Y14
	VMULPS Y14, Y0, Y12 // w1[k]·x
	VMULPS Y14, Y1, Y13
	VBROADCASTSS (R14), Y14
	VADDPS Y14, Y12, Y12 // + b1[k]
	VADDPS Y14, Y13, Y13
	VMAXPS Y11, Y12, Y12 // max(z, 0): 0 when z is NaN
	VMAXPS Y11, Y13, Y13
	HEADY(0, Y2, Y3)
	HEADY(4, Y4, Y5)
	HEADY(8, Y6, Y7)
	HEADY(12, Y8, Y9)
	ADDQ $4, R13
	ADDQ $4, R14
	ADDQ $16, R15
	CMPQ R13, R9
	JB fire256_unit

	MOVQ DI, R13
	STORE16Y(Y2, X2, Y3, X3)
	CMPQ R11, $2
	JLT fire256_next
	ADDQ R8, R13
	STORE16Y(Y4, X4, Y5, X5)
	CMPQ R11, $3
	JLT fire256_next
	ADDQ R8, R13
	STORE16Y(Y6, X6, Y7, X7)
	CMPQ R11, $4
	JLT fire256_next
	ADDQ R8, R13
	STORE16Y(Y8, X8, Y9, X9)

fire256_next:
	ADDQ $64, SI
	ADDQ R12, DI
	DECQ R10
	JNZ fire256_chunk
	VZEROUPPER
	RET

// FIRE's gradient (ops.fireGradChunksLanes) on sixteen keys at a time: per lane, the sums of the
// parameters' gradients in acc (slot t's sixteen lanes at 64·t: per hidden unit W2[k, ·], W1[k],
// b1[k], then b2, c, m), each product and sum rounded as in the lanes.

// func fireGrad16AVX512(acc, g []float32, gs int, a, dA []float32, bn, dBdc, kfac float32, w1, b1, w2 []float32, H, nc int)
TEXT ·fireGrad16AVX512(SB), NOSPLIT, $0-208
	MOVQ g_base+24(FP), SI
	MOVQ gs+48(FP), R8
	SHLQ $2, R8 // the heads' stride in bytes
	MOVQ a_base+56(FP), DI
	MOVQ dA_base+80(FP), R9
	VBROADCASTSS bn+104(FP), Z31
	VBROADCASTSS dBdc+108(FP), Z29
	VBROADCASTSS kfac+112(FP), Z28
	MOVQ H+192(FP), R11
	MOVQ nc+200(FP), R10
	VPXORD Z30, Z30, Z30

fireg512_chunk:
	MOVQ w1_base+120(FP), R12
	MOVQ w1_len+128(FP), CX
	LEAQ (R12)(CX*4), CX // the end of w1
	MOVQ b1_base+144(FP), R13
	MOVQ w2_base+168(FP), R14
	MOVQ acc_base+0(FP), R15
	VMOVUPS (DI), Z0
	VDIVPS Z31, Z0, Z0 // x = a / bn
	VPXORD Z1, Z1, Z1  // dx

fireg512_unit:
	VMULPS.BCST (R12), Z0, Z2 // z = w1[k]·x
	VADDPS.BCST (R13), Z2, Z2 // + b1[k]
	VCMPPS $0x1e, Z30, Z2, K1 // z > 0 (false for NaN)
	VMAXPS Z30, Z2, Z3        // r = max(z, 0)
	MOVQ SI, AX
	VMOVUPS (AX), Z5           // g_0
	VMULPS.BCST (R14), Z5, Z4  // dz = g_0·w2[k, 0]
	VMULPS Z3, Z5, Z7
	VADDPS (R15), Z7, Z7       // dW2[k, 0] += g_0·r
	VMOVUPS Z7, (R15)
	ADDQ $4, R14
	ADDQ $64, R15
	MOVQ R11, DX
	DECQ DX
	JZ fireg512_heads_done

fireg512_head:
	ADDQ R8, AX
	VMOVUPS (AX), Z5          // g_h
	VMULPS.BCST (R14), Z5, Z6
	VADDPS Z6, Z4, Z4         // dz += g_h·w2[k, h]
	VMULPS Z3, Z5, Z7
	VADDPS (R15), Z7, Z7      // dW2[k, h] += g_h·r
	VMOVUPS Z7, (R15)
	ADDQ $4, R14
	ADDQ $64, R15
	DECQ DX
	JNZ fireg512_head

fireg512_heads_done:
	VMOVAPS.Z Z4, K1, Z4      // dz = 0 unless z > 0
	VMULPS Z0, Z4, Z7
	VADDPS (R15), Z7, Z7      // dW1[k] += dz·x
	VMOVUPS Z7, (R15)
	VADDPS 64(R15), Z4, Z7    // db1[k] += dz
	VMOVUPS Z7, 64(R15)
	VMULPS.BCST (R12), Z4, Z7
	VADDPS Z7, Z1, Z1         // dx += dz·w1[k]
	ADDQ $128, R15
	ADDQ $4, R12
	ADDQ $4, R13
	CMPQ R12, CX
	JB fireg512_unit

	MOVQ SI, AX
	MOVQ R11, DX

fireg512_b2:
	VMOVUPS (AX), Z5
	VADDPS (R15), Z5, Z5 // db2[h] += g_h
	VMOVUPS Z5, (R15)
	ADDQ R8, AX
	ADDQ $64, R15
	DECQ DX
	JNZ fireg512_b2

	VDIVPS Z31, Z1, Z8   // u = dx / bn
	VMOVUPS (R9), Z10    // ∂ψ(d)/∂c
	VMULPS Z29, Z0, Z9   // x·dBdc
	VSUBPS Z9, Z10, Z9   // dA − x·dBdc
	VMULPS Z9, Z8, Z9
	VADDPS (R15), Z9, Z9 // dc += u·(dA − x·dBdc)
	VMOVUPS Z9, (R15)
	VMULPS Z0, Z8, Z9    // u·x
	VMULPS Z28, Z9, Z9
	VADDPS 64(R15), Z9, Z9 // dm += u·x·kfac
	VMOVUPS Z9, 64(R15)

	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R9
	DECQ R10
	JNZ fireg512_chunk
	VZEROUPPER
	RET

// func fireGrad8AVX2(acc, g []float32, gs int, a, dA []float32, bn, dBdc, kfac float32, w1, b1, w2 []float32, H, nc int)
//
// fireGrad16AVX512 eight lanes at a time: the chunks' keys 0-7, then 8-15 (each lane's
// operations are the same either way); acc's slots are still sixteen lanes wide.
TEXT ·fireGrad8AVX2(SB), NOSPLIT, $0-208
	MOVQ g_base+24(FP), SI
	MOVQ gs+48(FP), R8
	SHLQ $2, R8
	MOVQ a_base+56(FP), DI
	MOVQ dA_base+80(FP), R9
	MOVQ H+192(FP), R11
	MOVQ nc+200(FP), R10
	SHLQ $1, R10 // halves of chunks
	XORQ BX, BX  // the half's offset in acc: 0 or 32
	VXORPS Y15, Y15, Y15

fireg256_half:
	MOVQ w1_base+120(FP), R12
	MOVQ w1_len+128(FP), CX
	LEAQ (R12)(CX*4), CX
	MOVQ b1_base+144(FP), R13
	MOVQ w2_base+168(FP), R14
	MOVQ acc_base+0(FP), R15
	ADDQ BX, R15
	VBROADCASTSS bn+104(FP), Y14
	VMOVUPS (DI), Y0
	VDIVPS Y14, Y0, Y0 // x = a / bn
	VXORPS Y1, Y1, Y1  // dx

fireg256_unit:
	VBROADCASTSS (R12), Y11
	VMULPS Y11, Y0, Y2 // z = w1[k]·x
	VBROADCASTSS (R13), Y12
	VADDPS Y12, Y2, Y2 // + b1[k]
	VCMPPS $0x1e, Y15, Y2, Y13 // z > 0
	VMAXPS Y15, Y2, Y3         // r
	MOVQ SI, AX
	VMOVUPS (AX), Y5
	VBROADCASTSS (R14), Y12
	VMULPS Y12, Y5, Y4 // dz = g_0·w2[k, 0]
	VMULPS Y3, Y5, Y7
	VADDPS (R15), Y7, Y7
	VMOVUPS Y7, (R15)
	ADDQ $4, R14
	ADDQ $64, R15
	MOVQ R11, DX
	DECQ DX
	JZ fireg256_heads_done

fireg256_head:
	ADDQ R8, AX
	VMOVUPS (AX), Y5
	VBROADCASTSS (R14), Y12
	VMULPS Y12, Y5, Y6
	VADDPS Y6, Y4, Y4
	VMULPS Y3, Y5, Y7
	VADDPS (R15), Y7, Y7
	VMOVUPS Y7, (R15)
	ADDQ $4, R14
	ADDQ $64, R15
	DECQ DX
	JNZ fireg256_head

fireg256_heads_done:
	VANDPS Y13, Y4, Y4 // dz = 0 unless z > 0
	VMULPS Y0, Y4, Y7
	VADDPS (R15), Y7, Y7
	VMOVUPS Y7, (R15)
	VADDPS 64(R15), Y4, Y7
	VMOVUPS Y7, 64(R15)
	VMULPS Y11, Y4, Y7
	VADDPS Y7, Y1, Y1
	ADDQ $128, R15
	ADDQ $4, R12
	ADDQ $4, R13
	CMPQ R12, CX
	JB fireg256_unit

	MOVQ SI, AX
	MOVQ R11, DX

fireg256_b2:
	VMOVUPS (AX), Y5
	VADDPS (R15), Y5, Y5
	VMOVUPS Y5, (R15)
	ADDQ R8, AX
	ADDQ $64, R15
	DECQ DX
	JNZ fireg256_b2

	VDIVPS Y14, Y1, Y8 // u = dx / bn
	VMOVUPS (R9), Y10
	VBROADCASTSS dBdc+108(FP), Y12
	VMULPS Y12, Y0, Y9
	VSUBPS Y9, Y10, Y9
	VMULPS Y9, Y8, Y9
	VADDPS (R15), Y9, Y9
	VMOVUPS Y9, (R15)
	VBROADCASTSS kfac+112(FP), Y12
	VMULPS Y0, Y8, Y9
	VMULPS Y12, Y9, Y9
	VADDPS 64(R15), Y9, Y9
	VMOVUPS Y9, 64(R15)

	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R9
	XORQ $32, BX
	DECQ R10
	JNZ fireg256_half
	VZEROUPPER
	RET
