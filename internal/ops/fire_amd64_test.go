//go:build amd64 && !purego

package ops

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// TestFIREKernelsMatchLanes: FIRE's AVX-512 and AVX2 kernels (fire_amd64.s) give the bits of
// their lanes in Go (fire_lanes.go), stored as float32 and as float64, over 600 random cases:
// widths 1 to 40, 1 to 4 heads of a group, 1 to 3 chunks, inputs with exact zeros, hidden units
// exactly at 0 (z = 0) and inactive ones, and a NaN input (its lane 0, as MAXPS gives).
func TestFIREKernelsMatchLanes(t *testing.T) {
	if !useKernels {
		t.Skip("no AVX2 kernels on this CPU (or POSFORMER_GEMM=blas)")
	}
	kernels := map[string]func(p unsafe.Pointer, stride int, ar []float32, bn float32, w1, b1, w2, b2 []float32, nc, nh int, wide bool){"avx2": fireMLP16AVX2}
	if haveAVX512 {
		kernels["avx512"] = fireMLP16AVX512
	}
	rng := rand.New(rand.NewPCG(31, 32))
	r32 := func(n int, s float64) []float32 { return to32(randn(rng, n, s)) }
	for trial := range 600 {
		W, nh, nc := 1+rng.IntN(40), 1+rng.IntN(4), 1+rng.IntN(3)
		ar, w1, b1, w2, b2 := r32(nc*fireLanes, 2), r32(W, 1), r32(W, 1), r32(W*fireGroup, 1), r32(fireGroup, 1)
		ar[0] = 0
		if trial%3 == 0 { // z = w1·x + b1 exactly 0 for the lanes with x = 1
			ar[1], b1[0] = 0.75, -w1[0]
		}
		if trial%7 == 0 {
			ar[2] = float32(math.NaN())
		}
		bn := float32(0.5 + rng.Float64())
		stride := nc*fireLanes + rng.IntN(5)
		want32, want64 := make([]float32, nh*stride), make([]float64, nh*stride)
		fireChunksLanes(want32, stride, ar, bn, w1, b1, w2, b2, nc, nh)
		fireChunksLanes(want64, stride, ar, bn, w1, b1, w2, b2, nc, nh)
		for name, k := range kernels {
			got32, got64 := make([]float32, nh*stride), make([]float64, nh*stride)
			k(unsafe.Pointer(&got32[0]), stride, ar, bn, w1, b1, w2, b2, nc, nh, false)
			k(unsafe.Pointer(&got64[0]), stride, ar, bn, w1, b1, w2, b2, nc, nh, true)
			for i := range want32 {
				if math.Float32bits(got32[i]) != math.Float32bits(want32[i]) {
					t.Fatalf("trial %d %s (W %d, %d heads, %d chunks): float32 out[%d] = %v, the lanes' %v", trial, name, W, nh, nc, i, got32[i], want32[i])
				}
				if math.Float64bits(got64[i]) != math.Float64bits(want64[i]) {
					t.Fatalf("trial %d %s (W %d, %d heads, %d chunks): float64 out[%d] = %v, the lanes' %v", trial, name, W, nh, nc, i, got64[i], want64[i])
				}
			}
		}
	}
}

// TestFIREGradKernelsMatchLanes: FIRE's gradient kernels (AVX-512 sixteen lanes, AVX2 eight at a
// time) give the bits of their lanes in Go, accumulating onto random sums, over 600 random cases:
// widths 1 to 40, 1 to 9 heads, 1 to 3 chunks, hidden units exactly at 0 and inactive ones, m's
// factor 0 (the threshold below the query) or not.
func TestFIREGradKernelsMatchLanes(t *testing.T) {
	if !useKernels {
		t.Skip("no AVX2 kernels on this CPU (or POSFORMER_GEMM=blas)")
	}
	type kernel = func(acc, g []float32, gs int, a, dA []float32, bn, dBdc, kfac float32, w1, b1, w2 []float32, H, nc int)
	kernels := map[string]kernel{"avx2": fireGrad8AVX2}
	if haveAVX512 {
		kernels["avx512"] = fireGrad16AVX512
	}
	rng := rand.New(rand.NewPCG(41, 42))
	r32 := func(n int, s float64) []float32 { return to32(randn(rng, n, s)) }
	for trial := range 600 {
		W, H, nc := 1+rng.IntN(40), 1+rng.IntN(9), 1+rng.IntN(3)
		gs := nc*fireLanes + rng.IntN(5)
		a, dA, g := r32(nc*fireLanes, 2), r32(nc*fireLanes, 1), r32(H*gs, 1)
		w1, b1, w2 := r32(W, 1), r32(W, 1), r32(W*H, 1)
		a[0] = 0
		if trial%3 == 0 {
			a[1], b1[0] = 0.75, -w1[0]
		}
		bn, dBdc, kfac := float32(0.5+rng.Float64()), float32(rng.NormFloat64()), float32(0)
		if trial%2 == 0 {
			kfac = float32(rng.NormFloat64())
		}
		acc0 := r32(((H+2)*W+H+2)*fireLanes, 1)
		want := append([]float32(nil), acc0...)
		fireGradChunksLanes(want, g, gs, a, dA, bn, dBdc, kfac, w1, b1, w2, H, nc)
		for name, k := range kernels {
			got := append([]float32(nil), acc0...)
			k(got, g, gs, a, dA, bn, dBdc, kfac, w1, b1, w2, H, nc)
			for i := range want {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("trial %d %s (W %d, H %d, %d chunks): acc[%d] (slot %d lane %d) = %v, the lanes' %v", trial, name, W, H, nc, i, i/fireLanes, i%fireLanes, got[i], want[i])
				}
			}
		}
	}
}
