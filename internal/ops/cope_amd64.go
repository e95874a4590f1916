//go:build amd64 && !purego

package ops

import "golang.org/x/sys/cpu"

// CoPE's vector kernels (cope_amd64.s, AVX2), or their lanes in Go (cope_lanes.go: the same bits)
// when the kernels are off (POSFORMER_GEMM=blas).

func copeGates8(g, z []float32) {
	if useKernels {
		copeGates8AVX2(g, z)
	} else {
		copeGates8Lanes(g, z)
	}
}

// copeScan8 looks l up from registers with AVX-512 when l has at most 64 positions (len(l) ≤ 64
// and 65 values readable from &l[0]: copeLPad), else with AVX2's gathers.
func copeScan8(row, g, l []float32, top, carry float32) float32 {
	switch {
	case haveCopeAVX512 && len(l) <= 64:
		return copeScan8AVX512(row, g, l[:1:1], top, carry)
	case useKernels:
		return copeScan8AVX2(row, g, l, top, carry)
	}
	return copeScan8Lanes(row, g, l, top, carry)
}

// haveCopeAVX512 selects copeScan8AVX512 (the AVX-512 float32 kernels' switch, and AVX512VL).
var haveCopeAVX512 = haveAVX512 && cpu.X86.HasAVX512VL

// copeScan8AVX512 is copeScan8AVX2 for l of at most 64 positions, with 65 values readable from
// l's first.
//
//go:noescape
func copeScan8AVX512(row, g, l []float32, top, carry float32) float32

func copeSuffix8(raw, g []float32, carry float32) float32 {
	if useKernels {
		return copeSuffix8AVX2(raw, g, carry)
	}
	return copeSuffix8Lanes(raw, g, carry)
}

// copeGates8AVX2 writes g_j = 1/(1 + exp(−z_j)) for j < len(z)&^7 (g may be z).
//
//go:noescape
func copeGates8AVX2(g, z []float32)

// copeScan8AVX2 is copeScan8Lanes; len(row) must be a multiple of 8, g at least as long, and
// every position below len(l).
//
//go:noescape
func copeScan8AVX2(row, g, l []float32, top, carry float32) float32

// copeSuffix8AVX2 is copeSuffix8Lanes; len(g) must be a multiple of 8, raw at least as long.
//
//go:noescape
func copeSuffix8AVX2(raw, g []float32, carry float32) float32

func copeGrad8(dz, g, p, raw, l, cf, cc []float32, fi, ci []int32, top, dot, carry float32) float32 {
	if haveCopeAVX512 && len(l) <= 64 {
		return copeGrad8AVX512(dz, g, p, raw, l[:1:1], cf, cc, fi, ci, top, dot, carry)
	}
	if useKernels {
		return copeGrad8AVX2(dz, g, p, raw, l, cf, cc, fi, ci, top, dot, carry)
	}
	return copeGrad8Lanes(dz, g, p, raw, l, cf, cc, fi, ci, top, dot, carry)
}

// copeGrad8AVX2 is copeGrad8Lanes; len(dz) must be a multiple of 8, the other slices at least
// as long (l: every position).
//
//go:noescape
func copeGrad8AVX2(dz, g, p, raw, l, cf, cc []float32, fi, ci []int32, top, dot, carry float32) float32

// copeGrad8AVX512 is copeGrad8AVX2 for l of at most 64 positions, with 65 values readable from
// l's first.
//
//go:noescape
func copeGrad8AVX512(dz, g, p, raw, l, cf, cc []float32, fi, ci []int32, top, dot, carry float32) float32
