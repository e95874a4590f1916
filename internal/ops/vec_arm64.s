//go:build arm64 && !purego

// NEON vector kernels with the AVX2 kernels' bits (exp_amd64.s, layernorm_amd64.s): eight lanes
// held in two registers of four (lanes 0–3 and 4–7), the same operations per lane in the same
// order (FMLA and FMLS for the fused multiply-adds), MAXPS and MINPS as a comparison and a select
// (the second operand when either is NaN, as on x86), and the eight-lane sums reduced as AVX2
// reduces them: the upper four onto the lower, then two pairwise additions. The instructions the
// Go assembler lacks are written as WORDs, each with its assembly in a comment.

#include "textflag.h"

// func sum8(x []float32) float32
TEXT ·sum8(SB), NOSPLIT, $0-28
	MOVD x_base+0(FP), R0
	MOVD x_len+8(FP), R1
	LSR $3, R1, R1
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	CBZ R1, sumdone
sumloop:
	VLD1.P 32(R0), [V0.S4, V1.S4]
	WORD $0x4e20d610 // fadd v16.4s, v16.4s, v0.4s
	WORD $0x4e21d631 // fadd v17.4s, v17.4s, v1.4s
	SUB $1, R1, R1
	CBNZ R1, sumloop
sumdone:
	WORD $0x4e31d610 // fadd v16.4s, v16.4s, v17.4s
	WORD $0x6e30d610 // faddp v16.4s, v16.4s, v16.4s
	WORD $0x7e30da10 // faddp s16, v16.2s
	FMOVS F16, ret+24(FP)
	RET

// func sqdev8(x []float32, m float32) float32
TEXT ·sqdev8(SB), NOSPLIT, $0-36
	MOVD x_base+0(FP), R0
	MOVD x_len+8(FP), R1
	LSR $3, R1, R1
	FMOVS m+24(FP), F31
	VDUP V31.S[0], V31.S4
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	CBZ R1, sqdone
sqloop:
	VLD1.P 32(R0), [V0.S4, V1.S4]
	WORD $0x4ebfd400 // fsub v0.4s, v0.4s, v31.4s
	WORD $0x4ebfd421 // fsub v1.4s, v1.4s, v31.4s
	WORD $0x4e20cc10 // fmla v16.4s, v0.4s, v0.4s
	WORD $0x4e21cc31 // fmla v17.4s, v1.4s, v1.4s
	SUB $1, R1, R1
	CBNZ R1, sqloop
sqdone:
	WORD $0x4e31d610 // fadd v16.4s, v16.4s, v17.4s
	WORD $0x6e30d610 // faddp v16.4s, v16.4s, v16.4s
	WORD $0x7e30da10 // faddp s16, v16.2s
	FMOVS F16, ret+32(FP)
	RET

// func max8(x []float32) float32
TEXT ·max8(SB), NOSPLIT, $0-28
	MOVD x_base+0(FP), R0
	MOVD x_len+8(FP), R1
	LSR $3, R1, R1
	VLD1.P 32(R0), [V16.S4, V17.S4]
	SUB $1, R1, R1
	CBZ R1, maxdone
maxloop:
	VLD1.P 32(R0), [V0.S4, V1.S4]
	WORD $0x6ea0e602 // fcmgt v2.4s, v16.4s, v0.4s
	WORD $0x6e601e02 // bsl v2.16b, v16.16b, v0.16b
	WORD $0x6ea1e623 // fcmgt v3.4s, v17.4s, v1.4s
	WORD $0x6e611e23 // bsl v3.16b, v17.16b, v1.16b
	WORD $0x4ea21c50 // mov v16.16b, v2.16b
	WORD $0x4ea31c71 // mov v17.16b, v3.16b
	SUB $1, R1, R1
	CBNZ R1, maxloop
maxdone:
	WORD $0x6eb1e602 // fcmgt v2.4s, v16.4s, v17.4s
	WORD $0x6e711e02 // bsl v2.16b, v16.16b, v17.16b
	WORD $0x6e024043 // ext v3.16b, v2.16b, v2.16b, #8
	WORD $0x6ea3e444 // fcmgt v4.4s, v2.4s, v3.4s
	WORD $0x6e631c44 // bsl v4.16b, v2.16b, v3.16b
	WORD $0x4ea00885 // rev64 v5.4s, v4.4s
	WORD $0x6ea5e486 // fcmgt v6.4s, v4.4s, v5.4s
	WORD $0x6e651c86 // bsl v6.16b, v4.16b, v5.16b
	FMOVS F6, ret+24(FP)
	RET

// func expShiftSum8(x []float32, m float32) float32
// Replaces x[i] by exp(x[i] − m) for i < len(x)&^7 (Cephes' expf, as exp_amd64.s) and returns
// the sum of those values.
TEXT ·expShiftSum8(SB), NOSPLIT, $0-36
	MOVD x_base+0(FP), R0
	MOVD x_len+8(FP), R1
	LSR $3, R1, R1
	FMOVS m+24(FP), F31
	VDUP V31.S[0], V31.S4
	VEOR V16.B16, V16.B16, V16.B16
	VEOR V17.B16, V17.B16, V17.B16
	CBZ R1, expdone
	MOVD $0xc2aeac4f, R2
	VDUP R2, V30.S4
	MOVD $0x42b0c0a5, R2
	VDUP R2, V29.S4
	MOVD $0x3fb8aa3b, R2
	VDUP R2, V28.S4
	MOVD $0x3f318000, R2
	VDUP R2, V27.S4
	MOVD $0xb95e8083, R2
	VDUP R2, V26.S4
	MOVD $0x39506967, R2
	VDUP R2, V20.S4
	MOVD $0x3ab743ce, R2
	VDUP R2, V21.S4
	MOVD $0x3c088908, R2
	VDUP R2, V22.S4
	MOVD $0x3d2aa9c1, R2
	VDUP R2, V23.S4
	MOVD $0x3e2aaaaa, R2
	VDUP R2, V24.S4
	MOVD $0x3f000000, R2
	VDUP R2, V25.S4
	MOVD $0x3f800000, R2
	VDUP R2, V19.S4
exploop:
	VLD1 (R0), [V0.S4, V1.S4]
	WORD $0x4ebfd402 // fsub v2.4s, v0.4s, v31.4s
	WORD $0x6ebee443 // fcmgt v3.4s, v2.4s, v30.4s
	WORD $0x6e7e1c43 // bsl v3.16b, v2.16b, v30.16b
	WORD $0x6ea3e7a2 // fcmgt v2.4s, v29.4s, v3.4s
	WORD $0x6e7d1c62 // bsl v2.16b, v3.16b, v29.16b
	WORD $0x6e3cdc44 // fmul v4.4s, v2.4s, v28.4s
	WORD $0x4e218884 // frintn v4.4s, v4.4s
	WORD $0x4ea21c45 // mov v5.16b, v2.16b
	WORD $0x4ebbcc85 // fmls v5.4s, v4.4s, v27.4s
	WORD $0x4ebacc85 // fmls v5.4s, v4.4s, v26.4s
	WORD $0x4eb51ea6 // mov v6.16b, v21.16b
	WORD $0x4e34cca6 // fmla v6.4s, v5.4s, v20.4s
	WORD $0x4eb61ec7 // mov v7.16b, v22.16b
	WORD $0x4e26cca7 // fmla v7.4s, v5.4s, v6.4s
	WORD $0x4eb71ee6 // mov v6.16b, v23.16b
	WORD $0x4e27cca6 // fmla v6.4s, v5.4s, v7.4s
	WORD $0x4eb81f07 // mov v7.16b, v24.16b
	WORD $0x4e26cca7 // fmla v7.4s, v5.4s, v6.4s
	WORD $0x4eb91f26 // mov v6.16b, v25.16b
	WORD $0x4e27cca6 // fmla v6.4s, v5.4s, v7.4s
	WORD $0x6e25dca7 // fmul v7.4s, v5.4s, v5.4s
	WORD $0x4e33d4a8 // fadd v8.4s, v5.4s, v19.4s
	WORD $0x4e27ccc8 // fmla v8.4s, v6.4s, v7.4s
	WORD $0x4e21a884 // fcvtns v4.4s, v4.4s
	WORD $0x4f375484 // shl v4.4s, v4.4s, #23
	WORD $0x4ea48500 // add v0.4s, v8.4s, v4.4s
	WORD $0x4e20d610 // fadd v16.4s, v16.4s, v0.4s
	WORD $0x4ebfd422 // fsub v2.4s, v1.4s, v31.4s
	WORD $0x6ebee443 // fcmgt v3.4s, v2.4s, v30.4s
	WORD $0x6e7e1c43 // bsl v3.16b, v2.16b, v30.16b
	WORD $0x6ea3e7a2 // fcmgt v2.4s, v29.4s, v3.4s
	WORD $0x6e7d1c62 // bsl v2.16b, v3.16b, v29.16b
	WORD $0x6e3cdc44 // fmul v4.4s, v2.4s, v28.4s
	WORD $0x4e218884 // frintn v4.4s, v4.4s
	WORD $0x4ea21c45 // mov v5.16b, v2.16b
	WORD $0x4ebbcc85 // fmls v5.4s, v4.4s, v27.4s
	WORD $0x4ebacc85 // fmls v5.4s, v4.4s, v26.4s
	WORD $0x4eb51ea6 // mov v6.16b, v21.16b
	WORD $0x4e34cca6 // fmla v6.4s, v5.4s, v20.4s
	WORD $0x4eb61ec7 // mov v7.16b, v22.16b
	WORD $0x4e26cca7 // fmla v7.4s, v5.4s, v6.4s
	WORD $0x4eb71ee6 // mov v6.16b, v23.16b
	WORD $0x4e27cca6 // fmla v6.4s, v5.4s, v7.4s
	WORD $0x4eb81f07 // mov v7.16b, v24.16b
	WORD $0x4e26cca7 // fmla v7.4s, v5.4s, v6.4s
	WORD $0x4eb91f26 // mov v6.16b, v25.16b
	WORD $0x4e27cca6 // fmla v6.4s, v5.4s, v7.4s
	WORD $0x6e25dca7 // fmul v7.4s, v5.4s, v5.4s
	WORD $0x4e33d4a8 // fadd v8.4s, v5.4s, v19.4s
	WORD $0x4e27ccc8 // fmla v8.4s, v6.4s, v7.4s
	WORD $0x4e21a884 // fcvtns v4.4s, v4.4s
	WORD $0x4f375484 // shl v4.4s, v4.4s, #23
	WORD $0x4ea48501 // add v1.4s, v8.4s, v4.4s
	WORD $0x4e21d631 // fadd v17.4s, v17.4s, v1.4s
	VST1.P [V0.S4, V1.S4], 32(R0)
	SUB $1, R1, R1
	CBNZ R1, exploop
expdone:
	WORD $0x4e31d610 // fadd v16.4s, v16.4s, v17.4s
	WORD $0x6e30d610 // faddp v16.4s, v16.4s, v16.4s
	WORD $0x7e30da10 // faddp s16, v16.2s
	FMOVS F16, ret+32(FP)
	RET

