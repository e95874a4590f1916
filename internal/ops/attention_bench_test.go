package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// attnShape is one causal attention of a model the project trains: batch, length, heads, width.
type attnShape struct {
	name       string
	B, T, H, D int
}

// attnShapes are the training step's attentions: the research-scale model (head size 32), the
// reference model (16) and the default experiment's (32, length 13).
var attnShapes = []attnShape{
	{"research_T128_dh32", 32, 128, 8, 256},
	{"reference_T64_dh16", 32, 64, 4, 64},
	{"default_T13_dh32", 32, 13, 4, 128},
}

// attnFlops is the arithmetic of causal attention's products per layer (2 per multiply-add, only
// the pairs j ≤ i): forward Q·Kᵀ and P·V, backward dY·Vᵀ, dS·K, Pᵀ·dY, dSᵀ·Q.
func attnFlops(s attnShape, backward bool) float64 {
	pairs := float64(s.T*(s.T+1)/2) * float64(s.B*s.H)
	f := 2 * 2 * pairs * float64(s.D/s.H)
	if backward {
		f *= 2
	}
	return f
}

// BenchmarkAttentionStep times the training step's attention, forward then backward (P kept), at
// the shapes of attnShapes, and reports GFLOP per wall and per CPU second of the process (the
// products' useful arithmetic, attnFlops).
func BenchmarkAttentionStep(b *testing.B) {
	for _, s := range attnShapes {
		rng := rand.New(rand.NewPCG(1, 1))
		mk := func(n int) *tensor.Dense {
			x := make([]float32, n)
			for i := range x {
				x[i] = float32(rng.NormFloat64())
			}
			return tensor.New(tensor.WithShape(n/s.D, s.D), tensor.WithBacking(x))
		}
		n := s.B * s.T * s.D
		q, k, v, dy := mk(n), mk(n), mk(n), mk(n)
		op := &attentionOp{base: newBase("Attention", 3), cfg: AttentionConfig{Batch: s.B, Len: s.T, Heads: s.H, Causal: true}, keepP: true}
		bwd := &attentionGradOp{base: newBase("AttentionGrad", 5), fwd: op}
		y := make([]float32, n)
		yt := tensor.New(tensor.WithShape(s.B*s.T, s.D), tensor.WithBacking(y))
		out := make([]float32, 3*n)
		for _, part := range []string{"forward", "backward"} {
			b.Run(fmt.Sprintf("%s/%s", s.name, part), func(b *testing.B) {
				attnFwd(op, &op.p32, &op.m32, &op.r32, &op.kt32, []G.Value{q, k, v}, y)
				cpu0 := cpuTime()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if part == "forward" {
						attnFwd(op, &op.p32, &op.m32, &op.r32, &op.kt32, []G.Value{q, k, v}, y)
					} else {
						attnBwd(op, op.p32.s, &bwd.d32, &bwd.g32, &bwd.r32, &bwd.vt32, []G.Value{q, k, v, yt, dy}, out)
					}
				}
				flops := attnFlops(s, part == "backward") * float64(b.N)
				b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
				if cpu := cpuTime() - cpu0; cpu > 0 {
					b.ReportMetric(flops/cpu.Seconds()/1e9, "GFLOP/cpu-s")
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
				}
			})
		}
	}
}
