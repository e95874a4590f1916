//go:build amd64 && !purego

#include "textflag.h"

// CoPE's vector kernels (AVX2, FMA): the gates σ(z) and the positions' suffix sums and
// interpolation, eight keys at a time. cope_lanes.go writes each out lane by lane.

// The softmax's exponential constants (exp_amd64.s), one, the sign bit, and the suffix sums'
// lane permutations (lane j takes lane j + k) and masks (0 past lane 7).
DATA copeconst<>+0(SB)/4, $0x3fb8aa3b  // log2e
DATA copeconst<>+4(SB)/4, $0x3f318000  // c1
DATA copeconst<>+8(SB)/4, $0xb95e8083  // c2
DATA copeconst<>+12(SB)/4, $0x39506967 // p0
DATA copeconst<>+16(SB)/4, $0x3ab743ce // p1
DATA copeconst<>+20(SB)/4, $0x3c088908 // p2
DATA copeconst<>+24(SB)/4, $0x3d2aa9c1 // p3
DATA copeconst<>+28(SB)/4, $0x3e2aaaaa // p4
DATA copeconst<>+32(SB)/4, $0x3f000000 // p5
DATA copeconst<>+36(SB)/4, $0x3f800000 // one
DATA copeconst<>+40(SB)/4, $0xc2aeac4f // lo
DATA copeconst<>+44(SB)/4, $0x42b0c0a5 // hi
DATA copeconst<>+48(SB)/4, $0x80000000 // sign
DATA copeconst<>+52(SB)/4, $0
DATA copeconst<>+56(SB)/8, $0
// +64: lane j takes lane j + 1
DATA copeconst<>+64(SB)/4, $1
DATA copeconst<>+68(SB)/4, $2
DATA copeconst<>+72(SB)/4, $3
DATA copeconst<>+76(SB)/4, $4
DATA copeconst<>+80(SB)/4, $5
DATA copeconst<>+84(SB)/4, $6
DATA copeconst<>+88(SB)/4, $7
DATA copeconst<>+92(SB)/4, $0
// +96: lane j + 2
DATA copeconst<>+96(SB)/4, $2
DATA copeconst<>+100(SB)/4, $3
DATA copeconst<>+104(SB)/4, $4
DATA copeconst<>+108(SB)/4, $5
DATA copeconst<>+112(SB)/4, $6
DATA copeconst<>+116(SB)/4, $7
DATA copeconst<>+120(SB)/4, $0
DATA copeconst<>+124(SB)/4, $0
// +128: lane j + 4
DATA copeconst<>+128(SB)/4, $4
DATA copeconst<>+132(SB)/4, $5
DATA copeconst<>+136(SB)/4, $6
DATA copeconst<>+140(SB)/4, $7
DATA copeconst<>+144(SB)/4, $0
DATA copeconst<>+148(SB)/4, $0
DATA copeconst<>+152(SB)/4, $0
DATA copeconst<>+156(SB)/4, $0
// +160: mask of lanes 0..6
DATA copeconst<>+160(SB)/8, $0xffffffffffffffff
DATA copeconst<>+168(SB)/8, $0xffffffffffffffff
DATA copeconst<>+176(SB)/8, $0xffffffffffffffff
DATA copeconst<>+184(SB)/8, $0x00000000ffffffff
// +192: lanes 0..5
DATA copeconst<>+192(SB)/8, $0xffffffffffffffff
DATA copeconst<>+200(SB)/8, $0xffffffffffffffff
DATA copeconst<>+208(SB)/8, $0xffffffffffffffff
DATA copeconst<>+216(SB)/8, $0
// +224: lanes 0..3
DATA copeconst<>+224(SB)/8, $0xffffffffffffffff
DATA copeconst<>+232(SB)/8, $0xffffffffffffffff
DATA copeconst<>+240(SB)/8, $0
DATA copeconst<>+248(SB)/8, $0
// +256: lane j takes lane j − 1 (the gradient's prefix sums)
DATA copeconst<>+256(SB)/4, $0
DATA copeconst<>+260(SB)/4, $0
DATA copeconst<>+264(SB)/4, $1
DATA copeconst<>+268(SB)/4, $2
DATA copeconst<>+272(SB)/4, $3
DATA copeconst<>+276(SB)/4, $4
DATA copeconst<>+280(SB)/4, $5
DATA copeconst<>+284(SB)/4, $6
// +288: lane j − 2
DATA copeconst<>+288(SB)/4, $0
DATA copeconst<>+292(SB)/4, $0
DATA copeconst<>+296(SB)/4, $0
DATA copeconst<>+300(SB)/4, $1
DATA copeconst<>+304(SB)/4, $2
DATA copeconst<>+308(SB)/4, $3
DATA copeconst<>+312(SB)/4, $4
DATA copeconst<>+316(SB)/4, $5
// +320: lane j − 4
DATA copeconst<>+320(SB)/4, $0
DATA copeconst<>+324(SB)/4, $0
DATA copeconst<>+328(SB)/4, $0
DATA copeconst<>+332(SB)/4, $0
DATA copeconst<>+336(SB)/4, $0
DATA copeconst<>+340(SB)/4, $1
DATA copeconst<>+344(SB)/4, $2
DATA copeconst<>+348(SB)/4, $3
// +352: mask of lanes 1..7
DATA copeconst<>+352(SB)/8, $0xffffffff00000000
DATA copeconst<>+360(SB)/8, $0xffffffffffffffff
DATA copeconst<>+368(SB)/8, $0xffffffffffffffff
DATA copeconst<>+376(SB)/8, $0xffffffffffffffff
// +384: lanes 2..7
DATA copeconst<>+384(SB)/8, $0
DATA copeconst<>+392(SB)/8, $0xffffffffffffffff
DATA copeconst<>+400(SB)/8, $0xffffffffffffffff
DATA copeconst<>+408(SB)/8, $0xffffffffffffffff
// +416: lanes 4..7
DATA copeconst<>+416(SB)/8, $0
DATA copeconst<>+424(SB)/8, $0
DATA copeconst<>+432(SB)/8, $0xffffffffffffffff
DATA copeconst<>+440(SB)/8, $0xffffffffffffffff
// +448: 32, bit 5 of a position (the second half of a 64-entry table)
DATA copeconst<>+448(SB)/4, $32
DATA copeconst<>+452(SB)/4, $0
DATA copeconst<>+456(SB)/8, $0
GLOBL copeconst<>(SB), RODATA|NOPTR, $464

// func copeGates8AVX2(g, z []float32)
// g[j] = 1/(1 + exp(−z[j])) for j < len(z)&^7, the exponential expShiftSum8's on −z.
TEXT ·copeGates8AVX2(SB), NOSPLIT, $0-48
	MOVQ g_base+0(FP), DI
	MOVQ z_base+24(FP), SI
	MOVQ z_len+32(FP), CX
	SHRQ $3, CX
	JE gatesdone
	VBROADCASTSS copeconst<>+48(SB), Y15 // sign
	VBROADCASTSS copeconst<>+0(SB), Y13  // log2e
	VBROADCASTSS copeconst<>+4(SB), Y12  // c1
	VBROADCASTSS copeconst<>+8(SB), Y11  // c2
	VBROADCASTSS copeconst<>+40(SB), Y10 // lo
	VBROADCASTSS copeconst<>+44(SB), Y9  // hi
	VBROADCASTSS copeconst<>+36(SB), Y8  // 1
gatesloop:
	VMOVUPS (SI), Y0
	VXORPS Y15, Y0, Y0         // x = −z
	VMAXPS Y10, Y0, Y0
	VMINPS Y9, Y0, Y0
	VMULPS Y13, Y0, Y1
	VROUNDPS $0, Y1, Y1        // n = round(x·log2e)
	VFNMADD231PS Y12, Y1, Y0   // r = x − n·c1
	VFNMADD231PS Y11, Y1, Y0   // r −= n·c2
	VBROADCASTSS copeconst<>+12(SB), Y2
	VBROADCASTSS copeconst<>+16(SB), Y3
	VFMADD213PS Y3, Y0, Y2     // p = p0·r + p1
	VBROADCASTSS copeconst<>+20(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS copeconst<>+24(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS copeconst<>+28(SB), Y3
	VFMADD213PS Y3, Y0, Y2
	VBROADCASTSS copeconst<>+32(SB), Y3
	VFMADD213PS Y3, Y0, Y2     // p = ((((p0 r + p1) r + p2) r + p3) r + p4) r + p5
	VMULPS Y0, Y0, Y4          // r²
	VADDPS Y8, Y0, Y5          // 1 + r
	VFMADD231PS Y4, Y2, Y5     // y = p·r² + r + 1
	VCVTPS2DQ Y1, Y1
	VPSLLD $23, Y1, Y1
	VPADDD Y1, Y5, Y5          // e = y·2ⁿ through the exponent bits
	VADDPS Y8, Y5, Y5          // 1 + e
	VDIVPS Y5, Y8, Y5          // 1/(1 + e)
	VMOVUPS Y5, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNE gatesloop
gatesdone:
	VZEROUPPER
	RET

// func copeScan8AVX2(row, g, l []float32, top, carry float32) float32
// From the last chunk of eight keys to the first: s = the suffix sums of the chunk's gates plus
// carry (lane j += lane j+1, += lane j+2, += lane j+4, then + carry), carry = s[0];
// p = min(s, top), f = trunc(p), w = p − f, c = f + (w > 0); row += l[c]·w, then += l[f]·(1 − w).
TEXT ·copeScan8AVX2(SB), NOSPLIT, $0-84
	MOVQ row_base+0(FP), DI
	MOVQ row_len+8(FP), AX
	MOVQ g_base+24(FP), SI
	MOVQ l_base+48(FP), DX
	VBROADCASTSS top+72(FP), Y15
	VBROADCASTSS carry+76(FP), Y14
	SHRQ $3, AX
	JE scandone
	SHLQ $5, AX                      // bytes: the chunks go from the end
	VMOVUPS copeconst<>+64(SB), Y13  // lane j + 1
	VMOVUPS copeconst<>+96(SB), Y12  // lane j + 2
	VMOVUPS copeconst<>+128(SB), Y11 // lane j + 4
	VMOVUPS copeconst<>+160(SB), Y10 // lanes 0..6
	VMOVUPS copeconst<>+192(SB), Y9  // lanes 0..5
	VMOVUPS copeconst<>+224(SB), Y8  // lanes 0..3
	VBROADCASTSS copeconst<>+36(SB), Y7 // 1
	VXORPS Y6, Y6, Y6
scanloop:
	SUBQ $32, AX
	VMOVUPS (SI)(AX*1), Y0
	VPERMPS Y0, Y13, Y1
	VANDPS Y10, Y1, Y1
	VADDPS Y1, Y0, Y0          // lane j += lane j + 1
	VPERMPS Y0, Y12, Y1
	VANDPS Y9, Y1, Y1
	VADDPS Y1, Y0, Y0          // += lane j + 2
	VPERMPS Y0, Y11, Y1
	VANDPS Y8, Y1, Y1
	VADDPS Y1, Y0, Y0          // += lane j + 4
	VADDPS Y14, Y0, Y0         // s = suffix sums + carry
	VBROADCASTSS X0, Y14       // carry = s[0]
	VMINPS Y15, Y0, Y1         // p = min(s, top)
	VCVTTPS2DQ Y1, Y2          // f = ⌊p⌋ (p ≥ 0)
	VCVTDQ2PS Y2, Y3
	VSUBPS Y3, Y1, Y3          // w = p − f
	VCMPPS $14, Y6, Y3, Y4     // w > 0: all ones (−1)
	VPSUBD Y4, Y2, Y4          // c = f + (w > 0)
	VPCMPEQD Y5, Y5, Y5
	VGATHERDPS Y5, (DX)(Y2*4), Y1 // l[f]
	VPCMPEQD Y5, Y5, Y5
	VGATHERDPS Y5, (DX)(Y4*4), Y2 // l[c]
	VMULPS Y3, Y2, Y2          // l[c]·w
	VSUBPS Y3, Y7, Y3          // 1 − w
	VMULPS Y3, Y1, Y1          // l[f]·(1 − w)
	VMOVUPS (DI)(AX*1), Y4
	VADDPS Y2, Y4, Y4          // z + l[c]·w
	VADDPS Y1, Y4, Y4          // + l[f]·(1 − w)
	VMOVUPS Y4, (DI)(AX*1)
	TESTQ AX, AX
	JNE scanloop
scandone:
	VMOVSS X14, ret+80(FP)
	VZEROUPPER
	RET

// func copeSuffix8AVX2(raw, g []float32, carry float32) float32
// copeScan8AVX2's suffix sums alone, written to raw.
TEXT ·copeSuffix8AVX2(SB), NOSPLIT, $0-60
	MOVQ raw_base+0(FP), DI
	MOVQ g_base+24(FP), SI
	MOVQ g_len+32(FP), AX
	VBROADCASTSS carry+48(FP), Y14
	SHRQ $3, AX
	JE suffixdone
	SHLQ $5, AX
	VMOVUPS copeconst<>+64(SB), Y13
	VMOVUPS copeconst<>+96(SB), Y12
	VMOVUPS copeconst<>+128(SB), Y11
	VMOVUPS copeconst<>+160(SB), Y10
	VMOVUPS copeconst<>+192(SB), Y9
	VMOVUPS copeconst<>+224(SB), Y8
suffixloop:
	SUBQ $32, AX
	VMOVUPS (SI)(AX*1), Y0
	VPERMPS Y0, Y13, Y1
	VANDPS Y10, Y1, Y1
	VADDPS Y1, Y0, Y0
	VPERMPS Y0, Y12, Y1
	VANDPS Y9, Y1, Y1
	VADDPS Y1, Y0, Y0
	VPERMPS Y0, Y11, Y1
	VANDPS Y8, Y1, Y1
	VADDPS Y1, Y0, Y0
	VADDPS Y14, Y0, Y0
	VBROADCASTSS X0, Y14
	VMOVUPS Y0, (DI)(AX*1)
	TESTQ AX, AX
	JNE suffixloop
suffixdone:
	VMOVSS X14, ret+56(FP)
	VZEROUPPER
	RET

// func copeGrad8AVX2(dz, g, p, raw, l, cf, cc []float32, fi, ci []int32, top, dot, carry float32) float32
// The backward pass of a row's chunks of eight keys, from the first: with dP in dz, the weights
// p, the gates g, the suffix sums raw: da = p·(dP − dot); pos = min(raw, top), f = trunc(pos),
// w = pos − f, c = f + (w > 0); fi, ci = f, c; cf = da·(1 − w), cc = da·w; dp = da·(l[c] − l[f]);
// dg = the prefix sums of dp (lane j += lane j−1, += lane j−2, += lane j−4, then + carry),
// carry = dg[7]; dz = da + (dg·g)·(1 − g).
TEXT ·copeGrad8AVX2(SB), NOSPLIT, $0-236
	MOVQ dz_base+0(FP), DI
	MOVQ dz_len+8(FP), CX
	MOVQ g_base+24(FP), SI
	MOVQ p_base+48(FP), R8
	MOVQ raw_base+72(FP), R9
	MOVQ l_base+96(FP), DX
	MOVQ cf_base+120(FP), R10
	MOVQ cc_base+144(FP), R11
	MOVQ fi_base+168(FP), R12
	MOVQ ci_base+192(FP), R13
	VBROADCASTSS top+216(FP), Y15
	VBROADCASTSS dot+220(FP), Y14
	VBROADCASTSS carry+224(FP), Y13
	SHRQ $3, CX
	JE graddone
	SHLQ $5, CX                      // bytes
	XORQ AX, AX
	VMOVUPS copeconst<>+256(SB), Y12 // lane j − 1
	VMOVUPS copeconst<>+288(SB), Y11 // lane j − 2
	VMOVUPS copeconst<>+320(SB), Y10 // lane j − 4
	VBROADCASTSS copeconst<>+36(SB), Y9 // 1
	VXORPS Y8, Y8, Y8
gradloop:
	VMOVUPS (R8)(AX*1), Y0
	VMOVUPS (DI)(AX*1), Y1
	VSUBPS Y14, Y1, Y1         // dP − dot
	VMULPS Y1, Y0, Y0          // da = p·(dP − dot)
	VMOVUPS (R9)(AX*1), Y1
	VMINPS Y15, Y1, Y1         // pos = min(raw, top)
	VCVTTPS2DQ Y1, Y2          // f
	VCVTDQ2PS Y2, Y3
	VSUBPS Y3, Y1, Y3          // w = pos − f
	VCMPPS $14, Y8, Y3, Y4     // w > 0: all ones (−1)
	VPSUBD Y4, Y2, Y4          // c = f + (w > 0)
	VMOVDQU Y2, (R12)(AX*1)
	VMOVDQU Y4, (R13)(AX*1)
	VPCMPEQD Y5, Y5, Y5
	VGATHERDPS Y5, (DX)(Y2*4), Y1 // l[f]
	VPCMPEQD Y5, Y5, Y5
	VGATHERDPS Y5, (DX)(Y4*4), Y6 // l[c]
	VSUBPS Y1, Y6, Y6          // l[c] − l[f]
	VMULPS Y6, Y0, Y6          // dp = da·(l[c] − l[f])
	VMULPS Y3, Y0, Y1          // cc = da·w
	VMOVUPS Y1, (R11)(AX*1)
	VSUBPS Y3, Y9, Y3          // 1 − w
	VMULPS Y3, Y0, Y1          // cf = da·(1 − w)
	VMOVUPS Y1, (R10)(AX*1)
	VPERMPS Y6, Y12, Y1
	VANDPS copeconst<>+352(SB), Y1, Y1
	VADDPS Y1, Y6, Y6          // lane j += lane j − 1
	VPERMPS Y6, Y11, Y1
	VANDPS copeconst<>+384(SB), Y1, Y1
	VADDPS Y1, Y6, Y6          // += lane j − 2
	VPERMPS Y6, Y10, Y1
	VANDPS copeconst<>+416(SB), Y1, Y1
	VADDPS Y1, Y6, Y6          // += lane j − 4
	VADDPS Y13, Y6, Y6         // dg = prefix sums + carry
	VPERMILPS $0xff, Y6, Y1
	VPERM2F128 $0x11, Y1, Y1, Y13 // carry = dg[7]
	VMOVUPS (SI)(AX*1), Y1     // g
	VMULPS Y1, Y6, Y2          // dg·g
	VSUBPS Y1, Y9, Y1          // 1 − g
	VMULPS Y1, Y2, Y2          // (dg·g)·(1 − g)
	VADDPS Y2, Y0, Y0          // dz = da + (dg·g)·(1 − g)
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JLT gradloop
graddone:
	VMOVSS X13, ret+232(FP)
	VZEROUPPER
	RET

// func copeScan8AVX512(row, g, l []float32, top, carry float32) float32
// copeScan8AVX2 with the lookups of l[f] and l[c] from registers (VPERMT2PS over the 64 entries
// l[0..63] and the 64 l[1..64], the halves by bit 5 of f; l[c] = l[f + 1] where w > 0) instead of
// gathers: the same bits, for npos ≤ 64; l must have 65 readable values.
TEXT ·copeScan8AVX512(SB), NOSPLIT, $0-84
	MOVQ row_base+0(FP), DI
	MOVQ row_len+8(FP), AX
	MOVQ g_base+24(FP), SI
	MOVQ l_base+48(FP), DX
	VBROADCASTSS top+72(FP), Y15
	VBROADCASTSS carry+76(FP), Y14
	SHRQ $3, AX
	JE scan5done
	SHLQ $5, AX
	VMOVUPS copeconst<>+64(SB), Y13
	VMOVUPS copeconst<>+96(SB), Y12
	VMOVUPS copeconst<>+128(SB), Y11
	VMOVUPS copeconst<>+160(SB), Y10
	VMOVUPS copeconst<>+192(SB), Y9
	VMOVUPS copeconst<>+224(SB), Y8
	VBROADCASTSS copeconst<>+36(SB), Y7 // 1
	VXORPS Y6, Y6, Y6
	VPBROADCASTD copeconst<>+448(SB), Z5 // 32
	VMOVUPS (DX), Z16          // l[0..15]
	VMOVUPS 64(DX), Z17        // l[16..31]
	VMOVUPS 128(DX), Z18       // l[32..47]
	VMOVUPS 192(DX), Z19       // l[48..63]
	VMOVUPS 4(DX), Z20         // l[1..16]
	VMOVUPS 68(DX), Z21
	VMOVUPS 132(DX), Z22
	VMOVUPS 196(DX), Z23       // l[49..64]
scan5loop:
	SUBQ $32, AX
	VMOVUPS (SI)(AX*1), Y0
	VPERMPS Y0, Y13, Y1
	VANDPS Y10, Y1, Y1
	VADDPS Y1, Y0, Y0          // lane j += lane j + 1
	VPERMPS Y0, Y12, Y1
	VANDPS Y9, Y1, Y1
	VADDPS Y1, Y0, Y0          // += lane j + 2
	VPERMPS Y0, Y11, Y1
	VANDPS Y8, Y1, Y1
	VADDPS Y1, Y0, Y0          // += lane j + 4
	VADDPS Y14, Y0, Y0         // s = suffix sums + carry
	VBROADCASTSS X0, Y14       // carry = s[0]
	VMINPS Y15, Y0, Y1         // p = min(s, top)
	VCVTTPS2DQ Y1, Y2          // f = ⌊p⌋ (the upper lanes of Z2 zeroed)
	VCVTDQ2PS Y2, Y3
	VSUBPS Y3, Y1, Y3          // w = p − f
	VPTESTMD Z5, Z2, K1        // f ≥ 32
	VMOVAPS Z16, Z24
	VPERMT2PS Z17, Z2, Z24
	VMOVAPS Z18, Z25
	VPERMT2PS Z19, Z2, Z25
	VBLENDMPS Z25, Z24, K1, Z24 // l[f]
	VMOVAPS Z20, Z26
	VPERMT2PS Z21, Z2, Z26
	VMOVAPS Z22, Z27
	VPERMT2PS Z23, Z2, Z27
	VBLENDMPS Z27, Z26, K1, Z26 // l[f + 1]
	VCMPPS $14, Z6, Z3, K2      // w > 0
	VBLENDMPS Z26, Z24, K2, Z26 // l[c]
	VMULPS Z3, Z26, Z26        // l[c]·w
	VSUBPS Z3, Z7, Z3          // 1 − w
	VMULPS Z3, Z24, Z24        // l[f]·(1 − w)
	VMOVUPS (DI)(AX*1), Y4
	VADDPS Y26, Y4, Y4         // z + l[c]·w
	VADDPS Y24, Y4, Y4         // + l[f]·(1 − w)
	VMOVUPS Y4, (DI)(AX*1)
	TESTQ AX, AX
	JNE scan5loop
scan5done:
	VMOVSS X14, ret+80(FP)
	VZEROUPPER
	RET

// func copeGrad8AVX512(dz, g, p, raw, l, cf, cc []float32, fi, ci []int32, top, dot, carry float32) float32
// copeGrad8AVX2 with the lookups of l[f] and l[c] from registers, as copeScan8AVX512: the same
// bits, for npos ≤ 64; l must have 65 readable values.
TEXT ·copeGrad8AVX512(SB), NOSPLIT, $0-236
	MOVQ dz_base+0(FP), DI
	MOVQ dz_len+8(FP), CX
	MOVQ g_base+24(FP), SI
	MOVQ p_base+48(FP), R8
	MOVQ raw_base+72(FP), R9
	MOVQ l_base+96(FP), DX
	MOVQ cf_base+120(FP), R10
	MOVQ cc_base+144(FP), R11
	MOVQ fi_base+168(FP), R12
	MOVQ ci_base+192(FP), R13
	VBROADCASTSS top+216(FP), Y15
	VBROADCASTSS dot+220(FP), Y14
	VBROADCASTSS carry+224(FP), Y13
	SHRQ $3, CX
	JE grad5done
	SHLQ $5, CX                      // bytes
	XORQ AX, AX
	VMOVUPS copeconst<>+256(SB), Y12 // lane j − 1
	VMOVUPS copeconst<>+288(SB), Y11 // lane j − 2
	VMOVUPS copeconst<>+320(SB), Y10 // lane j − 4
	VBROADCASTSS copeconst<>+36(SB), Y9 // 1
	VXORPS Y8, Y8, Y8
	VPBROADCASTD copeconst<>+448(SB), Z5 // 32
	VMOVUPS (DX), Z16          // l[0..15]
	VMOVUPS 64(DX), Z17
	VMOVUPS 128(DX), Z18
	VMOVUPS 192(DX), Z19
	VMOVUPS 4(DX), Z20         // l[1..16]
	VMOVUPS 68(DX), Z21
	VMOVUPS 132(DX), Z22
	VMOVUPS 196(DX), Z23
grad5loop:
	VMOVUPS (R8)(AX*1), Y0
	VMOVUPS (DI)(AX*1), Y1
	VSUBPS Y14, Y1, Y1         // dP − dot
	VMULPS Y1, Y0, Y0          // da = p·(dP − dot)
	VMOVUPS (R9)(AX*1), Y1
	VMINPS Y15, Y1, Y1         // pos = min(raw, top)
	VCVTTPS2DQ Y1, Y2          // f
	VCVTDQ2PS Y2, Y3
	VSUBPS Y3, Y1, Y3          // w = pos − f
	VCMPPS $14, Y8, Y3, Y4     // w > 0: all ones (−1)
	VPSUBD Y4, Y2, Y4          // c = f + (w > 0)
	VMOVDQU Y2, (R12)(AX*1)
	VMOVDQU Y4, (R13)(AX*1)
	VPTESTMD Z5, Z2, K1        // f ≥ 32
	VMOVAPS Z16, Z24
	VPERMT2PS Z17, Z2, Z24
	VMOVAPS Z18, Z25
	VPERMT2PS Z19, Z2, Z25
	VBLENDMPS Z25, Z24, K1, Z1 // l[f]
	VMOVAPS Z20, Z26
	VPERMT2PS Z21, Z2, Z26
	VMOVAPS Z22, Z27
	VPERMT2PS Z23, Z2, Z27
	VBLENDMPS Z27, Z26, K1, Z26 // l[f + 1]
	VCMPPS $14, Z8, Z3, K2      // w > 0
	VBLENDMPS Z26, Z1, K2, Z6   // l[c]
	VSUBPS Y1, Y6, Y6          // l[c] − l[f]
	VMULPS Y6, Y0, Y6          // dp = da·(l[c] − l[f])
	VMULPS Y3, Y0, Y1          // cc = da·w
	VMOVUPS Y1, (R11)(AX*1)
	VSUBPS Y3, Y9, Y3          // 1 − w
	VMULPS Y3, Y0, Y1          // cf = da·(1 − w)
	VMOVUPS Y1, (R10)(AX*1)
	VPERMPS Y6, Y12, Y1
	VANDPS copeconst<>+352(SB), Y1, Y1
	VADDPS Y1, Y6, Y6          // lane j += lane j − 1
	VPERMPS Y6, Y11, Y1
	VANDPS copeconst<>+384(SB), Y1, Y1
	VADDPS Y1, Y6, Y6          // += lane j − 2
	VPERMPS Y6, Y10, Y1
	VANDPS copeconst<>+416(SB), Y1, Y1
	VADDPS Y1, Y6, Y6          // += lane j − 4
	VADDPS Y13, Y6, Y6         // dg = prefix sums + carry
	VPERMILPS $0xff, Y6, Y1
	VPERM2F128 $0x11, Y1, Y1, Y13 // carry = dg[7]
	VMOVUPS (SI)(AX*1), Y1     // g
	VMULPS Y1, Y6, Y2          // dg·g
	VSUBPS Y1, Y9, Y1          // 1 − g
	VMULPS Y1, Y2, Y2          // (dg·g)·(1 − g)
	VADDPS Y2, Y0, Y0          // dz = da + (dg·g)·(1 − g)
	VMOVUPS Y0, (DI)(AX*1)
	ADDQ $32, AX
	CMPQ AX, CX
	JLT grad5loop
grad5done:
	VMOVSS X13, ret+232(FP)
	VZEROUPPER
	RET
