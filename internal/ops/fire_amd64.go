//go:build amd64 && !purego

package ops

import "unsafe"

// fireChunks is fireChunksLanes, by the AVX-512 or AVX2 kernel (fire_amd64.s) for float32 when
// the kernels are on (ar holds fireLanes·nc values, out has room for them in nh rows of stride).
func fireChunks[F, O Float](out []O, stride int, ar []F, bn F, w1, b1, w2, b2 []F, nc, nh int) {
	a32, ok := any(ar).([]float32)
	if !ok || !useKernels {
		fireChunksLanes(out, stride, ar, bn, w1, b1, w2, b2, nc, nh)
		return
	}
	_ = ar[nc*fireLanes-1]
	_ = out[(nh-1)*stride+nc*fireLanes-1]
	_, wide := any(out).([]float64)
	o, w132, b132, w232, b232 := unsafe.Pointer(&out[0]), any(w1).([]float32), any(b1).([]float32), any(w2).([]float32), any(b2).([]float32)
	if haveAVX512 { // called directly, not through a func value, so that out does not escape
		fireMLP16AVX512(o, stride, a32, float32(bn), w132, b132, w232, b232, nc, nh, wide)
	} else {
		fireMLP16AVX2(o, stride, a32, float32(bn), w132, b132, w232, b232, nc, nh, wide)
	}
}

// fireMLP16AVX512 is fireChunksLanes for float32 (out float32, or float64 when wide), sixteen
// keys in a ZMM register, the group's four heads in four; len(w2) = fireGroup·len(w1) > 0.
//
//go:noescape
func fireMLP16AVX512(out unsafe.Pointer, stride int, ar []float32, bn float32, w1, b1, w2, b2 []float32, nc, nh int, wide bool)

// fireMLP16AVX2 is fireMLP16AVX512 with the sixteen keys in two YMM registers.
//
//go:noescape
func fireMLP16AVX2(out unsafe.Pointer, stride int, ar []float32, bn float32, w1, b1, w2, b2 []float32, nc, nh int, wide bool)

// fireGradChunks is fireGradChunksLanes, by the AVX-512 or AVX2 kernel (fire_amd64.s) for float32
// when the kernels are on.
func fireGradChunks[F Float](acc, g []F, gs int, a, dA []F, bn, dBdc, kfac F, w1, b1, w2 []F, H, nc int) {
	acc32, ok := any(acc).([]float32)
	if !ok || !useKernels {
		fireGradChunksLanes(acc, g, gs, a, dA, bn, dBdc, kfac, w1, b1, w2, H, nc)
		return
	}
	W := len(w1)
	_ = acc32[((H+2)*W+H+2)*fireLanes-1]
	_ = g[(H-1)*gs+nc*fireLanes-1]
	_, _ = a[nc*fireLanes-1], dA[nc*fireLanes-1]
	_ = w2[W*H-1]
	g32, a32, dA32 := any(g).([]float32), any(a).([]float32), any(dA).([]float32)
	w132, b132, w232 := any(w1).([]float32), any(b1).([]float32), any(w2).([]float32)
	if haveAVX512 {
		fireGrad16AVX512(acc32, g32, gs, a32, dA32, float32(bn), float32(dBdc), float32(kfac), w132, b132, w232, H, nc)
	} else {
		fireGrad8AVX2(acc32, g32, gs, a32, dA32, float32(bn), float32(dBdc), float32(kfac), w132, b132, w232, H, nc)
	}
}

// fireGrad16AVX512 is fireGradChunksLanes for float32, sixteen keys in a ZMM register; W ≥ 1,
// H ≥ 1.
//
//go:noescape
func fireGrad16AVX512(acc, g []float32, gs int, a, dA []float32, bn, dBdc, kfac float32, w1, b1, w2 []float32, H, nc int)

// fireGrad8AVX2 is fireGrad16AVX512 eight keys at a time (the chunk's two halves in turn).
//
//go:noescape
func fireGrad8AVX2(acc, g []float32, gs int, a, dA []float32, bn, dBdc, kfac float32, w1, b1, w2 []float32, H, nc int)
