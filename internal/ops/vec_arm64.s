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

// GELU's constants: the erfc fit's coefficients, the highest first, then the exponential's
// polynomial p0..p5 (gelu_amd64.s's values).
DATA geluneon<>+0(SB)/4, $0x3e2ef945
DATA geluneon<>+4(SB)/4, $0xbf527892
DATA geluneon<>+8(SB)/4, $0x3fbe87b0
DATA geluneon<>+12(SB)/4, $0xbf914e5d
DATA geluneon<>+16(SB)/4, $0x3e8ec7cc
DATA geluneon<>+20(SB)/4, $0xbe3ec24c
DATA geluneon<>+24(SB)/4, $0x3dc636c9
DATA geluneon<>+28(SB)/4, $0x3ebf88fb
DATA geluneon<>+32(SB)/4, $0x3f8000c7
DATA geluneon<>+36(SB)/4, $0xbfa1fc4e
DATA geluneon<>+40(SB)/4, $0x39506967
DATA geluneon<>+44(SB)/4, $0x3ab743ce
DATA geluneon<>+48(SB)/4, $0x3c088908
DATA geluneon<>+52(SB)/4, $0x3d2aa9c1
DATA geluneon<>+56(SB)/4, $0x3e2aaaaa
DATA geluneon<>+60(SB)/4, $0x3f000000
GLOBL geluneon<>(SB), RODATA|NOPTR, $64

// func geluFwd8(x, y []float32)
TEXT ·geluFwd8(SB), NOSPLIT, $0-48
	MOVD x_base+0(FP), R0
	MOVD x_len+8(FP), R1
	MOVD y_base+24(FP), R3
	LSR $3, R1, R1
	LSL $1, R1, R1
	CBZ R1, geluFwd8done
	MOVD $0x41500000, R4
	VDUP R4, V30.S4
	MOVD $0x3f3504f3, R4
	VDUP R4, V29.S4
	MOVD $0x3f000000, R4
	VDUP R4, V28.S4
	MOVD $0x3f800000, R4
	VDUP R4, V27.S4
	MOVD $0x3fb8aa3b, R4
	VDUP R4, V26.S4
	MOVD $0x3f318000, R4
	VDUP R4, V25.S4
	MOVD $0xb95e8083, R4
	VDUP R4, V24.S4
	MOVD $0x3ecc422a, R4
	VDUP R4, V23.S4
	VEOR V22.B16, V22.B16, V22.B16
geluFwd8loop:
	MOVD $geluneon<>(SB), R5
	VLD1.P 16(R0), [V0.S4]
	WORD $0x4ea0f801 // fabs v1.4s, v0.4s
	WORD $0x6ebee42e // fcmgt v14.4s, v1.4s, v30.4s
	WORD $0x6ea1e7c2 // fcmgt v2.4s, v30.4s, v1.4s
	WORD $0x6e7e1c22 // bsl v2.16b, v1.16b, v30.16b
	WORD $0x4ea21c41 // mov v1.16b, v2.16b
	WORD $0x6e3ddc22 // fmul v2.4s, v1.4s, v29.4s
	WORD $0x6e3cdc42 // fmul v2.4s, v2.4s, v28.4s
	WORD $0x4e3bd442 // fadd v2.4s, v2.4s, v27.4s
	WORD $0x6e22ff63 // fdiv v3.4s, v27.4s, v2.4s
	MOVD R5, R6
	VLD1R.P 4(R6), [V4.S4]
	VLD1R.P 4(R6), [V5.S4]
	WORD $0x4e24cc65 // fmla v5.4s, v3.4s, v4.4s
	VLD1R.P 4(R6), [V4.S4]
	WORD $0x4e25cc64 // fmla v4.4s, v3.4s, v5.4s
	VLD1R.P 4(R6), [V5.S4]
	WORD $0x4e24cc65 // fmla v5.4s, v3.4s, v4.4s
	VLD1R.P 4(R6), [V4.S4]
	WORD $0x4e25cc64 // fmla v4.4s, v3.4s, v5.4s
	VLD1R.P 4(R6), [V5.S4]
	WORD $0x4e24cc65 // fmla v5.4s, v3.4s, v4.4s
	VLD1R.P 4(R6), [V4.S4]
	WORD $0x4e25cc64 // fmla v4.4s, v3.4s, v5.4s
	VLD1R.P 4(R6), [V5.S4]
	WORD $0x4e24cc65 // fmla v5.4s, v3.4s, v4.4s
	VLD1R.P 4(R6), [V4.S4]
	WORD $0x4e25cc64 // fmla v4.4s, v3.4s, v5.4s
	VLD1R.P 4(R6), [V5.S4]
	WORD $0x4e24cc65 // fmla v5.4s, v3.4s, v4.4s
	WORD $0x6e21dc26 // fmul v6.4s, v1.4s, v1.4s
	WORD $0x4ea61cc7 // mov v7.16b, v6.16b
	WORD $0x4ea1cc27 // fmls v7.4s, v1.4s, v1.4s
	WORD $0x6ea0f8e7 // fneg v7.4s, v7.4s
	WORD $0x6e3cdcc6 // fmul v6.4s, v6.4s, v28.4s
	WORD $0x4ea6d6c6 // fsub v6.4s, v22.4s, v6.4s
	WORD $0x6e3cdce7 // fmul v7.4s, v7.4s, v28.4s
	WORD $0x4ea7d6c7 // fsub v7.4s, v22.4s, v7.4s
	WORD $0x4e27d4a5 // fadd v5.4s, v5.4s, v7.4s
	WORD $0x4e25d4c8 // fadd v8.4s, v6.4s, v5.4s
	WORD $0x6e3add08 // fmul v8.4s, v8.4s, v26.4s
	WORD $0x4e218908 // frintn v8.4s, v8.4s
	WORD $0x4ea61cc9 // mov v9.16b, v6.16b
	WORD $0x4eb9cd09 // fmls v9.4s, v8.4s, v25.4s
	WORD $0x4e25d529 // fadd v9.4s, v9.4s, v5.4s
	WORD $0x4eb8cd09 // fmls v9.4s, v8.4s, v24.4s
	ADD $40, R5, R6
	VLD1R.P 4(R6), [V10.S4]
	VLD1R.P 4(R6), [V11.S4]
	WORD $0x4e2acd2b // fmla v11.4s, v9.4s, v10.4s
	VLD1R.P 4(R6), [V10.S4]
	WORD $0x4e2bcd2a // fmla v10.4s, v9.4s, v11.4s
	VLD1R.P 4(R6), [V11.S4]
	WORD $0x4e2acd2b // fmla v11.4s, v9.4s, v10.4s
	VLD1R.P 4(R6), [V10.S4]
	WORD $0x4e2bcd2a // fmla v10.4s, v9.4s, v11.4s
	VLD1R.P 4(R6), [V11.S4]
	WORD $0x4e2acd2b // fmla v11.4s, v9.4s, v10.4s
	WORD $0x6e29dd2c // fmul v12.4s, v9.4s, v9.4s
	WORD $0x4e3bd52d // fadd v13.4s, v9.4s, v27.4s
	WORD $0x4e2ccd6d // fmla v13.4s, v11.4s, v12.4s
	WORD $0x4e21a908 // fcvtns v8.4s, v8.4s
	WORD $0x4f375508 // shl v8.4s, v8.4s, #23
	WORD $0x4ea885ad // add v13.4s, v13.4s, v8.4s
	WORD $0x6e23ddad // fmul v13.4s, v13.4s, v3.4s
	WORD $0x6e3cddad // fmul v13.4s, v13.4s, v28.4s
	WORD $0x4e6e1dad // bic v13.16b, v13.16b, v14.16b
	WORD $0x4eadd76f // fsub v15.4s, v27.4s, v13.4s
	WORD $0x4f210410 // sshr v16.4s, v0.4s, #31
	WORD $0x6e6f1db0 // bsl v16.16b, v13.16b, v15.16b
	WORD $0x6e30dc00 // fmul v0.4s, v0.4s, v16.4s
	VST1.P [V0.S4], 16(R3)
	SUB $1, R1, R1
	CBNZ R1, geluFwd8loop
geluFwd8done:
	RET

// func geluBwd8(x, g, y []float32)
TEXT ·geluBwd8(SB), NOSPLIT, $0-72
	MOVD x_base+0(FP), R0
	MOVD x_len+8(FP), R1
	MOVD g_base+24(FP), R2
	MOVD y_base+48(FP), R3
	LSR $3, R1, R1
	LSL $1, R1, R1
	CBZ R1, geluBwd8done
	MOVD $0x41500000, R4
	VDUP R4, V30.S4
	MOVD $0x3f3504f3, R4
	VDUP R4, V29.S4
	MOVD $0x3f000000, R4
	VDUP R4, V28.S4
	MOVD $0x3f800000, R4
	VDUP R4, V27.S4
	MOVD $0x3fb8aa3b, R4
	VDUP R4, V26.S4
	MOVD $0x3f318000, R4
	VDUP R4, V25.S4
	MOVD $0xb95e8083, R4
	VDUP R4, V24.S4
	MOVD $0x3ecc422a, R4
	VDUP R4, V23.S4
	VEOR V22.B16, V22.B16, V22.B16
geluBwd8loop:
	MOVD $geluneon<>(SB), R5
	VLD1.P 16(R0), [V0.S4]
	WORD $0x4ea0f801 // fabs v1.4s, v0.4s
	WORD $0x6ebee42e // fcmgt v14.4s, v1.4s, v30.4s
	WORD $0x6ea1e7c2 // fcmgt v2.4s, v30.4s, v1.4s
	WORD $0x6e7e1c22 // bsl v2.16b, v1.16b, v30.16b
	WORD $0x4ea21c41 // mov v1.16b, v2.16b
	WORD $0x6e3ddc22 // fmul v2.4s, v1.4s, v29.4s
	WORD $0x6e3cdc42 // fmul v2.4s, v2.4s, v28.4s
	WORD $0x4e3bd442 // fadd v2.4s, v2.4s, v27.4s
	WORD $0x6e22ff63 // fdiv v3.4s, v27.4s, v2.4s
	MOVD R5, R6
	VLD1R.P 4(R6), [V4.S4]
	VLD1R.P 4(R6), [V5.S4]
	WORD $0x4e24cc65 // fmla v5.4s, v3.4s, v4.4s
	VLD1R.P 4(R6), [V4.S4]
	WORD $0x4e25cc64 // fmla v4.4s, v3.4s, v5.4s
	VLD1R.P 4(R6), [V5.S4]
	WORD $0x4e24cc65 // fmla v5.4s, v3.4s, v4.4s
	VLD1R.P 4(R6), [V4.S4]
	WORD $0x4e25cc64 // fmla v4.4s, v3.4s, v5.4s
	VLD1R.P 4(R6), [V5.S4]
	WORD $0x4e24cc65 // fmla v5.4s, v3.4s, v4.4s
	VLD1R.P 4(R6), [V4.S4]
	WORD $0x4e25cc64 // fmla v4.4s, v3.4s, v5.4s
	VLD1R.P 4(R6), [V5.S4]
	WORD $0x4e24cc65 // fmla v5.4s, v3.4s, v4.4s
	VLD1R.P 4(R6), [V4.S4]
	WORD $0x4e25cc64 // fmla v4.4s, v3.4s, v5.4s
	VLD1R.P 4(R6), [V5.S4]
	WORD $0x4e24cc65 // fmla v5.4s, v3.4s, v4.4s
	WORD $0x6e21dc26 // fmul v6.4s, v1.4s, v1.4s
	WORD $0x4ea61cc7 // mov v7.16b, v6.16b
	WORD $0x4ea1cc27 // fmls v7.4s, v1.4s, v1.4s
	WORD $0x6ea0f8e7 // fneg v7.4s, v7.4s
	WORD $0x6e3cdcc6 // fmul v6.4s, v6.4s, v28.4s
	WORD $0x4ea6d6c6 // fsub v6.4s, v22.4s, v6.4s
	WORD $0x6e3cdce7 // fmul v7.4s, v7.4s, v28.4s
	WORD $0x4ea7d6c7 // fsub v7.4s, v22.4s, v7.4s
	WORD $0x4e27d4a5 // fadd v5.4s, v5.4s, v7.4s
	WORD $0x4e25d4c8 // fadd v8.4s, v6.4s, v5.4s
	WORD $0x6e3add08 // fmul v8.4s, v8.4s, v26.4s
	WORD $0x4e218908 // frintn v8.4s, v8.4s
	WORD $0x4ea61cc9 // mov v9.16b, v6.16b
	WORD $0x4eb9cd09 // fmls v9.4s, v8.4s, v25.4s
	WORD $0x4e25d529 // fadd v9.4s, v9.4s, v5.4s
	WORD $0x4eb8cd09 // fmls v9.4s, v8.4s, v24.4s
	ADD $40, R5, R6
	VLD1R.P 4(R6), [V10.S4]
	VLD1R.P 4(R6), [V11.S4]
	WORD $0x4e2acd2b // fmla v11.4s, v9.4s, v10.4s
	VLD1R.P 4(R6), [V10.S4]
	WORD $0x4e2bcd2a // fmla v10.4s, v9.4s, v11.4s
	VLD1R.P 4(R6), [V11.S4]
	WORD $0x4e2acd2b // fmla v11.4s, v9.4s, v10.4s
	VLD1R.P 4(R6), [V10.S4]
	WORD $0x4e2bcd2a // fmla v10.4s, v9.4s, v11.4s
	VLD1R.P 4(R6), [V11.S4]
	WORD $0x4e2acd2b // fmla v11.4s, v9.4s, v10.4s
	WORD $0x6e29dd2c // fmul v12.4s, v9.4s, v9.4s
	WORD $0x4e3bd52d // fadd v13.4s, v9.4s, v27.4s
	WORD $0x4e2ccd6d // fmla v13.4s, v11.4s, v12.4s
	WORD $0x4e21a908 // fcvtns v8.4s, v8.4s
	WORD $0x4f375508 // shl v8.4s, v8.4s, #23
	WORD $0x4ea885ad // add v13.4s, v13.4s, v8.4s
	WORD $0x6e23ddad // fmul v13.4s, v13.4s, v3.4s
	WORD $0x6e3cddad // fmul v13.4s, v13.4s, v28.4s
	WORD $0x4e6e1dad // bic v13.16b, v13.16b, v14.16b
	WORD $0x4eadd76f // fsub v15.4s, v27.4s, v13.4s
	WORD $0x4f210410 // sshr v16.4s, v0.4s, #31
	WORD $0x6e6f1db0 // bsl v16.16b, v13.16b, v15.16b
	WORD $0x4e27d4c8 // fadd v8.4s, v6.4s, v7.4s
	WORD $0x6e3add08 // fmul v8.4s, v8.4s, v26.4s
	WORD $0x4e218908 // frintn v8.4s, v8.4s
	WORD $0x4ea61cc9 // mov v9.16b, v6.16b
	WORD $0x4eb9cd09 // fmls v9.4s, v8.4s, v25.4s
	WORD $0x4e27d529 // fadd v9.4s, v9.4s, v7.4s
	WORD $0x4eb8cd09 // fmls v9.4s, v8.4s, v24.4s
	ADD $40, R5, R6
	VLD1R.P 4(R6), [V10.S4]
	VLD1R.P 4(R6), [V11.S4]
	WORD $0x4e2acd2b // fmla v11.4s, v9.4s, v10.4s
	VLD1R.P 4(R6), [V10.S4]
	WORD $0x4e2bcd2a // fmla v10.4s, v9.4s, v11.4s
	VLD1R.P 4(R6), [V11.S4]
	WORD $0x4e2acd2b // fmla v11.4s, v9.4s, v10.4s
	VLD1R.P 4(R6), [V10.S4]
	WORD $0x4e2bcd2a // fmla v10.4s, v9.4s, v11.4s
	VLD1R.P 4(R6), [V11.S4]
	WORD $0x4e2acd2b // fmla v11.4s, v9.4s, v10.4s
	WORD $0x6e29dd2c // fmul v12.4s, v9.4s, v9.4s
	WORD $0x4e3bd52d // fadd v13.4s, v9.4s, v27.4s
	WORD $0x4e2ccd6d // fmla v13.4s, v11.4s, v12.4s
	WORD $0x4e21a908 // fcvtns v8.4s, v8.4s
	WORD $0x4f375508 // shl v8.4s, v8.4s, #23
	WORD $0x4ea885ad // add v13.4s, v13.4s, v8.4s
	WORD $0x4e6e1dad // bic v13.16b, v13.16b, v14.16b
	WORD $0x6e37ddad // fmul v13.4s, v13.4s, v23.4s
	WORD $0x6e20ddad // fmul v13.4s, v13.4s, v0.4s
	WORD $0x4e2dd610 // fadd v16.4s, v16.4s, v13.4s
	VLD1.P 16(R2), [V17.S4]
	WORD $0x6e31de10 // fmul v16.4s, v16.4s, v17.4s
	VST1.P [V16.S4], 16(R3)
	SUB $1, R1, R1
	CBNZ R1, geluBwd8loop
geluBwd8done:
	RET

