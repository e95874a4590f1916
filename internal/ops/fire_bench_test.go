package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"
)

// BenchmarkFIRE measures FIRE's bias at the reference model's sizes (4 heads, width 32) at
// T = 1024 (524,800 causal pairs), serially: the rows an evaluation computes (BiasRow, into
// float64, as Attention's RowBias takes them), FIREBias's forward ([H, T, T]) and its gradient,
// in float32 by the vector kernels and by their Go lanes (useKernels off), and in float64 (the
// lanes). GFLOP/s counts the MLP's 2 + 1 + 2H FLOPs per hidden unit and pair (352 a pair) for
// the forward, and 2 + 1 + 4H + 5 for the gradient (672 a pair):
//
//	go test ./internal/ops -run '^$' -bench FIRE
func BenchmarkFIRE(b *testing.B) {
	const H, W, T = 4, 32, 1024
	l := FIRELayout{Heads: H, Width: W}
	th := fireTheta(rand.New(rand.NewPCG(1, 2)), l, 0.7)
	for i := range th {
		th[i] = float64(float32(th[i]))
	}
	pairs := float64(T * (T + 1) / 2)
	report := func(b *testing.B, flops float64) {
		b.ReportMetric(pairs*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mpairs/s")
		b.ReportMetric(pairs*flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	}
	fwd, bwd := float64(W*(3+2*H)), float64(W*(3+4*H+5))
	for _, c := range []struct {
		name  string
		dt    tensor.Dtype
		lanes bool
	}{{"f32", tensor.Float32, false}, {"f32lanes", tensor.Float32, true}, {"f64", tensor.Float64, false}} {
		f := NewFIRE(H, W, 512, c.dt)
		prev := useKernels
		useKernels = useKernels && !c.lanes
		b.Run(fmt.Sprintf("rows/%s", c.name), func(b *testing.B) {
			row := make([]float64, H*T)
			for range b.N {
				for i := 0; i < T; i++ {
					f.BiasRow(th, i, i+1, row, T)
				}
			}
			report(b, fwd)
		})
		b.Run(fmt.Sprintf("bias/%s", c.name), func(b *testing.B) {
			if c.dt == tensor.Float32 {
				benchFIREBias[float32](b, f, th, T, false)
			} else {
				benchFIREBias[float64](b, f, th, T, false)
			}
			report(b, fwd)
		})
		b.Run(fmt.Sprintf("grad/%s", c.name), func(b *testing.B) {
			if c.dt == tensor.Float32 {
				benchFIREBias[float32](b, f, th, T, true)
			} else {
				benchFIREBias[float64](b, f, th, T, true)
			}
			report(b, bwd)
		})
		useKernels = prev
	}
}

func benchFIREBias[F Float](b *testing.B, f *FIRE, th []float64, T int, grad bool) {
	out := make([]F, f.Heads()*T*T)
	p := params(f, fireParamsOf[F](f), th, T)
	fireBiasFwd(p, f, T, out)
	var acc, pad scratch[F]
	dth := make([]float64, f.Size())
	b.ResetTimer()
	for range b.N {
		if grad {
			fireBiasBwd(p, f, T, out, &acc, &pad, dth)
		} else {
			fireBiasFwd(p, f, T, out)
		}
	}
}

// fireParamsOf is f's prepared parameters for F.
func fireParamsOf[F Float](f *FIRE) **fireParams[F] {
	if pp, ok := any(&f.p32).(**fireParams[F]); ok {
		return pp
	}
	return any(&f.p64).(**fireParams[F])
}
