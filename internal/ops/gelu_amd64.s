//go:build amd64 && !purego

// AVX2 + FMA GELU for float32, eight values at a time: the same formula as geluFast32 (erfc by
// the Numerical Recipes fit, exp by Cephes' expf) with −x²/2 kept exact through an FMA.

#include "textflag.h"

DATA geluconst<>+0(SB)/4, $0x7fffffff
DATA geluconst<>+4(SB)/4, $0x7fffffff
DATA geluconst<>+8(SB)/4, $0x7fffffff
DATA geluconst<>+12(SB)/4, $0x7fffffff
DATA geluconst<>+16(SB)/4, $0x7fffffff
DATA geluconst<>+20(SB)/4, $0x7fffffff
DATA geluconst<>+24(SB)/4, $0x7fffffff
DATA geluconst<>+28(SB)/4, $0x7fffffff
DATA geluconst<>+32(SB)/4, $0x3f3504f3
DATA geluconst<>+36(SB)/4, $0x3f3504f3
DATA geluconst<>+40(SB)/4, $0x3f3504f3
DATA geluconst<>+44(SB)/4, $0x3f3504f3
DATA geluconst<>+48(SB)/4, $0x3f3504f3
DATA geluconst<>+52(SB)/4, $0x3f3504f3
DATA geluconst<>+56(SB)/4, $0x3f3504f3
DATA geluconst<>+60(SB)/4, $0x3f3504f3
DATA geluconst<>+64(SB)/4, $0x3f000000
DATA geluconst<>+68(SB)/4, $0x3f000000
DATA geluconst<>+72(SB)/4, $0x3f000000
DATA geluconst<>+76(SB)/4, $0x3f000000
DATA geluconst<>+80(SB)/4, $0x3f000000
DATA geluconst<>+84(SB)/4, $0x3f000000
DATA geluconst<>+88(SB)/4, $0x3f000000
DATA geluconst<>+92(SB)/4, $0x3f000000
DATA geluconst<>+96(SB)/4, $0x3f800000
DATA geluconst<>+100(SB)/4, $0x3f800000
DATA geluconst<>+104(SB)/4, $0x3f800000
DATA geluconst<>+108(SB)/4, $0x3f800000
DATA geluconst<>+112(SB)/4, $0x3f800000
DATA geluconst<>+116(SB)/4, $0x3f800000
DATA geluconst<>+120(SB)/4, $0x3f800000
DATA geluconst<>+124(SB)/4, $0x3f800000
DATA geluconst<>+128(SB)/4, $0x41500000
DATA geluconst<>+132(SB)/4, $0x41500000
DATA geluconst<>+136(SB)/4, $0x41500000
DATA geluconst<>+140(SB)/4, $0x41500000
DATA geluconst<>+144(SB)/4, $0x41500000
DATA geluconst<>+148(SB)/4, $0x41500000
DATA geluconst<>+152(SB)/4, $0x41500000
DATA geluconst<>+156(SB)/4, $0x41500000
DATA geluconst<>+160(SB)/4, $0x3ecc422a
DATA geluconst<>+164(SB)/4, $0x3ecc422a
DATA geluconst<>+168(SB)/4, $0x3ecc422a
DATA geluconst<>+172(SB)/4, $0x3ecc422a
DATA geluconst<>+176(SB)/4, $0x3ecc422a
DATA geluconst<>+180(SB)/4, $0x3ecc422a
DATA geluconst<>+184(SB)/4, $0x3ecc422a
DATA geluconst<>+188(SB)/4, $0x3ecc422a
DATA geluconst<>+192(SB)/4, $0x3fb8aa3b
DATA geluconst<>+196(SB)/4, $0x3fb8aa3b
DATA geluconst<>+200(SB)/4, $0x3fb8aa3b
DATA geluconst<>+204(SB)/4, $0x3fb8aa3b
DATA geluconst<>+208(SB)/4, $0x3fb8aa3b
DATA geluconst<>+212(SB)/4, $0x3fb8aa3b
DATA geluconst<>+216(SB)/4, $0x3fb8aa3b
DATA geluconst<>+220(SB)/4, $0x3fb8aa3b
DATA geluconst<>+224(SB)/4, $0x3f318000
DATA geluconst<>+228(SB)/4, $0x3f318000
DATA geluconst<>+232(SB)/4, $0x3f318000
DATA geluconst<>+236(SB)/4, $0x3f318000
DATA geluconst<>+240(SB)/4, $0x3f318000
DATA geluconst<>+244(SB)/4, $0x3f318000
DATA geluconst<>+248(SB)/4, $0x3f318000
DATA geluconst<>+252(SB)/4, $0x3f318000
DATA geluconst<>+256(SB)/4, $0xb95e8083
DATA geluconst<>+260(SB)/4, $0xb95e8083
DATA geluconst<>+264(SB)/4, $0xb95e8083
DATA geluconst<>+268(SB)/4, $0xb95e8083
DATA geluconst<>+272(SB)/4, $0xb95e8083
DATA geluconst<>+276(SB)/4, $0xb95e8083
DATA geluconst<>+280(SB)/4, $0xb95e8083
DATA geluconst<>+284(SB)/4, $0xb95e8083
DATA geluconst<>+288(SB)/4, $0xbfa1fc4e
DATA geluconst<>+292(SB)/4, $0xbfa1fc4e
DATA geluconst<>+296(SB)/4, $0xbfa1fc4e
DATA geluconst<>+300(SB)/4, $0xbfa1fc4e
DATA geluconst<>+304(SB)/4, $0xbfa1fc4e
DATA geluconst<>+308(SB)/4, $0xbfa1fc4e
DATA geluconst<>+312(SB)/4, $0xbfa1fc4e
DATA geluconst<>+316(SB)/4, $0xbfa1fc4e
DATA geluconst<>+320(SB)/4, $0x3f8000c7
DATA geluconst<>+324(SB)/4, $0x3f8000c7
DATA geluconst<>+328(SB)/4, $0x3f8000c7
DATA geluconst<>+332(SB)/4, $0x3f8000c7
DATA geluconst<>+336(SB)/4, $0x3f8000c7
DATA geluconst<>+340(SB)/4, $0x3f8000c7
DATA geluconst<>+344(SB)/4, $0x3f8000c7
DATA geluconst<>+348(SB)/4, $0x3f8000c7
DATA geluconst<>+352(SB)/4, $0x3ebf88fb
DATA geluconst<>+356(SB)/4, $0x3ebf88fb
DATA geluconst<>+360(SB)/4, $0x3ebf88fb
DATA geluconst<>+364(SB)/4, $0x3ebf88fb
DATA geluconst<>+368(SB)/4, $0x3ebf88fb
DATA geluconst<>+372(SB)/4, $0x3ebf88fb
DATA geluconst<>+376(SB)/4, $0x3ebf88fb
DATA geluconst<>+380(SB)/4, $0x3ebf88fb
DATA geluconst<>+384(SB)/4, $0x3dc636c9
DATA geluconst<>+388(SB)/4, $0x3dc636c9
DATA geluconst<>+392(SB)/4, $0x3dc636c9
DATA geluconst<>+396(SB)/4, $0x3dc636c9
DATA geluconst<>+400(SB)/4, $0x3dc636c9
DATA geluconst<>+404(SB)/4, $0x3dc636c9
DATA geluconst<>+408(SB)/4, $0x3dc636c9
DATA geluconst<>+412(SB)/4, $0x3dc636c9
DATA geluconst<>+416(SB)/4, $0xbe3ec24c
DATA geluconst<>+420(SB)/4, $0xbe3ec24c
DATA geluconst<>+424(SB)/4, $0xbe3ec24c
DATA geluconst<>+428(SB)/4, $0xbe3ec24c
DATA geluconst<>+432(SB)/4, $0xbe3ec24c
DATA geluconst<>+436(SB)/4, $0xbe3ec24c
DATA geluconst<>+440(SB)/4, $0xbe3ec24c
DATA geluconst<>+444(SB)/4, $0xbe3ec24c
DATA geluconst<>+448(SB)/4, $0x3e8ec7cc
DATA geluconst<>+452(SB)/4, $0x3e8ec7cc
DATA geluconst<>+456(SB)/4, $0x3e8ec7cc
DATA geluconst<>+460(SB)/4, $0x3e8ec7cc
DATA geluconst<>+464(SB)/4, $0x3e8ec7cc
DATA geluconst<>+468(SB)/4, $0x3e8ec7cc
DATA geluconst<>+472(SB)/4, $0x3e8ec7cc
DATA geluconst<>+476(SB)/4, $0x3e8ec7cc
DATA geluconst<>+480(SB)/4, $0xbf914e5d
DATA geluconst<>+484(SB)/4, $0xbf914e5d
DATA geluconst<>+488(SB)/4, $0xbf914e5d
DATA geluconst<>+492(SB)/4, $0xbf914e5d
DATA geluconst<>+496(SB)/4, $0xbf914e5d
DATA geluconst<>+500(SB)/4, $0xbf914e5d
DATA geluconst<>+504(SB)/4, $0xbf914e5d
DATA geluconst<>+508(SB)/4, $0xbf914e5d
DATA geluconst<>+512(SB)/4, $0x3fbe87b0
DATA geluconst<>+516(SB)/4, $0x3fbe87b0
DATA geluconst<>+520(SB)/4, $0x3fbe87b0
DATA geluconst<>+524(SB)/4, $0x3fbe87b0
DATA geluconst<>+528(SB)/4, $0x3fbe87b0
DATA geluconst<>+532(SB)/4, $0x3fbe87b0
DATA geluconst<>+536(SB)/4, $0x3fbe87b0
DATA geluconst<>+540(SB)/4, $0x3fbe87b0
DATA geluconst<>+544(SB)/4, $0xbf527892
DATA geluconst<>+548(SB)/4, $0xbf527892
DATA geluconst<>+552(SB)/4, $0xbf527892
DATA geluconst<>+556(SB)/4, $0xbf527892
DATA geluconst<>+560(SB)/4, $0xbf527892
DATA geluconst<>+564(SB)/4, $0xbf527892
DATA geluconst<>+568(SB)/4, $0xbf527892
DATA geluconst<>+572(SB)/4, $0xbf527892
DATA geluconst<>+576(SB)/4, $0x3e2ef945
DATA geluconst<>+580(SB)/4, $0x3e2ef945
DATA geluconst<>+584(SB)/4, $0x3e2ef945
DATA geluconst<>+588(SB)/4, $0x3e2ef945
DATA geluconst<>+592(SB)/4, $0x3e2ef945
DATA geluconst<>+596(SB)/4, $0x3e2ef945
DATA geluconst<>+600(SB)/4, $0x3e2ef945
DATA geluconst<>+604(SB)/4, $0x3e2ef945
DATA geluconst<>+608(SB)/4, $0x39506967
DATA geluconst<>+612(SB)/4, $0x39506967
DATA geluconst<>+616(SB)/4, $0x39506967
DATA geluconst<>+620(SB)/4, $0x39506967
DATA geluconst<>+624(SB)/4, $0x39506967
DATA geluconst<>+628(SB)/4, $0x39506967
DATA geluconst<>+632(SB)/4, $0x39506967
DATA geluconst<>+636(SB)/4, $0x39506967
DATA geluconst<>+640(SB)/4, $0x3ab743ce
DATA geluconst<>+644(SB)/4, $0x3ab743ce
DATA geluconst<>+648(SB)/4, $0x3ab743ce
DATA geluconst<>+652(SB)/4, $0x3ab743ce
DATA geluconst<>+656(SB)/4, $0x3ab743ce
DATA geluconst<>+660(SB)/4, $0x3ab743ce
DATA geluconst<>+664(SB)/4, $0x3ab743ce
DATA geluconst<>+668(SB)/4, $0x3ab743ce
DATA geluconst<>+672(SB)/4, $0x3c088908
DATA geluconst<>+676(SB)/4, $0x3c088908
DATA geluconst<>+680(SB)/4, $0x3c088908
DATA geluconst<>+684(SB)/4, $0x3c088908
DATA geluconst<>+688(SB)/4, $0x3c088908
DATA geluconst<>+692(SB)/4, $0x3c088908
DATA geluconst<>+696(SB)/4, $0x3c088908
DATA geluconst<>+700(SB)/4, $0x3c088908
DATA geluconst<>+704(SB)/4, $0x3d2aa9c1
DATA geluconst<>+708(SB)/4, $0x3d2aa9c1
DATA geluconst<>+712(SB)/4, $0x3d2aa9c1
DATA geluconst<>+716(SB)/4, $0x3d2aa9c1
DATA geluconst<>+720(SB)/4, $0x3d2aa9c1
DATA geluconst<>+724(SB)/4, $0x3d2aa9c1
DATA geluconst<>+728(SB)/4, $0x3d2aa9c1
DATA geluconst<>+732(SB)/4, $0x3d2aa9c1
DATA geluconst<>+736(SB)/4, $0x3e2aaaaa
DATA geluconst<>+740(SB)/4, $0x3e2aaaaa
DATA geluconst<>+744(SB)/4, $0x3e2aaaaa
DATA geluconst<>+748(SB)/4, $0x3e2aaaaa
DATA geluconst<>+752(SB)/4, $0x3e2aaaaa
DATA geluconst<>+756(SB)/4, $0x3e2aaaaa
DATA geluconst<>+760(SB)/4, $0x3e2aaaaa
DATA geluconst<>+764(SB)/4, $0x3e2aaaaa
DATA geluconst<>+768(SB)/4, $0x3f000000
DATA geluconst<>+772(SB)/4, $0x3f000000
DATA geluconst<>+776(SB)/4, $0x3f000000
DATA geluconst<>+780(SB)/4, $0x3f000000
DATA geluconst<>+784(SB)/4, $0x3f000000
DATA geluconst<>+788(SB)/4, $0x3f000000
DATA geluconst<>+792(SB)/4, $0x3f000000
DATA geluconst<>+796(SB)/4, $0x3f000000
GLOBL geluconst<>(SB), RODATA|NOPTR, $800

// func geluFwd8(x, y []float32)
// y[i] = x[i]·Φ(x[i]) for i < len(x)&^7.
TEXT ·geluFwd8(SB), NOSPLIT, $0-48
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ y_base+24(FP), DI
	SHRQ $3, CX
	JE fwddone
fwdloop:
	VMOVUPS (SI), Y0
	VANDPS geluconst<>+0(SB), Y0, Y1
	VCMPPS $0x1e, geluconst<>+128(SB), Y1, Y14
	VMINPS geluconst<>+128(SB), Y1, Y1
	VMULPS geluconst<>+32(SB), Y1, Y2
	VMULPS geluconst<>+64(SB), Y2, Y2
	VADDPS geluconst<>+96(SB), Y2, Y2
	VMOVUPS geluconst<>+96(SB), Y3
	VDIVPS Y2, Y3, Y3
	VMOVUPS geluconst<>+576(SB), Y4
	VFMADD213PS geluconst<>+544(SB), Y3, Y4
	VFMADD213PS geluconst<>+512(SB), Y3, Y4
	VFMADD213PS geluconst<>+480(SB), Y3, Y4
	VFMADD213PS geluconst<>+448(SB), Y3, Y4
	VFMADD213PS geluconst<>+416(SB), Y3, Y4
	VFMADD213PS geluconst<>+384(SB), Y3, Y4
	VFMADD213PS geluconst<>+352(SB), Y3, Y4
	VFMADD213PS geluconst<>+320(SB), Y3, Y4
	VFMADD213PS geluconst<>+288(SB), Y3, Y4
	VMULPS Y1, Y1, Y5
	VMOVAPS Y5, Y6
	VFMSUB231PS Y1, Y1, Y6
	VXORPS Y7, Y7, Y7
	VMULPS geluconst<>+64(SB), Y5, Y5
	VSUBPS Y5, Y7, Y5
	VMULPS geluconst<>+64(SB), Y6, Y6
	VSUBPS Y6, Y7, Y6
	VADDPS Y6, Y4, Y4
	VADDPS Y4, Y5, Y7
	VMULPS geluconst<>+192(SB), Y7, Y7
	VROUNDPS $0, Y7, Y7
	VMOVAPS Y5, Y8
	VFNMADD231PS geluconst<>+224(SB), Y7, Y8
	VADDPS Y4, Y8, Y8
	VFNMADD231PS geluconst<>+256(SB), Y7, Y8
	VMOVUPS geluconst<>+608(SB), Y9
	VFMADD213PS geluconst<>+640(SB), Y8, Y9
	VFMADD213PS geluconst<>+672(SB), Y8, Y9
	VFMADD213PS geluconst<>+704(SB), Y8, Y9
	VFMADD213PS geluconst<>+736(SB), Y8, Y9
	VFMADD213PS geluconst<>+768(SB), Y8, Y9
	VMULPS Y8, Y8, Y10
	VADDPS geluconst<>+96(SB), Y8, Y11
	VFMADD231PS Y10, Y9, Y11
	VCVTPS2DQ Y7, Y7
	VPSLLD $23, Y7, Y7
	VPADDD Y7, Y11, Y11
	VMULPS Y3, Y11, Y11
	VMULPS geluconst<>+64(SB), Y11, Y11
	VANDNPS Y11, Y14, Y11
	VMOVUPS geluconst<>+96(SB), Y12
	VSUBPS Y11, Y12, Y12
	VBLENDVPS Y0, Y11, Y12, Y13
	VMULPS Y13, Y0, Y13
	VMOVUPS Y13, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	DECQ CX
	JNE fwdloop
fwddone:
	VZEROUPPER
	RET

// func geluBwd8(x, g, y []float32)
// y[i] = g[i]·GELU'(x[i]) = g[i]·(Φ(x[i]) + x[i]·φ(x[i])) for i < len(x)&^7.
TEXT ·geluBwd8(SB), NOSPLIT, $0-72
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ g_base+24(FP), DX
	MOVQ y_base+48(FP), DI
	SHRQ $3, CX
	JE bwddone
bwdloop:
	VMOVUPS (SI), Y0
	VANDPS geluconst<>+0(SB), Y0, Y1
	VCMPPS $0x1e, geluconst<>+128(SB), Y1, Y14
	VMINPS geluconst<>+128(SB), Y1, Y1
	VMULPS geluconst<>+32(SB), Y1, Y2
	VMULPS geluconst<>+64(SB), Y2, Y2
	VADDPS geluconst<>+96(SB), Y2, Y2
	VMOVUPS geluconst<>+96(SB), Y3
	VDIVPS Y2, Y3, Y3
	VMOVUPS geluconst<>+576(SB), Y4
	VFMADD213PS geluconst<>+544(SB), Y3, Y4
	VFMADD213PS geluconst<>+512(SB), Y3, Y4
	VFMADD213PS geluconst<>+480(SB), Y3, Y4
	VFMADD213PS geluconst<>+448(SB), Y3, Y4
	VFMADD213PS geluconst<>+416(SB), Y3, Y4
	VFMADD213PS geluconst<>+384(SB), Y3, Y4
	VFMADD213PS geluconst<>+352(SB), Y3, Y4
	VFMADD213PS geluconst<>+320(SB), Y3, Y4
	VFMADD213PS geluconst<>+288(SB), Y3, Y4
	VMULPS Y1, Y1, Y5
	VMOVAPS Y5, Y6
	VFMSUB231PS Y1, Y1, Y6
	VXORPS Y7, Y7, Y7
	VMULPS geluconst<>+64(SB), Y5, Y5
	VSUBPS Y5, Y7, Y5
	VMULPS geluconst<>+64(SB), Y6, Y6
	VSUBPS Y6, Y7, Y6
	VADDPS Y6, Y4, Y4
	VADDPS Y4, Y5, Y7
	VMULPS geluconst<>+192(SB), Y7, Y7
	VROUNDPS $0, Y7, Y7
	VMOVAPS Y5, Y8
	VFNMADD231PS geluconst<>+224(SB), Y7, Y8
	VADDPS Y4, Y8, Y8
	VFNMADD231PS geluconst<>+256(SB), Y7, Y8
	VMOVUPS geluconst<>+608(SB), Y9
	VFMADD213PS geluconst<>+640(SB), Y8, Y9
	VFMADD213PS geluconst<>+672(SB), Y8, Y9
	VFMADD213PS geluconst<>+704(SB), Y8, Y9
	VFMADD213PS geluconst<>+736(SB), Y8, Y9
	VFMADD213PS geluconst<>+768(SB), Y8, Y9
	VMULPS Y8, Y8, Y10
	VADDPS geluconst<>+96(SB), Y8, Y11
	VFMADD231PS Y10, Y9, Y11
	VCVTPS2DQ Y7, Y7
	VPSLLD $23, Y7, Y7
	VPADDD Y7, Y11, Y11
	VMULPS Y3, Y11, Y11
	VMULPS geluconst<>+64(SB), Y11, Y11
	VANDNPS Y11, Y14, Y11
	VMOVUPS geluconst<>+96(SB), Y12
	VSUBPS Y11, Y12, Y12
	VBLENDVPS Y0, Y11, Y12, Y13
	VADDPS Y6, Y5, Y7
	VMULPS geluconst<>+192(SB), Y7, Y7
	VROUNDPS $0, Y7, Y7
	VMOVAPS Y5, Y8
	VFNMADD231PS geluconst<>+224(SB), Y7, Y8
	VADDPS Y6, Y8, Y8
	VFNMADD231PS geluconst<>+256(SB), Y7, Y8
	VMOVUPS geluconst<>+608(SB), Y9
	VFMADD213PS geluconst<>+640(SB), Y8, Y9
	VFMADD213PS geluconst<>+672(SB), Y8, Y9
	VFMADD213PS geluconst<>+704(SB), Y8, Y9
	VFMADD213PS geluconst<>+736(SB), Y8, Y9
	VFMADD213PS geluconst<>+768(SB), Y8, Y9
	VMULPS Y8, Y8, Y10
	VADDPS geluconst<>+96(SB), Y8, Y11
	VFMADD231PS Y10, Y9, Y11
	VCVTPS2DQ Y7, Y7
	VPSLLD $23, Y7, Y7
	VPADDD Y7, Y11, Y11
	VANDNPS Y11, Y14, Y11
	VMULPS geluconst<>+160(SB), Y11, Y11
	VMULPS Y0, Y11, Y11
	VADDPS Y11, Y13, Y13
	VMULPS (DX), Y13, Y13
	VMOVUPS Y13, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, DI
	DECQ CX
	JNE bwdloop
bwddone:
	VZEROUPPER
	RET

// func geluFwd8x2(x, y []float32)
// geluFwd8 on sixteen values a step (len(x)&^15 of them), as two interleaved blocks of eight
// whose operations are geluFwd8's, in its order, value by value (so its bits): the two
// dependency chains overlap, which one chain of eight leaves the core too little to do. x is
// loaded again for the sign and the |x| > 13 test rather than kept, for lack of registers.
TEXT ·geluFwd8x2(SB), NOSPLIT, $0-48
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ y_base+24(FP), DI
	SHRQ $4, CX
	JE fwdx2done
	VXORPS Y15, Y15, Y15
fwdx2loop:
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y7
	VANDPS geluconst<>+0(SB), Y0, Y0
	VANDPS geluconst<>+0(SB), Y7, Y7
	VMINPS geluconst<>+128(SB), Y0, Y0
	VMINPS geluconst<>+128(SB), Y7, Y7
	VMULPS geluconst<>+32(SB), Y0, Y1
	VMULPS geluconst<>+32(SB), Y7, Y8
	VMULPS geluconst<>+64(SB), Y1, Y1
	VMULPS geluconst<>+64(SB), Y8, Y8
	VADDPS geluconst<>+96(SB), Y1, Y1
	VADDPS geluconst<>+96(SB), Y8, Y8
	VMOVUPS geluconst<>+96(SB), Y2
	VMOVUPS geluconst<>+96(SB), Y9
	VDIVPS Y1, Y2, Y2
	VDIVPS Y8, Y9, Y9
	VMOVUPS geluconst<>+576(SB), Y3
	VMOVUPS geluconst<>+576(SB), Y10
	VFMADD213PS geluconst<>+544(SB), Y2, Y3
	VFMADD213PS geluconst<>+544(SB), Y9, Y10
	VFMADD213PS geluconst<>+512(SB), Y2, Y3
	VFMADD213PS geluconst<>+512(SB), Y9, Y10
	VFMADD213PS geluconst<>+480(SB), Y2, Y3
	VFMADD213PS geluconst<>+480(SB), Y9, Y10
	VFMADD213PS geluconst<>+448(SB), Y2, Y3
	VFMADD213PS geluconst<>+448(SB), Y9, Y10
	VFMADD213PS geluconst<>+416(SB), Y2, Y3
	VFMADD213PS geluconst<>+416(SB), Y9, Y10
	VFMADD213PS geluconst<>+384(SB), Y2, Y3
	VFMADD213PS geluconst<>+384(SB), Y9, Y10
	VFMADD213PS geluconst<>+352(SB), Y2, Y3
	VFMADD213PS geluconst<>+352(SB), Y9, Y10
	VFMADD213PS geluconst<>+320(SB), Y2, Y3
	VFMADD213PS geluconst<>+320(SB), Y9, Y10
	VFMADD213PS geluconst<>+288(SB), Y2, Y3
	VFMADD213PS geluconst<>+288(SB), Y9, Y10
	VMULPS Y0, Y0, Y4
	VMULPS Y7, Y7, Y11
	VMOVAPS Y4, Y5
	VMOVAPS Y11, Y12
	VFMSUB231PS Y0, Y0, Y5
	VFMSUB231PS Y7, Y7, Y12
	VMULPS geluconst<>+64(SB), Y4, Y4
	VMULPS geluconst<>+64(SB), Y11, Y11
	VSUBPS Y4, Y15, Y4
	VSUBPS Y11, Y15, Y11
	VMULPS geluconst<>+64(SB), Y5, Y5
	VMULPS geluconst<>+64(SB), Y12, Y12
	VSUBPS Y5, Y15, Y5
	VSUBPS Y12, Y15, Y12
	VADDPS Y5, Y3, Y3
	VADDPS Y12, Y10, Y10
	VADDPS Y3, Y4, Y1
	VADDPS Y10, Y11, Y8
	VMULPS geluconst<>+192(SB), Y1, Y1
	VMULPS geluconst<>+192(SB), Y8, Y8
	VROUNDPS $0, Y1, Y1
	VROUNDPS $0, Y8, Y8
	VFNMADD231PS geluconst<>+224(SB), Y1, Y4
	VFNMADD231PS geluconst<>+224(SB), Y8, Y11
	VADDPS Y3, Y4, Y4
	VADDPS Y10, Y11, Y11
	VFNMADD231PS geluconst<>+256(SB), Y1, Y4
	VFNMADD231PS geluconst<>+256(SB), Y8, Y11
	VMOVUPS geluconst<>+608(SB), Y5
	VMOVUPS geluconst<>+608(SB), Y12
	VFMADD213PS geluconst<>+640(SB), Y4, Y5
	VFMADD213PS geluconst<>+640(SB), Y11, Y12
	VFMADD213PS geluconst<>+672(SB), Y4, Y5
	VFMADD213PS geluconst<>+672(SB), Y11, Y12
	VFMADD213PS geluconst<>+704(SB), Y4, Y5
	VFMADD213PS geluconst<>+704(SB), Y11, Y12
	VFMADD213PS geluconst<>+736(SB), Y4, Y5
	VFMADD213PS geluconst<>+736(SB), Y11, Y12
	VFMADD213PS geluconst<>+768(SB), Y4, Y5
	VFMADD213PS geluconst<>+768(SB), Y11, Y12
	VMULPS Y4, Y4, Y0
	VMULPS Y11, Y11, Y7
	VADDPS geluconst<>+96(SB), Y4, Y3
	VADDPS geluconst<>+96(SB), Y11, Y10
	VFMADD231PS Y0, Y5, Y3
	VFMADD231PS Y7, Y12, Y10
	VCVTPS2DQ Y1, Y1
	VCVTPS2DQ Y8, Y8
	VPSLLD $23, Y1, Y1
	VPSLLD $23, Y8, Y8
	VPADDD Y1, Y3, Y3
	VPADDD Y8, Y10, Y10
	VMULPS Y2, Y3, Y3
	VMULPS Y9, Y10, Y10
	VMULPS geluconst<>+64(SB), Y3, Y3
	VMULPS geluconst<>+64(SB), Y10, Y10
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y7
	VANDPS geluconst<>+0(SB), Y0, Y5
	VANDPS geluconst<>+0(SB), Y7, Y12
	VCMPPS $0x1e, geluconst<>+128(SB), Y5, Y5
	VCMPPS $0x1e, geluconst<>+128(SB), Y12, Y12
	VANDNPS Y3, Y5, Y3
	VANDNPS Y10, Y12, Y10
	VMOVUPS geluconst<>+96(SB), Y1
	VMOVUPS geluconst<>+96(SB), Y8
	VSUBPS Y3, Y1, Y1
	VSUBPS Y10, Y8, Y8
	VBLENDVPS Y0, Y3, Y1, Y6
	VBLENDVPS Y7, Y10, Y8, Y13
	VMULPS Y6, Y0, Y6
	VMULPS Y13, Y7, Y13
	VMOVUPS Y6, 0(DI)
	VMOVUPS Y13, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNE fwdx2loop
fwdx2done:
	VZEROUPPER
	RET

// func geluFwdPhi8(x, y, phi []float32)
// geluFwd8 that also stores each value's Φ(x) to phi (the same operations, so the same y).
TEXT ·geluFwdPhi8(SB), NOSPLIT, $0-72
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ y_base+24(FP), DI
	MOVQ phi_base+48(FP), R8
	SHRQ $3, CX
	JE fwdphidone
fwdphiloop:
	VMOVUPS (SI), Y0
	VANDPS geluconst<>+0(SB), Y0, Y1
	VCMPPS $0x1e, geluconst<>+128(SB), Y1, Y14
	VMINPS geluconst<>+128(SB), Y1, Y1
	VMULPS geluconst<>+32(SB), Y1, Y2
	VMULPS geluconst<>+64(SB), Y2, Y2
	VADDPS geluconst<>+96(SB), Y2, Y2
	VMOVUPS geluconst<>+96(SB), Y3
	VDIVPS Y2, Y3, Y3
	VMOVUPS geluconst<>+576(SB), Y4
	VFMADD213PS geluconst<>+544(SB), Y3, Y4
	VFMADD213PS geluconst<>+512(SB), Y3, Y4
	VFMADD213PS geluconst<>+480(SB), Y3, Y4
	VFMADD213PS geluconst<>+448(SB), Y3, Y4
	VFMADD213PS geluconst<>+416(SB), Y3, Y4
	VFMADD213PS geluconst<>+384(SB), Y3, Y4
	VFMADD213PS geluconst<>+352(SB), Y3, Y4
	VFMADD213PS geluconst<>+320(SB), Y3, Y4
	VFMADD213PS geluconst<>+288(SB), Y3, Y4
	VMULPS Y1, Y1, Y5
	VMOVAPS Y5, Y6
	VFMSUB231PS Y1, Y1, Y6
	VXORPS Y7, Y7, Y7
	VMULPS geluconst<>+64(SB), Y5, Y5
	VSUBPS Y5, Y7, Y5
	VMULPS geluconst<>+64(SB), Y6, Y6
	VSUBPS Y6, Y7, Y6
	VADDPS Y6, Y4, Y4
	VADDPS Y4, Y5, Y7
	VMULPS geluconst<>+192(SB), Y7, Y7
	VROUNDPS $0, Y7, Y7
	VMOVAPS Y5, Y8
	VFNMADD231PS geluconst<>+224(SB), Y7, Y8
	VADDPS Y4, Y8, Y8
	VFNMADD231PS geluconst<>+256(SB), Y7, Y8
	VMOVUPS geluconst<>+608(SB), Y9
	VFMADD213PS geluconst<>+640(SB), Y8, Y9
	VFMADD213PS geluconst<>+672(SB), Y8, Y9
	VFMADD213PS geluconst<>+704(SB), Y8, Y9
	VFMADD213PS geluconst<>+736(SB), Y8, Y9
	VFMADD213PS geluconst<>+768(SB), Y8, Y9
	VMULPS Y8, Y8, Y10
	VADDPS geluconst<>+96(SB), Y8, Y11
	VFMADD231PS Y10, Y9, Y11
	VCVTPS2DQ Y7, Y7
	VPSLLD $23, Y7, Y7
	VPADDD Y7, Y11, Y11
	VMULPS Y3, Y11, Y11
	VMULPS geluconst<>+64(SB), Y11, Y11
	VANDNPS Y11, Y14, Y11
	VMOVUPS geluconst<>+96(SB), Y12
	VSUBPS Y11, Y12, Y12
	VBLENDVPS Y0, Y11, Y12, Y13
	VMOVUPS Y13, (R8)
	VMULPS Y13, Y0, Y13
	VMOVUPS Y13, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R8
	DECQ CX
	JNE fwdphiloop
fwdphidone:
	VZEROUPPER
	RET

// func geluFwdPhi8x2(x, y, phi []float32)
// geluFwd8x2 that also stores each value's Φ(x) (the factor it multiplies x by) to phi, for
// geluBwdPhi8: the same operations, so the same y.
TEXT ·geluFwdPhi8x2(SB), NOSPLIT, $0-72
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ y_base+24(FP), DI
	MOVQ phi_base+48(FP), R8
	SHRQ $4, CX
	JE fwdphix2done
	VXORPS Y15, Y15, Y15
fwdphix2loop:
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y7
	VANDPS geluconst<>+0(SB), Y0, Y0
	VANDPS geluconst<>+0(SB), Y7, Y7
	VMINPS geluconst<>+128(SB), Y0, Y0
	VMINPS geluconst<>+128(SB), Y7, Y7
	VMULPS geluconst<>+32(SB), Y0, Y1
	VMULPS geluconst<>+32(SB), Y7, Y8
	VMULPS geluconst<>+64(SB), Y1, Y1
	VMULPS geluconst<>+64(SB), Y8, Y8
	VADDPS geluconst<>+96(SB), Y1, Y1
	VADDPS geluconst<>+96(SB), Y8, Y8
	VMOVUPS geluconst<>+96(SB), Y2
	VMOVUPS geluconst<>+96(SB), Y9
	VDIVPS Y1, Y2, Y2
	VDIVPS Y8, Y9, Y9
	VMOVUPS geluconst<>+576(SB), Y3
	VMOVUPS geluconst<>+576(SB), Y10
	VFMADD213PS geluconst<>+544(SB), Y2, Y3
	VFMADD213PS geluconst<>+544(SB), Y9, Y10
	VFMADD213PS geluconst<>+512(SB), Y2, Y3
	VFMADD213PS geluconst<>+512(SB), Y9, Y10
	VFMADD213PS geluconst<>+480(SB), Y2, Y3
	VFMADD213PS geluconst<>+480(SB), Y9, Y10
	VFMADD213PS geluconst<>+448(SB), Y2, Y3
	VFMADD213PS geluconst<>+448(SB), Y9, Y10
	VFMADD213PS geluconst<>+416(SB), Y2, Y3
	VFMADD213PS geluconst<>+416(SB), Y9, Y10
	VFMADD213PS geluconst<>+384(SB), Y2, Y3
	VFMADD213PS geluconst<>+384(SB), Y9, Y10
	VFMADD213PS geluconst<>+352(SB), Y2, Y3
	VFMADD213PS geluconst<>+352(SB), Y9, Y10
	VFMADD213PS geluconst<>+320(SB), Y2, Y3
	VFMADD213PS geluconst<>+320(SB), Y9, Y10
	VFMADD213PS geluconst<>+288(SB), Y2, Y3
	VFMADD213PS geluconst<>+288(SB), Y9, Y10
	VMULPS Y0, Y0, Y4
	VMULPS Y7, Y7, Y11
	VMOVAPS Y4, Y5
	VMOVAPS Y11, Y12
	VFMSUB231PS Y0, Y0, Y5
	VFMSUB231PS Y7, Y7, Y12
	VMULPS geluconst<>+64(SB), Y4, Y4
	VMULPS geluconst<>+64(SB), Y11, Y11
	VSUBPS Y4, Y15, Y4
	VSUBPS Y11, Y15, Y11
	VMULPS geluconst<>+64(SB), Y5, Y5
	VMULPS geluconst<>+64(SB), Y12, Y12
	VSUBPS Y5, Y15, Y5
	VSUBPS Y12, Y15, Y12
	VADDPS Y5, Y3, Y3
	VADDPS Y12, Y10, Y10
	VADDPS Y3, Y4, Y1
	VADDPS Y10, Y11, Y8
	VMULPS geluconst<>+192(SB), Y1, Y1
	VMULPS geluconst<>+192(SB), Y8, Y8
	VROUNDPS $0, Y1, Y1
	VROUNDPS $0, Y8, Y8
	VFNMADD231PS geluconst<>+224(SB), Y1, Y4
	VFNMADD231PS geluconst<>+224(SB), Y8, Y11
	VADDPS Y3, Y4, Y4
	VADDPS Y10, Y11, Y11
	VFNMADD231PS geluconst<>+256(SB), Y1, Y4
	VFNMADD231PS geluconst<>+256(SB), Y8, Y11
	VMOVUPS geluconst<>+608(SB), Y5
	VMOVUPS geluconst<>+608(SB), Y12
	VFMADD213PS geluconst<>+640(SB), Y4, Y5
	VFMADD213PS geluconst<>+640(SB), Y11, Y12
	VFMADD213PS geluconst<>+672(SB), Y4, Y5
	VFMADD213PS geluconst<>+672(SB), Y11, Y12
	VFMADD213PS geluconst<>+704(SB), Y4, Y5
	VFMADD213PS geluconst<>+704(SB), Y11, Y12
	VFMADD213PS geluconst<>+736(SB), Y4, Y5
	VFMADD213PS geluconst<>+736(SB), Y11, Y12
	VFMADD213PS geluconst<>+768(SB), Y4, Y5
	VFMADD213PS geluconst<>+768(SB), Y11, Y12
	VMULPS Y4, Y4, Y0
	VMULPS Y11, Y11, Y7
	VADDPS geluconst<>+96(SB), Y4, Y3
	VADDPS geluconst<>+96(SB), Y11, Y10
	VFMADD231PS Y0, Y5, Y3
	VFMADD231PS Y7, Y12, Y10
	VCVTPS2DQ Y1, Y1
	VCVTPS2DQ Y8, Y8
	VPSLLD $23, Y1, Y1
	VPSLLD $23, Y8, Y8
	VPADDD Y1, Y3, Y3
	VPADDD Y8, Y10, Y10
	VMULPS Y2, Y3, Y3
	VMULPS Y9, Y10, Y10
	VMULPS geluconst<>+64(SB), Y3, Y3
	VMULPS geluconst<>+64(SB), Y10, Y10
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y7
	VANDPS geluconst<>+0(SB), Y0, Y5
	VANDPS geluconst<>+0(SB), Y7, Y12
	VCMPPS $0x1e, geluconst<>+128(SB), Y5, Y5
	VCMPPS $0x1e, geluconst<>+128(SB), Y12, Y12
	VANDNPS Y3, Y5, Y3
	VANDNPS Y10, Y12, Y10
	VMOVUPS geluconst<>+96(SB), Y1
	VMOVUPS geluconst<>+96(SB), Y8
	VSUBPS Y3, Y1, Y1
	VSUBPS Y10, Y8, Y8
	VBLENDVPS Y0, Y3, Y1, Y6
	VBLENDVPS Y7, Y10, Y8, Y13
	VMOVUPS Y6, 0(R8)
	VMOVUPS Y13, 32(R8)
	VMULPS Y6, Y0, Y6
	VMULPS Y13, Y7, Y13
	VMOVUPS Y6, 0(DI)
	VMOVUPS Y13, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R8
	DECQ CX
	JNE fwdphix2loop
fwdphix2done:
	VZEROUPPER
	RET


// func geluBwdPhi8(x, phi, g, y []float32)
// geluBwd8 with Φ(x) read from phi (as geluFwdPhi8x2 stored it) instead of computed: the rest of
// geluBwd8's operations in its order (−x²/2 and its low part, the density's exponential, the
// sum and the product by g), so its bits; len(x)&^7 values.
TEXT ·geluBwdPhi8(SB), NOSPLIT, $0-96
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ phi_base+24(FP), R8
	MOVQ g_base+48(FP), DX
	MOVQ y_base+72(FP), DI
	SHRQ $3, CX
	JE bwdphidone
bwdphiloop:
	VMOVUPS (SI), Y0
	VANDPS geluconst<>+0(SB), Y0, Y1
	VCMPPS $0x1e, geluconst<>+128(SB), Y1, Y14
	VMINPS geluconst<>+128(SB), Y1, Y1
	VMULPS Y1, Y1, Y5
	VMOVAPS Y5, Y6
	VFMSUB231PS Y1, Y1, Y6
	VXORPS Y7, Y7, Y7
	VMULPS geluconst<>+64(SB), Y5, Y5
	VSUBPS Y5, Y7, Y5
	VMULPS geluconst<>+64(SB), Y6, Y6
	VSUBPS Y6, Y7, Y6
	VMOVUPS (R8), Y13
	VADDPS Y6, Y5, Y7
	VMULPS geluconst<>+192(SB), Y7, Y7
	VROUNDPS $0, Y7, Y7
	VMOVAPS Y5, Y8
	VFNMADD231PS geluconst<>+224(SB), Y7, Y8
	VADDPS Y6, Y8, Y8
	VFNMADD231PS geluconst<>+256(SB), Y7, Y8
	VMOVUPS geluconst<>+608(SB), Y9
	VFMADD213PS geluconst<>+640(SB), Y8, Y9
	VFMADD213PS geluconst<>+672(SB), Y8, Y9
	VFMADD213PS geluconst<>+704(SB), Y8, Y9
	VFMADD213PS geluconst<>+736(SB), Y8, Y9
	VFMADD213PS geluconst<>+768(SB), Y8, Y9
	VMULPS Y8, Y8, Y10
	VADDPS geluconst<>+96(SB), Y8, Y11
	VFMADD231PS Y10, Y9, Y11
	VCVTPS2DQ Y7, Y7
	VPSLLD $23, Y7, Y7
	VPADDD Y7, Y11, Y11
	VANDNPS Y11, Y14, Y11
	VMULPS geluconst<>+160(SB), Y11, Y11
	VMULPS Y0, Y11, Y11
	VADDPS Y11, Y13, Y13
	VMULPS (DX), Y13, Y13
	VMOVUPS Y13, (DI)
	ADDQ $32, SI
	ADDQ $32, DX
	ADDQ $32, R8
	ADDQ $32, DI
	DECQ CX
	JNE bwdphiloop
bwdphidone:
	VZEROUPPER
	RET

// func geluBwd8x2(x, g, y []float32)
// geluBwd8 on sixteen values a step (len(x)&^15 of them), two blocks of eight interleaved as in
// geluFwd8x2, each value through geluBwd8's operations in its order; −x²/2 and its low part are
// computed again (the same operations) for the density's exponential rather than kept.
TEXT ·geluBwd8x2(SB), NOSPLIT, $0-72
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ g_base+24(FP), DX
	MOVQ y_base+48(FP), DI
	SHRQ $4, CX
	JE bwdx2done
	VXORPS Y15, Y15, Y15
bwdx2loop:
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y7
	VANDPS geluconst<>+0(SB), Y0, Y0
	VANDPS geluconst<>+0(SB), Y7, Y7
	VMINPS geluconst<>+128(SB), Y0, Y0
	VMINPS geluconst<>+128(SB), Y7, Y7
	VMULPS geluconst<>+32(SB), Y0, Y1
	VMULPS geluconst<>+32(SB), Y7, Y8
	VMULPS geluconst<>+64(SB), Y1, Y1
	VMULPS geluconst<>+64(SB), Y8, Y8
	VADDPS geluconst<>+96(SB), Y1, Y1
	VADDPS geluconst<>+96(SB), Y8, Y8
	VMOVUPS geluconst<>+96(SB), Y2
	VMOVUPS geluconst<>+96(SB), Y9
	VDIVPS Y1, Y2, Y2
	VDIVPS Y8, Y9, Y9
	VMOVUPS geluconst<>+576(SB), Y3
	VMOVUPS geluconst<>+576(SB), Y10
	VFMADD213PS geluconst<>+544(SB), Y2, Y3
	VFMADD213PS geluconst<>+544(SB), Y9, Y10
	VFMADD213PS geluconst<>+512(SB), Y2, Y3
	VFMADD213PS geluconst<>+512(SB), Y9, Y10
	VFMADD213PS geluconst<>+480(SB), Y2, Y3
	VFMADD213PS geluconst<>+480(SB), Y9, Y10
	VFMADD213PS geluconst<>+448(SB), Y2, Y3
	VFMADD213PS geluconst<>+448(SB), Y9, Y10
	VFMADD213PS geluconst<>+416(SB), Y2, Y3
	VFMADD213PS geluconst<>+416(SB), Y9, Y10
	VFMADD213PS geluconst<>+384(SB), Y2, Y3
	VFMADD213PS geluconst<>+384(SB), Y9, Y10
	VFMADD213PS geluconst<>+352(SB), Y2, Y3
	VFMADD213PS geluconst<>+352(SB), Y9, Y10
	VFMADD213PS geluconst<>+320(SB), Y2, Y3
	VFMADD213PS geluconst<>+320(SB), Y9, Y10
	VFMADD213PS geluconst<>+288(SB), Y2, Y3
	VFMADD213PS geluconst<>+288(SB), Y9, Y10
	VMULPS Y0, Y0, Y4
	VMULPS Y7, Y7, Y11
	VMOVAPS Y4, Y5
	VMOVAPS Y11, Y12
	VFMSUB231PS Y0, Y0, Y5
	VFMSUB231PS Y7, Y7, Y12
	VMULPS geluconst<>+64(SB), Y4, Y4
	VMULPS geluconst<>+64(SB), Y11, Y11
	VSUBPS Y4, Y15, Y4
	VSUBPS Y11, Y15, Y11
	VMULPS geluconst<>+64(SB), Y5, Y5
	VMULPS geluconst<>+64(SB), Y12, Y12
	VSUBPS Y5, Y15, Y5
	VSUBPS Y12, Y15, Y12
	VADDPS Y5, Y3, Y3
	VADDPS Y12, Y10, Y10
	VADDPS Y3, Y4, Y1
	VADDPS Y10, Y11, Y8
	VMULPS geluconst<>+192(SB), Y1, Y1
	VMULPS geluconst<>+192(SB), Y8, Y8
	VROUNDPS $0, Y1, Y1
	VROUNDPS $0, Y8, Y8
	VFNMADD231PS geluconst<>+224(SB), Y1, Y4
	VFNMADD231PS geluconst<>+224(SB), Y8, Y11
	VADDPS Y3, Y4, Y4
	VADDPS Y10, Y11, Y11
	VFNMADD231PS geluconst<>+256(SB), Y1, Y4
	VFNMADD231PS geluconst<>+256(SB), Y8, Y11
	VMOVUPS geluconst<>+608(SB), Y5
	VMOVUPS geluconst<>+608(SB), Y12
	VFMADD213PS geluconst<>+640(SB), Y4, Y5
	VFMADD213PS geluconst<>+640(SB), Y11, Y12
	VFMADD213PS geluconst<>+672(SB), Y4, Y5
	VFMADD213PS geluconst<>+672(SB), Y11, Y12
	VFMADD213PS geluconst<>+704(SB), Y4, Y5
	VFMADD213PS geluconst<>+704(SB), Y11, Y12
	VFMADD213PS geluconst<>+736(SB), Y4, Y5
	VFMADD213PS geluconst<>+736(SB), Y11, Y12
	VFMADD213PS geluconst<>+768(SB), Y4, Y5
	VFMADD213PS geluconst<>+768(SB), Y11, Y12
	VMULPS Y4, Y4, Y0
	VMULPS Y11, Y11, Y7
	VADDPS geluconst<>+96(SB), Y4, Y3
	VADDPS geluconst<>+96(SB), Y11, Y10
	VFMADD231PS Y0, Y5, Y3
	VFMADD231PS Y7, Y12, Y10
	VCVTPS2DQ Y1, Y1
	VCVTPS2DQ Y8, Y8
	VPSLLD $23, Y1, Y1
	VPSLLD $23, Y8, Y8
	VPADDD Y1, Y3, Y3
	VPADDD Y8, Y10, Y10
	VMULPS Y2, Y3, Y3
	VMULPS Y9, Y10, Y10
	VMULPS geluconst<>+64(SB), Y3, Y3
	VMULPS geluconst<>+64(SB), Y10, Y10
	VMOVUPS 0(SI), Y0
	VMOVUPS 32(SI), Y7
	VANDPS geluconst<>+0(SB), Y0, Y5
	VANDPS geluconst<>+0(SB), Y7, Y12
	VCMPPS $0x1e, geluconst<>+128(SB), Y5, Y5
	VCMPPS $0x1e, geluconst<>+128(SB), Y12, Y12
	VANDNPS Y3, Y5, Y3
	VANDNPS Y10, Y12, Y10
	VMOVUPS geluconst<>+96(SB), Y1
	VMOVUPS geluconst<>+96(SB), Y8
	VSUBPS Y3, Y1, Y1
	VSUBPS Y10, Y8, Y8
	VBLENDVPS Y0, Y3, Y1, Y6
	VBLENDVPS Y7, Y10, Y8, Y13
	VANDPS geluconst<>+0(SB), Y0, Y1
	VANDPS geluconst<>+0(SB), Y7, Y8
	VMINPS geluconst<>+128(SB), Y1, Y1
	VMINPS geluconst<>+128(SB), Y8, Y8
	VMULPS Y1, Y1, Y4
	VMULPS Y8, Y8, Y11
	VMOVAPS Y4, Y2
	VMOVAPS Y11, Y9
	VFMSUB231PS Y1, Y1, Y2
	VFMSUB231PS Y8, Y8, Y9
	VMULPS geluconst<>+64(SB), Y4, Y4
	VMULPS geluconst<>+64(SB), Y11, Y11
	VSUBPS Y4, Y15, Y4
	VSUBPS Y11, Y15, Y11
	VMULPS geluconst<>+64(SB), Y2, Y2
	VMULPS geluconst<>+64(SB), Y9, Y9
	VSUBPS Y2, Y15, Y2
	VSUBPS Y9, Y15, Y9
	VADDPS Y2, Y4, Y1
	VADDPS Y9, Y11, Y8
	VMULPS geluconst<>+192(SB), Y1, Y1
	VMULPS geluconst<>+192(SB), Y8, Y8
	VROUNDPS $0, Y1, Y1
	VROUNDPS $0, Y8, Y8
	VFNMADD231PS geluconst<>+224(SB), Y1, Y4
	VFNMADD231PS geluconst<>+224(SB), Y8, Y11
	VADDPS Y2, Y4, Y4
	VADDPS Y9, Y11, Y11
	VFNMADD231PS geluconst<>+256(SB), Y1, Y4
	VFNMADD231PS geluconst<>+256(SB), Y8, Y11
	VMOVUPS geluconst<>+608(SB), Y3
	VMOVUPS geluconst<>+608(SB), Y10
	VFMADD213PS geluconst<>+640(SB), Y4, Y3
	VFMADD213PS geluconst<>+640(SB), Y11, Y10
	VFMADD213PS geluconst<>+672(SB), Y4, Y3
	VFMADD213PS geluconst<>+672(SB), Y11, Y10
	VFMADD213PS geluconst<>+704(SB), Y4, Y3
	VFMADD213PS geluconst<>+704(SB), Y11, Y10
	VFMADD213PS geluconst<>+736(SB), Y4, Y3
	VFMADD213PS geluconst<>+736(SB), Y11, Y10
	VFMADD213PS geluconst<>+768(SB), Y4, Y3
	VFMADD213PS geluconst<>+768(SB), Y11, Y10
	VMULPS Y4, Y4, Y2
	VMULPS Y11, Y11, Y9
	VADDPS geluconst<>+96(SB), Y4, Y4
	VADDPS geluconst<>+96(SB), Y11, Y11
	VFMADD231PS Y2, Y3, Y4
	VFMADD231PS Y9, Y10, Y11
	VCVTPS2DQ Y1, Y1
	VCVTPS2DQ Y8, Y8
	VPSLLD $23, Y1, Y1
	VPSLLD $23, Y8, Y8
	VPADDD Y1, Y4, Y4
	VPADDD Y8, Y11, Y11
	VANDNPS Y4, Y5, Y4
	VANDNPS Y11, Y12, Y11
	VMULPS geluconst<>+160(SB), Y4, Y4
	VMULPS geluconst<>+160(SB), Y11, Y11
	VMULPS Y0, Y4, Y4
	VMULPS Y7, Y11, Y11
	VADDPS Y4, Y6, Y6
	VADDPS Y11, Y13, Y13
	VMULPS 0(DX), Y6, Y6
	VMULPS 32(DX), Y13, Y13
	VMOVUPS Y6, 0(DI)
	VMOVUPS Y13, 32(DI)
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $64, DI
	DECQ CX
	JNE bwdx2loop
bwdx2done:
	VZEROUPPER
	RET

// The AVX-512 versions (AVX512F + DQ): the same instructions on sixteen values, constants by
// embedded broadcast, the |x| > 13 and sign selections through mask registers. Each value goes
// through the same operations as in the eight-wide kernels, so the results are the same bits.

// func geluFwd16(x, y []float32)
// y[i] = x[i]·Φ(x[i]) for i < len(x)&^15.
TEXT ·geluFwd16(SB), NOSPLIT, $0-48
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ y_base+24(FP), DI
	SHRQ $4, CX
	JE fwd16done
fwd16loop:
	VMOVUPS (SI), Z0
	VPANDD.BCST geluconst<>+0(SB), Z0, Z1
	VCMPPS.BCST $0x1a, geluconst<>+128(SB), Z1, K1
	VMINPS.BCST geluconst<>+128(SB), Z1, Z1
	VMULPS.BCST geluconst<>+32(SB), Z1, Z2
	VMULPS.BCST geluconst<>+64(SB), Z2, Z2
	VADDPS.BCST geluconst<>+96(SB), Z2, Z2
	VBROADCASTSS geluconst<>+96(SB), Z3
	VDIVPS Z2, Z3, Z3
	VBROADCASTSS geluconst<>+576(SB), Z4
	VFMADD213PS.BCST geluconst<>+544(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+512(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+480(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+448(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+416(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+384(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+352(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+320(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+288(SB), Z3, Z4
	VMULPS Z1, Z1, Z5
	VMOVAPS Z5, Z6
	VFMSUB231PS Z1, Z1, Z6
	VPXORD Z7, Z7, Z7
	VMULPS.BCST geluconst<>+64(SB), Z5, Z5
	VSUBPS Z5, Z7, Z5
	VMULPS.BCST geluconst<>+64(SB), Z6, Z6
	VSUBPS Z6, Z7, Z6
	VADDPS Z6, Z4, Z4
	VADDPS Z4, Z5, Z7
	VMULPS.BCST geluconst<>+192(SB), Z7, Z7
	VRNDSCALEPS $0, Z7, Z7
	VMOVAPS Z5, Z8
	VFNMADD231PS.BCST geluconst<>+224(SB), Z7, Z8
	VADDPS Z4, Z8, Z8
	VFNMADD231PS.BCST geluconst<>+256(SB), Z7, Z8
	VBROADCASTSS geluconst<>+608(SB), Z9
	VFMADD213PS.BCST geluconst<>+640(SB), Z8, Z9
	VFMADD213PS.BCST geluconst<>+672(SB), Z8, Z9
	VFMADD213PS.BCST geluconst<>+704(SB), Z8, Z9
	VFMADD213PS.BCST geluconst<>+736(SB), Z8, Z9
	VFMADD213PS.BCST geluconst<>+768(SB), Z8, Z9
	VMULPS Z8, Z8, Z10
	VADDPS.BCST geluconst<>+96(SB), Z8, Z11
	VFMADD231PS Z10, Z9, Z11
	VCVTPS2DQ Z7, Z7
	VPSLLD $23, Z7, Z7
	VPADDD Z7, Z11, Z11
	VMULPS Z3, Z11, Z11
	VMULPS.BCST geluconst<>+64(SB), Z11, Z11
	VMOVAPS.Z Z11, K1, Z11
	VBROADCASTSS geluconst<>+96(SB), Z12
	VSUBPS Z11, Z12, Z12
	VPMOVD2M Z0, K2
	VBLENDMPS Z11, Z12, K2, Z13
	VMULPS Z13, Z0, Z13
	VMOVUPS Z13, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	DECQ CX
	JNE fwd16loop
fwd16done:
	VZEROUPPER
	RET

// func geluBwd16(x, g, y []float32)
// y[i] = g[i]·GELU'(x[i]) for i < len(x)&^15.
TEXT ·geluBwd16(SB), NOSPLIT, $0-72
	MOVQ x_base+0(FP), SI
	MOVQ x_len+8(FP), CX
	MOVQ g_base+24(FP), DX
	MOVQ y_base+48(FP), DI
	SHRQ $4, CX
	JE bwd16done
bwd16loop:
	VMOVUPS (SI), Z0
	VPANDD.BCST geluconst<>+0(SB), Z0, Z1
	VCMPPS.BCST $0x1a, geluconst<>+128(SB), Z1, K1
	VMINPS.BCST geluconst<>+128(SB), Z1, Z1
	VMULPS.BCST geluconst<>+32(SB), Z1, Z2
	VMULPS.BCST geluconst<>+64(SB), Z2, Z2
	VADDPS.BCST geluconst<>+96(SB), Z2, Z2
	VBROADCASTSS geluconst<>+96(SB), Z3
	VDIVPS Z2, Z3, Z3
	VBROADCASTSS geluconst<>+576(SB), Z4
	VFMADD213PS.BCST geluconst<>+544(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+512(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+480(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+448(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+416(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+384(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+352(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+320(SB), Z3, Z4
	VFMADD213PS.BCST geluconst<>+288(SB), Z3, Z4
	VMULPS Z1, Z1, Z5
	VMOVAPS Z5, Z6
	VFMSUB231PS Z1, Z1, Z6
	VPXORD Z7, Z7, Z7
	VMULPS.BCST geluconst<>+64(SB), Z5, Z5
	VSUBPS Z5, Z7, Z5
	VMULPS.BCST geluconst<>+64(SB), Z6, Z6
	VSUBPS Z6, Z7, Z6
	VADDPS Z6, Z4, Z4
	VADDPS Z4, Z5, Z7
	VMULPS.BCST geluconst<>+192(SB), Z7, Z7
	VRNDSCALEPS $0, Z7, Z7
	VMOVAPS Z5, Z8
	VFNMADD231PS.BCST geluconst<>+224(SB), Z7, Z8
	VADDPS Z4, Z8, Z8
	VFNMADD231PS.BCST geluconst<>+256(SB), Z7, Z8
	VBROADCASTSS geluconst<>+608(SB), Z9
	VFMADD213PS.BCST geluconst<>+640(SB), Z8, Z9
	VFMADD213PS.BCST geluconst<>+672(SB), Z8, Z9
	VFMADD213PS.BCST geluconst<>+704(SB), Z8, Z9
	VFMADD213PS.BCST geluconst<>+736(SB), Z8, Z9
	VFMADD213PS.BCST geluconst<>+768(SB), Z8, Z9
	VMULPS Z8, Z8, Z10
	VADDPS.BCST geluconst<>+96(SB), Z8, Z11
	VFMADD231PS Z10, Z9, Z11
	VCVTPS2DQ Z7, Z7
	VPSLLD $23, Z7, Z7
	VPADDD Z7, Z11, Z11
	VMULPS Z3, Z11, Z11
	VMULPS.BCST geluconst<>+64(SB), Z11, Z11
	VMOVAPS.Z Z11, K1, Z11
	VBROADCASTSS geluconst<>+96(SB), Z12
	VSUBPS Z11, Z12, Z12
	VPMOVD2M Z0, K2
	VBLENDMPS Z11, Z12, K2, Z13
	VADDPS Z6, Z5, Z7
	VMULPS.BCST geluconst<>+192(SB), Z7, Z7
	VRNDSCALEPS $0, Z7, Z7
	VMOVAPS Z5, Z8
	VFNMADD231PS.BCST geluconst<>+224(SB), Z7, Z8
	VADDPS Z6, Z8, Z8
	VFNMADD231PS.BCST geluconst<>+256(SB), Z7, Z8
	VBROADCASTSS geluconst<>+608(SB), Z9
	VFMADD213PS.BCST geluconst<>+640(SB), Z8, Z9
	VFMADD213PS.BCST geluconst<>+672(SB), Z8, Z9
	VFMADD213PS.BCST geluconst<>+704(SB), Z8, Z9
	VFMADD213PS.BCST geluconst<>+736(SB), Z8, Z9
	VFMADD213PS.BCST geluconst<>+768(SB), Z8, Z9
	VMULPS Z8, Z8, Z10
	VADDPS.BCST geluconst<>+96(SB), Z8, Z11
	VFMADD231PS Z10, Z9, Z11
	VCVTPS2DQ Z7, Z7
	VPSLLD $23, Z7, Z7
	VPADDD Z7, Z11, Z11
	VMOVAPS.Z Z11, K1, Z11
	VMULPS.BCST geluconst<>+160(SB), Z11, Z11
	VMULPS Z0, Z11, Z11
	VADDPS Z11, Z13, Z13
	VMULPS (DX), Z13, Z13
	VMOVUPS Z13, (DI)
	ADDQ $64, SI
	ADDQ $64, DX
	ADDQ $64, DI
	DECQ CX
	JNE bwd16loop
bwd16done:
	VZEROUPPER
	RET
