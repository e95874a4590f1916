//go:build amd64 && !purego

// AVX2 + FMA exponential for float32 rows (the softmax): Cephes' expf, eight lanes at a time.

#include "textflag.h"

DATA expconst<>+0(SB)/4, $0x3fb8aa3b // log2e
DATA expconst<>+4(SB)/4, $0x3f318000 // c1
DATA expconst<>+8(SB)/4, $0xb95e8083 // c2
DATA expconst<>+12(SB)/4, $0x39506967 // p0
DATA expconst<>+16(SB)/4, $0x3ab743ce // p1
DATA expconst<>+20(SB)/4, $0x3c088908 // p2
DATA expconst<>+24(SB)/4, $0x3d2aa9c1 // p3
DATA expconst<>+28(SB)/4, $0x3e2aaaaa // p4
DATA expconst<>+32(SB)/4, $0x3f000000 // p5
DATA expconst<>+36(SB)/4, $0x3f800000 // one
DATA expconst<>+40(SB)/4, $0xc2aeac4f // lo
DATA expconst<>+44(SB)/4, $0x42b0c0a5 // hi
GLOBL expconst<>(SB), RODATA|NOPTR, $48

// func expShiftSum8(x []float32, m float32) float32
// Replaces x[i] by exp(x[i] − m) for i < len(x)&^7 and returns the sum of those values.
TEXT ·expShiftSum8(SB), NOSPLIT, $0-36
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	SHRQ $3, CX
	VBROADCASTSS m+24(FP), Y15
	VXORPS Y14, Y14, Y14
	TESTQ CX, CX
	JE expdone
	VBROADCASTSS expconst<>+0(SB), Y13  // log2e
	VBROADCASTSS expconst<>+4(SB), Y12  // c1
	VBROADCASTSS expconst<>+8(SB), Y11  // c2
	VBROADCASTSS expconst<>+40(SB), Y10 // lo
	VBROADCASTSS expconst<>+44(SB), Y9  // hi
	VBROADCASTSS expconst<>+36(SB), Y8  // 1
expLoop:
	VMOVUPS (SI), Y0
	VSUBPS Y15, Y0, Y0
	VMAXPS Y10, Y0, Y0
	VMINPS Y9, Y0, Y0
	VMULPS Y13, Y0, Y1
	VROUNDPS $0, Y1, Y1        // n = round(x·log2e)
	VFNMADD231PS Y12, Y1, Y0   // r = x − n·c1
	VFNMADD231PS Y11, Y1, Y0   // r −= n·c2
	VBROADCASTSS expconst<>+12(SB), Y2
	VBROADCASTSS expconst<>+16(SB), Y3
	VFMADD213PS Y3, Y0, Y2     // p = p0·r + p1
	VBROADCASTSS expconst<>+20(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS expconst<>+24(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS expconst<>+28(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS expconst<>+32(SB), Y3
	VFMADD213PS Y3, Y0, Y2     // p = ((((p0 r + p1) r + p2) r + p3) r + p4) r + p5
	VMULPS Y0, Y0, Y4          // r²
	VADDPS Y8, Y0, Y5          // 1 + r
	VFMADD231PS Y4, Y2, Y5     // y = p·r² + r + 1
	VCVTPS2DQ Y1, Y1
	VPSLLD $23, Y1, Y1
	VPADDD Y1, Y5, Y5          // y·2ⁿ through the exponent bits
	VMOVUPS Y5, (SI)
	VADDPS Y5, Y14, Y14
	ADDQ $32, SI
	DECQ CX
	JNE expLoop
expdone:
	VEXTRACTF128 $1, Y14, X1
	VADDPS X1, X14, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	MOVSS X0, ret+32(FP)
	VZEROUPPER
	RET

// func max8(x []float32) float32
// Returns the maximum of x[:len(x)&^7], which must not be empty.
TEXT ·max8(SB), NOSPLIT, $0-28
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	SHRQ $3, CX
	VMOVUPS (SI), Y0
	ADDQ $32, SI
	DECQ CX
	JE maxdone
maxloop:
	VMAXPS (SI), Y0, Y0
	ADDQ $32, SI
	DECQ CX
	JNE maxloop
maxdone:
	VEXTRACTF128 $1, Y0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0x4e, X0, X1
	VMAXPS X1, X0, X0
	VPERMILPS $0xb1, X0, X1
	VMAXPS X1, X0, X0
	MOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func scale8(x []float32, s float32)
// Multiplies x[:len(x)&^7] by s.
TEXT ·scale8(SB), NOSPLIT, $0-28
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	SHRQ $3, CX
	JE scaledone
	VBROADCASTSS s+24(FP), Y1
scaleloop:
	VMULPS (SI), Y1, Y0
	VMOVUPS Y0, (SI)
	ADDQ $32, SI
	DECQ CX
	JNE scaleloop
scaledone:
	VZEROUPPER
	RET

// func sum8(x []float32) float32
// Returns the sum of x[:len(x)&^7] (eight partial sums, then added in a fixed order).
TEXT ·sum8(SB), NOSPLIT, $0-28
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	SHRQ $3, CX
	VXORPS Y0, Y0, Y0
	TESTQ CX, CX
	JE sumdone
sumloop:
	VADDPS (SI), Y0, Y0
	ADDQ $32, SI
	DECQ CX
	JNE sumloop
sumdone:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	MOVSS X0, ret+24(FP)
	VZEROUPPER
	RET

// func sqdev8(x []float32, m float32) float32
// Returns the sum of (x[i] − m)² over x[:len(x)&^7].
TEXT ·sqdev8(SB), NOSPLIT, $0-36
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	SHRQ $3, CX
	VBROADCASTSS m+24(FP), Y2
	VXORPS Y0, Y0, Y0
	TESTQ CX, CX
	JE sqdone
sqloop:
	VMOVUPS (SI), Y1
	VSUBPS Y2, Y1, Y1
	VFMADD231PS Y1, Y1, Y0
	ADDQ $32, SI
	DECQ CX
	JNE sqloop
sqdone:
	VEXTRACTF128 $1, Y0, X1
	VADDPS X1, X0, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	MOVSS X0, ret+32(FP)
	VZEROUPPER
	RET

// func addv8(y, a, b []float32)
// y[i] = a[i] + b[i] for i < len(y)&^7 (a and b at least as long; y may alias a or b).
TEXT ·addv8(SB), NOSPLIT, $0-72
	MOVQ y_base+0(FP), DI
	MOVQ y_len+8(FP), CX
	MOVQ a_base+24(FP), SI
	MOVQ b_base+48(FP), DX
	SHRQ $3, CX
	TESTQ CX, CX
	JE addvdone
addvloop:
	VMOVUPS (SI), Y0
	VADDPS (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNE addvloop
addvdone:
	VZEROUPPER
	RET

// func subMul8(row, p []float32, d float32)
// row[j] = p[j]·(row[j] − d) for j < len(row)&^7 (the softmax backward, dS = P∘(dP − d)).
TEXT ·subMul8(SB), NOSPLIT, $0-52
	MOVQ row_base+0(FP), DI
	MOVQ row_len+8(FP), CX
	MOVQ p_base+24(FP), SI
	VBROADCASTSS d+48(FP), Y15
	SHRQ $3, CX
	TESTQ CX, CX
	JE smdone
smloop:
	VMOVUPS (DI), Y0
	VSUBPS Y15, Y0, Y0
	VMULPS (SI), Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNE smloop
smdone:
	VZEROUPPER
	RET

// expFast in float64, eight values at a time (AVX512F + DQ), with expFast's operations in its
// order (no fused multiply-adds), so each value gets expFast's bits.
DATA expf64<>+0(SB)/8, $0x40471547652b82fe // inv
DATA expf64<>+8(SB)/8, $0x3f962e42fee00000 // ln2hi
DATA expf64<>+16(SB)/8, $0x3d9a39ef35793c76 // ln2lo
DATA expf64<>+24(SB)/8, $0x4338000000000000 // shift
DATA expf64<>+32(SB)/8, $0x3f81111111111111 // c120
DATA expf64<>+40(SB)/8, $0x3fa5555555555555 // c24
DATA expf64<>+48(SB)/8, $0x3fc5555555555555 // c6
DATA expf64<>+56(SB)/8, $0x3fe0000000000000 // c2
DATA expf64<>+64(SB)/8, $0x3ff0000000000000 // one
DATA expf64<>+72(SB)/8, $0xc085e00000000000 // m700
DATA expf64<>+80(SB)/8, $0x000000000000001f // mask31
DATA expf64<>+88(SB)/8, $0x00000000000003ff // bias
GLOBL expf64<>(SB), RODATA|NOPTR, $96

// func expFast8(y []float64)
// y[i] = expFast(y[i]) for i < len(y)&^7.
TEXT ·expFast8(SB), NOSPLIT, $0-24
	MOVQ y_base+0(FP), SI
	MOVQ y_len+8(FP), CX
	SHRQ $3, CX
	JE e8done
	LEAQ ·exp2Table(SB), R8
e8loop:
	VMOVUPD (SI), Z0
	VMULPD.BCST expf64<>+0(SB), Z0, Z1
	VADDPD.BCST expf64<>+24(SB), Z1, Z1
	VSUBPD.BCST expf64<>+24(SB), Z1, Z1
	VCVTTPD2QQ Z1, Z2
	VMULPD.BCST expf64<>+8(SB), Z1, Z3
	VSUBPD Z3, Z0, Z3
	VMULPD.BCST expf64<>+16(SB), Z1, Z4
	VSUBPD Z4, Z3, Z3
	VMULPD.BCST expf64<>+32(SB), Z3, Z5
	VADDPD.BCST expf64<>+40(SB), Z5, Z5
	VMULPD Z5, Z3, Z5
	VADDPD.BCST expf64<>+48(SB), Z5, Z5
	VMULPD Z5, Z3, Z5
	VADDPD.BCST expf64<>+56(SB), Z5, Z5
	VMULPD Z5, Z3, Z5
	VADDPD.BCST expf64<>+64(SB), Z5, Z5
	VMULPD Z5, Z3, Z5
	VADDPD.BCST expf64<>+64(SB), Z5, Z5
	VPANDQ.BCST expf64<>+80(SB), Z2, Z6
	KXNORW K1, K1, K1
	VGATHERQPD (R8)(Z6*8), K1, Z7
	VPSRAQ $5, Z2, Z8
	VPADDQ.BCST expf64<>+88(SB), Z8, Z8
	VPSLLQ $52, Z8, Z8
	VMULPD Z7, Z5, Z5
	VMULPD Z8, Z5, Z5
	VCMPPD.BCST $0x05, expf64<>+72(SB), Z0, K2
	VMOVAPD.Z Z5, K2, Z5
	VMOVUPD Z5, (SI)
	ADDQ $64, SI
	DECQ CX
	JNE e8loop
e8done:
	VZEROUPPER
	RET


// expFast's constants four times over for expFast4 (AVX2 has no broadcast operands), then the
// table index mask and the exponent bias as four int32.
DATA expf64x4<>+0(SB)/8, $0x40471547652b82fe // inv
DATA expf64x4<>+8(SB)/8, $0x40471547652b82fe
DATA expf64x4<>+16(SB)/8, $0x40471547652b82fe
DATA expf64x4<>+24(SB)/8, $0x40471547652b82fe
DATA expf64x4<>+32(SB)/8, $0x3f962e42fee00000 // ln2hi
DATA expf64x4<>+40(SB)/8, $0x3f962e42fee00000
DATA expf64x4<>+48(SB)/8, $0x3f962e42fee00000
DATA expf64x4<>+56(SB)/8, $0x3f962e42fee00000
DATA expf64x4<>+64(SB)/8, $0x3d9a39ef35793c76 // ln2lo
DATA expf64x4<>+72(SB)/8, $0x3d9a39ef35793c76
DATA expf64x4<>+80(SB)/8, $0x3d9a39ef35793c76
DATA expf64x4<>+88(SB)/8, $0x3d9a39ef35793c76
DATA expf64x4<>+96(SB)/8, $0x4338000000000000 // shift
DATA expf64x4<>+104(SB)/8, $0x4338000000000000
DATA expf64x4<>+112(SB)/8, $0x4338000000000000
DATA expf64x4<>+120(SB)/8, $0x4338000000000000
DATA expf64x4<>+128(SB)/8, $0x3f81111111111111 // c120
DATA expf64x4<>+136(SB)/8, $0x3f81111111111111
DATA expf64x4<>+144(SB)/8, $0x3f81111111111111
DATA expf64x4<>+152(SB)/8, $0x3f81111111111111
DATA expf64x4<>+160(SB)/8, $0x3fa5555555555555 // c24
DATA expf64x4<>+168(SB)/8, $0x3fa5555555555555
DATA expf64x4<>+176(SB)/8, $0x3fa5555555555555
DATA expf64x4<>+184(SB)/8, $0x3fa5555555555555
DATA expf64x4<>+192(SB)/8, $0x3fc5555555555555 // c6
DATA expf64x4<>+200(SB)/8, $0x3fc5555555555555
DATA expf64x4<>+208(SB)/8, $0x3fc5555555555555
DATA expf64x4<>+216(SB)/8, $0x3fc5555555555555
DATA expf64x4<>+224(SB)/8, $0x3fe0000000000000 // c2
DATA expf64x4<>+232(SB)/8, $0x3fe0000000000000
DATA expf64x4<>+240(SB)/8, $0x3fe0000000000000
DATA expf64x4<>+248(SB)/8, $0x3fe0000000000000
DATA expf64x4<>+256(SB)/8, $0x3ff0000000000000 // one
DATA expf64x4<>+264(SB)/8, $0x3ff0000000000000
DATA expf64x4<>+272(SB)/8, $0x3ff0000000000000
DATA expf64x4<>+280(SB)/8, $0x3ff0000000000000
DATA expf64x4<>+288(SB)/8, $0xc085e00000000000 // m700
DATA expf64x4<>+296(SB)/8, $0xc085e00000000000
DATA expf64x4<>+304(SB)/8, $0xc085e00000000000
DATA expf64x4<>+312(SB)/8, $0xc085e00000000000
DATA expf64x4<>+320(SB)/4, $0x0000001f // mask31
DATA expf64x4<>+324(SB)/4, $0x0000001f
DATA expf64x4<>+328(SB)/4, $0x0000001f
DATA expf64x4<>+332(SB)/4, $0x0000001f
DATA expf64x4<>+336(SB)/4, $0x000003ff // bias
DATA expf64x4<>+340(SB)/4, $0x000003ff
DATA expf64x4<>+344(SB)/4, $0x000003ff
DATA expf64x4<>+348(SB)/4, $0x000003ff
GLOBL expf64x4<>(SB), RODATA|NOPTR, $352

// func expFast4(y []float64)
// y[i] = expFast(y[i]) for i < len(y)&^3 (AVX2): expFast8's operations on four lanes, the
// integer n = nf held as int32 (|nf| < 2^31 wherever the result is not replaced by 0).
TEXT ·expFast4(SB), NOSPLIT, $0-24
	MOVQ y_base+0(FP), SI
	MOVQ y_len+8(FP), CX
	SHRQ $2, CX
	JE e4done
	LEAQ ·exp2Table(SB), R8
e4loop:
	VMOVUPD (SI), Y0
	VMULPD expf64x4<>+0(SB), Y0, Y1     // y·inv
	VADDPD expf64x4<>+96(SB), Y1, Y1    // + shift
	VSUBPD expf64x4<>+96(SB), Y1, Y1    // − shift: nf
	VCVTTPD2DQY Y1, X2                  // n (int32)
	VMULPD expf64x4<>+32(SB), Y1, Y3    // nf·ln2hi
	VSUBPD Y3, Y0, Y3
	VMULPD expf64x4<>+64(SB), Y1, Y4    // nf·ln2lo
	VSUBPD Y4, Y3, Y3                   // r
	VMULPD expf64x4<>+128(SB), Y3, Y5   // r/120
	VADDPD expf64x4<>+160(SB), Y5, Y5
	VMULPD Y5, Y3, Y5
	VADDPD expf64x4<>+192(SB), Y5, Y5
	VMULPD Y5, Y3, Y5
	VADDPD expf64x4<>+224(SB), Y5, Y5
	VMULPD Y5, Y3, Y5
	VADDPD expf64x4<>+256(SB), Y5, Y5
	VMULPD Y5, Y3, Y5
	VADDPD expf64x4<>+256(SB), Y5, Y5   // p
	VPAND expf64x4<>+320(SB), X2, X6    // n&31
	VPCMPEQD Y9, Y9, Y9                 // gather every lane
	VGATHERDPD Y9, (R8)(X6*8), Y7       // exp2Table[n&31]
	VPSRAD $5, X2, X8                   // n>>5
	VPADDD expf64x4<>+336(SB), X8, X8   // + 1023
	VPMOVSXDQ X8, Y8
	VPSLLQ $52, Y8, Y8                  // 2^(n>>5)
	VMULPD Y7, Y5, Y5
	VMULPD Y8, Y5, Y5
	VCMPPD $0x05, expf64x4<>+288(SB), Y0, Y9 // y ≥ −700 (or NaN)
	VANDPD Y9, Y5, Y5
	VMOVUPD Y5, (SI)
	ADDQ $32, SI
	DECQ CX
	JNE e4loop
e4done:
	VZEROUPPER
	RET

// func expShiftSum16(x []float32, m float32) float32
// expShiftSum8 on sixteen lanes (AVX512F): the same operations per value, and each block of 16
// added to the eight-lane sum as its two halves in order, so the values and the sum have
// expShiftSum8's bits.
TEXT ·expShiftSum16(SB), NOSPLIT, $0-36
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ CX, DX
	SHRQ $4, CX
	ANDQ $8, DX
	VBROADCASTSS m+24(FP), Z15
	VXORPS Y14, Y14, Y14
	VBROADCASTSS expconst<>+0(SB), Z13  // log2e
	VBROADCASTSS expconst<>+4(SB), Z12  // c1
	VBROADCASTSS expconst<>+8(SB), Z11  // c2
	VBROADCASTSS expconst<>+40(SB), Z10 // lo
	VBROADCASTSS expconst<>+44(SB), Z9  // hi
	VBROADCASTSS expconst<>+36(SB), Z8  // 1
	VBROADCASTSS expconst<>+12(SB), Z16 // p0
	VBROADCASTSS expconst<>+16(SB), Z17 // p1
	VBROADCASTSS expconst<>+20(SB), Z18 // p2
	VBROADCASTSS expconst<>+24(SB), Z19 // p3
	VBROADCASTSS expconst<>+28(SB), Z20 // p4
	VBROADCASTSS expconst<>+32(SB), Z21 // p5
	TESTQ CX, CX
	JE exp16tail
exp16loop:
	VMOVUPS (SI), Z0
	VSUBPS Z15, Z0, Z0
	VMAXPS Z10, Z0, Z0
	VMINPS Z9, Z0, Z0
	VMULPS Z13, Z0, Z1
	VRNDSCALEPS $0, Z1, Z1     // n = round(x·log2e), to nearest even as VROUNDPS $0
	VFNMADD231PS Z12, Z1, Z0   // r = x − n·c1
	VFNMADD231PS Z11, Z1, Z0   // r −= n·c2
	VMOVAPS Z16, Z2
	VFMADD213PS Z17, Z0, Z2    // p = p0·r + p1
	VFMADD213PS Z18, Z0, Z2
	VFMADD213PS Z19, Z0, Z2
	VFMADD213PS Z20, Z0, Z2
	VFMADD213PS Z21, Z0, Z2    // p = ((((p0 r + p1) r + p2) r + p3) r + p4) r + p5
	VMULPS Z0, Z0, Z4          // r²
	VADDPS Z8, Z0, Z5          // 1 + r
	VFMADD231PS Z4, Z2, Z5     // y = p·r² + r + 1
	VCVTPS2DQ Z1, Z1
	VPSLLD $23, Z1, Z1
	VPADDD Z1, Z5, Z5          // y·2ⁿ through the exponent bits
	VMOVUPS Z5, (SI)
	VADDPS Y5, Y14, Y14        // the sum: values 0..7 of the block, then 8..15
	VEXTRACTF64X4 $1, Z5, Y6
	VADDPS Y6, Y14, Y14
	ADDQ $64, SI
	DECQ CX
	JNE exp16loop
exp16tail:
	TESTQ DX, DX
	JE exp16done
	VMOVUPS (SI), Y0           // the last eight values: expShiftSum8's loop body
	VSUBPS Y15, Y0, Y0
	VMAXPS Y10, Y0, Y0
	VMINPS Y9, Y0, Y0
	VMULPS Y13, Y0, Y1
	VROUNDPS $0, Y1, Y1
	VFNMADD231PS Y12, Y1, Y0
	VFNMADD231PS Y11, Y1, Y0
	VBROADCASTSS expconst<>+12(SB), Y2
	VBROADCASTSS expconst<>+16(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS expconst<>+20(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS expconst<>+24(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS expconst<>+28(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS expconst<>+32(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VMULPS Y0, Y0, Y4
	VADDPS Y8, Y0, Y5
	VFMADD231PS Y4, Y2, Y5
	VCVTPS2DQ Y1, Y1
	VPSLLD $23, Y1, Y1
	VPADDD Y1, Y5, Y5
	VMOVUPS Y5, (SI)
	VADDPS Y5, Y14, Y14
exp16done:
	VEXTRACTF128 $1, Y14, X1
	VADDPS X1, X14, X0
	VHADDPS X0, X0, X0
	VHADDPS X0, X0, X0
	MOVSS X0, ret+32(FP)
	VZEROUPPER
	RET
