//go:build amd64 && !purego

package ops

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkCoPEKernels measures CoPE's row kernels on one row of 1024 keys (npos 64), per key:
// the gates, the suffix sums alone, and the suffix sums with the interpolation by AVX2's gathers,
// by AVX-512's register lookups, and by the suffix sums then the interpolation in Go key by key
// (the lanes):
//
//	go test ./internal/ops -run '^$' -bench CoPEKernels
func BenchmarkCoPEKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n, npos = 1024, 64
	z, g, raw, l := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, npos, npos+copeLPad)
	for i := range z {
		z[i] = float32(rng.NormFloat64())
	}
	for i := range l {
		l[i] = float32(rng.NormFloat64())
	}
	copeGates8AVX2(g, z)
	top := float32(npos - 1)
	for _, c := range []struct {
		name string
		skip bool
		f    func()
	}{
		{"gates", false, func() { copeGates8AVX2(g, z) }},
		{"suffix", false, func() { copeSuffix8AVX2(raw, g, 0) }},
		{"scan_avx2_gather", false, func() { copeScan8AVX2(z, g, l, top, 0) }},
		{"scan_avx512", !haveCopeAVX512, func() { copeScan8AVX512(z, g, l, top, 0) }},
		{"scan_suffix_go", false, func() {
			copeSuffix8AVX2(raw, g, 0)
			for j, s := range raw {
				z[j] = copeInterpLane(z[j], s, l, top)
			}
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			if c.skip {
				b.Skip("no AVX-512")
			}
			for b.Loop() {
				c.f()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/key")
		})
	}
}
