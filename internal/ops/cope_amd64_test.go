//go:build amd64 && !purego

package ops

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestCoPEKernelsMatchLanes: the AVX2 kernels (cope_amd64.s) give the bits of their lanes in Go
// (cope_lanes.go), which the other builds run: the gates on logits from −200 to 200 (beyond the
// exponential's range both ways) and exact zeros, the suffix sums and the interpolation with
// positions below, at and clamped to the top, and the backward pass's per-key gradient, over 2000
// random rows of 8 to 64 keys.
func TestCoPEKernelsMatchLanes(t *testing.T) {
	if !useKernels {
		t.Skip("no AVX2 kernels on this CPU (or POSFORMER_GEMM=blas)")
	}
	rng := rand.New(rand.NewPCG(21, 22))
	bits := func(x []float32) []uint32 {
		b := make([]uint32, len(x))
		for i, v := range x {
			b[i] = math.Float32bits(v)
		}
		return b
	}
	same := func(what string, trial int, got, want []float32) {
		t.Helper()
		gb, wb := bits(got), bits(want)
		for i := range gb {
			if gb[i] != wb[i] {
				t.Fatalf("trial %d: %s[%d] = %v (%#x), the lanes' %v (%#x)", trial, what, i, got[i], gb[i], want[i], wb[i])
			}
		}
	}
	for trial := range 2000 {
		n := 8 * (1 + rng.IntN(8))
		scale := []float64{0.1, 1, 5, 60, 200}[trial%5]
		z := make([]float32, n)
		for i := range z {
			z[i] = float32(rng.NormFloat64() * scale)
			if rng.IntN(20) == 0 {
				z[i] = 0
			}
		}
		g1, g2 := make([]float32, n), make([]float32, n)
		copeGates8AVX2(g1, z)
		copeGates8Lanes(g2, z)
		same("gate", trial, g1, g2)
		npos := 2 + rng.IntN(80)
		l := make([]float32, npos, npos+copeLPad)
		for i := range l[:cap(l)] {
			l[:cap(l)][i] = float32(rng.NormFloat64()) // past npos: what the kernels must not use
		}
		top, carry := float32(npos-1), float32(0)
		if trial%3 == 1 {
			carry = float32(rng.Float64() * float64(npos))
		}
		r1, r2 := append([]float32(nil), z...), append([]float32(nil), z...)
		c1 := copeScan8AVX2(r1, g1, l, top, carry)
		c2 := copeScan8Lanes(r2, g1, l, top, carry)
		same("logit", trial, r1, r2)
		same("carry", trial, []float32{c1}, []float32{c2})
		if haveCopeAVX512 && npos <= 64 {
			r3 := append([]float32(nil), z...)
			c3 := copeScan8AVX512(r3, g1, l, top, carry)
			same("logit (AVX-512)", trial, r3, r2)
			same("carry (AVX-512)", trial, []float32{c3}, []float32{c2})
		}
		s1, s2 := make([]float32, n), make([]float32, n)
		c1 = copeSuffix8AVX2(s1, g1, carry)
		c2 = copeSuffix8Lanes(s2, g1, carry)
		same("suffix sum", trial, s1, s2)
		same("suffix carry", trial, []float32{c1}, []float32{c2})
		p, dp := make([]float32, n), make([]float32, n)
		for i := range p {
			p[i], dp[i] = float32(rng.Float64()), float32(rng.NormFloat64())
		}
		dz1, dz2 := append([]float32(nil), dp...), append([]float32(nil), dp...)
		cf1, cc1, cf2, cc2 := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
		fi1, ci1, fi2, ci2 := make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
		dot := float32(rng.NormFloat64())
		c1 = copeGrad8AVX2(dz1, g1, p, s1, l, cf1, cc1, fi1, ci1, top, dot, carry)
		c2 = copeGrad8Lanes(dz2, g1, p, s1, l, cf2, cc2, fi2, ci2, top, dot, carry)
		same("dz", trial, dz1, dz2)
		if haveCopeAVX512 && npos <= 64 {
			dz3, cf3, cc3 := append([]float32(nil), dp...), make([]float32, n), make([]float32, n)
			fi3, ci3 := make([]int32, n), make([]int32, n)
			c3 := copeGrad8AVX512(dz3, g1, p, s1, l, cf3, cc3, fi3, ci3, top, dot, carry)
			same("dz (AVX-512)", trial, dz3, dz2)
			same("cf (AVX-512)", trial, cf3, cf2)
			same("cc (AVX-512)", trial, cc3, cc2)
			same("grad carry (AVX-512)", trial, []float32{c3}, []float32{c2})
			for i := range fi3 {
				if fi3[i] != fi2[i] || ci3[i] != ci2[i] {
					t.Fatalf("trial %d: position %d (AVX-512): ⌊p⌋, ⌈p⌉ = %d, %d, the lanes' %d, %d", trial, i, fi3[i], ci3[i], fi2[i], ci2[i])
				}
			}
		}
		same("cf", trial, cf1, cf2)
		same("cc", trial, cc1, cc2)
		same("grad carry", trial, []float32{c1}, []float32{c2})
		for i := range fi1 {
			if fi1[i] != fi2[i] || ci1[i] != ci2[i] {
				t.Fatalf("trial %d: position %d: ⌊p⌋, ⌈p⌉ = %d, %d, the lanes' %d, %d", trial, i, fi1[i], ci1[i], fi2[i], ci2[i])
			}
		}
	}
}
