package ops

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkRowKernels measures, per key of one row of 1024 float32 logits, the row kernel each
// attention runs between its two products: softmax (Attention's) and stick-breaking's weights
// (sbRow), whose running product and sum over the keys, in order and in float64, are a chain of
// dependent operations a key:
//
//	go test ./internal/ops -run '^$' -bench RowKernels
func BenchmarkRowKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 1024
	z, row := make([]float32, n), make([]float32, n)
	for i := range z {
		z[i] = float32(rng.NormFloat64())
	}
	e, t, q := make([]float64, n), make([]float64, n), make([]float64, n)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"softmax", func() { copy(row, z); softmaxRow(row) }},
		{"stick_breaking", func() { copy(row, z); sbRow(row, e, t, q) }},
		{"copy_alone", func() { copy(row, z) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				c.f()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/key")
		})
	}
}
