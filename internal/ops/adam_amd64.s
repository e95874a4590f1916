//go:build amd64 && !purego

#include "textflag.h"

// func adamStep8(w, g []float32, m, v []float64, c *AdamCoef)
// AdamVec32's update of w[:len(w)&^7] (AVX512F), eight float64 lanes per iteration; each
// operation rounds once, in the scalar code's order (no fused multiply-add).
TEXT ·adamStep8(SB), NOSPLIT, $0-104
	MOVQ w_base+0(FP), DI
	MOVQ w_len+8(FP), CX
	SHRQ $3, CX
	MOVQ g_base+24(FP), SI
	MOVQ m_base+48(FP), R8
	MOVQ v_base+72(FP), R9
	MOVQ c+96(FP), DX
	VBROADCASTSD 0(DX), Z16  // Beta1
	VBROADCASTSD 8(DX), Z17  // OneMinusBeta1
	VBROADCASTSD 16(DX), Z18 // Beta2
	VBROADCASTSD 24(DX), Z19 // OneMinusBeta2
	VBROADCASTSD 32(DX), Z20 // Scale
	VBROADCASTSD 40(DX), Z21 // BC1
	VBROADCASTSD 48(DX), Z22 // BC2
	VBROADCASTSD 56(DX), Z23 // Eps
	VBROADCASTSD 64(DX), Z24 // WD
	VBROADCASTSD 72(DX), Z25 // LR
	TESTQ CX, CX
	JE adam_done
adam_loop:
	VCVTPS2PD (SI), Z0      // float64(g)
	VMULPD Z20, Z0, Z0      // gj = g·Scale
	VMOVUPD (R8), Z1
	VMULPD Z16, Z1, Z1      // Beta1·m
	VMULPD Z17, Z0, Z2      // OneMinusBeta1·gj
	VADDPD Z2, Z1, Z1       // m
	VMOVUPD Z1, (R8)
	VMOVUPD (R9), Z3
	VMULPD Z18, Z3, Z3      // Beta2·v
	VMULPD Z19, Z0, Z4      // OneMinusBeta2·gj
	VMULPD Z0, Z4, Z4       // ·gj
	VADDPD Z4, Z3, Z3       // v
	VMOVUPD Z3, (R9)
	VDIVPD Z21, Z1, Z1      // m/BC1
	VDIVPD Z22, Z3, Z3      // v/BC2
	VSQRTPD Z3, Z3
	VADDPD Z23, Z3, Z3      // √(v/BC2) + Eps
	VDIVPD Z3, Z1, Z1       // (m/BC1)/(√(v/BC2) + Eps)
	VCVTPS2PD (DI), Z5      // x
	VMULPD Z24, Z5, Z6      // WD·x
	VADDPD Z6, Z1, Z1
	VMULPD Z25, Z1, Z1      // LR·(…)
	VSUBPD Z1, Z5, Z5       // x − LR·(…)
	VCVTPD2PS Z5, Y5
	VMOVUPS Y5, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $64, R8
	ADDQ $64, R9
	DECQ CX
	JNE adam_loop
adam_done:
	VZEROUPPER
	RET

// func adamStep4(w, g []float32, m, v []float64, c *AdamCoef)
// adamStep8 on AVX2 (four float64 lanes per iteration, len(w) a multiple of 4): the same
// operations, each rounding once in the scalar code's order.
TEXT ·adamStep4(SB), NOSPLIT, $0-104
	MOVQ w_base+0(FP), DI
	MOVQ w_len+8(FP), CX
	SHRQ $2, CX
	MOVQ g_base+24(FP), SI
	MOVQ m_base+48(FP), R8
	MOVQ v_base+72(FP), R9
	MOVQ c+96(FP), DX
	VBROADCASTSD 0(DX), Y6   // Beta1
	VBROADCASTSD 8(DX), Y7   // OneMinusBeta1
	VBROADCASTSD 16(DX), Y8  // Beta2
	VBROADCASTSD 24(DX), Y9  // OneMinusBeta2
	VBROADCASTSD 32(DX), Y10 // Scale
	VBROADCASTSD 40(DX), Y11 // BC1
	VBROADCASTSD 48(DX), Y12 // BC2
	VBROADCASTSD 56(DX), Y13 // Eps
	VBROADCASTSD 64(DX), Y14 // WD
	VBROADCASTSD 72(DX), Y15 // LR
	TESTQ CX, CX
	JE adam4_done
adam4_loop:
	VCVTPS2PD (SI), Y0      // float64(g)
	VMULPD Y10, Y0, Y0      // gj = g·Scale
	VMOVUPD (R8), Y1
	VMULPD Y6, Y1, Y1       // Beta1·m
	VMULPD Y7, Y0, Y2       // OneMinusBeta1·gj
	VADDPD Y2, Y1, Y1       // m
	VMOVUPD Y1, (R8)
	VMOVUPD (R9), Y3
	VMULPD Y8, Y3, Y3       // Beta2·v
	VMULPD Y9, Y0, Y4       // OneMinusBeta2·gj
	VMULPD Y0, Y4, Y4       // ·gj
	VADDPD Y4, Y3, Y3       // v
	VMOVUPD Y3, (R9)
	VDIVPD Y11, Y1, Y1      // m/BC1
	VDIVPD Y12, Y3, Y3      // v/BC2
	VSQRTPD Y3, Y3
	VADDPD Y13, Y3, Y3      // √(v/BC2) + Eps
	VDIVPD Y3, Y1, Y1       // (m/BC1)/(√(v/BC2) + Eps)
	VCVTPS2PD (DI), Y5      // x
	VMULPD Y14, Y5, Y2      // WD·x
	VADDPD Y2, Y1, Y1
	VMULPD Y15, Y1, Y1      // LR·(…)
	VSUBPD Y1, Y5, Y5       // x − LR·(…)
	VCVTPD2PSY Y5, X5
	VMOVUPS X5, (DI)
	ADDQ $16, SI
	ADDQ $16, DI
	ADDQ $32, R8
	ADDQ $32, R9
	DECQ CX
	JNE adam4_loop
adam4_done:
	VZEROUPPER
	RET
