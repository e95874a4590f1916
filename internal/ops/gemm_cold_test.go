package ops

import (
	"fmt"
	"testing"
)

// BenchmarkGemmStepCold is BenchmarkGemmStep's products with their operands out of the caches,
// as in a training step, where each product's input was written long before (the forward's x
// for the weight gradient) and its output buffer was last touched a step ago: each call takes
// the next of several sets of operands, together larger than the last-level cache (96 MB). The
// forward products go through linearFwd (x·W + b, the rows split over the workers), as the step
// calls them.
func BenchmarkGemmStepCold(b *testing.B) {
	type shape struct {
		name    string
		kind    byte // 'b' forward with bias (linearFwd), 't' NT, 's' TN with sums
		m, n, k int
	}
	var shapes []shape
	for _, s := range [][3]int{{4096, 768, 256}, {4096, 256, 256}, {4096, 1024, 256}, {4096, 256, 1024}} {
		m, n, k := s[0], s[1], s[2]
		shapes = append(shapes,
			shape{fmt.Sprintf("NNbias_%dx%dx%d", m, n, k), 'b', m, n, k},
			shape{fmt.Sprintf("NT_%dx%dx%d", m, k, n), 't', m, k, n},
			shape{fmt.Sprintf("TN_%dx%dx%d", k, n, m), 's', k, n, m})
	}
	for _, s := range shapes {
		m, n, k := s.m, s.n, s.k
		sets := max(2, (96<<20)/(4*(m*k+k*n+m*n)))
		type ops struct{ x, y, z, bias []float32 }
		var in []ops
		for r := 0; r < sets; r++ {
			o := ops{make([]float32, m*k), make([]float32, k*n), make([]float32, (m+1)*n), make([]float32, n)}
			for i := range o.x {
				o.x[i] = float32((i+r)%7) - 3
			}
			for i := range o.y {
				o.y[i] = float32((i+r)%5) - 2
			}
			for i := range o.z {
				o.z[i] = 1
			}
			in = append(in, o)
		}
		b.Run(s.name, func(b *testing.B) {
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				o := in[i%sets]
				switch s.kind {
				case 'b':
					linearFwd(o.x, o.y, o.bias, o.z[:m*n], m, k, n)
				case 't':
					gemm(false, true, m, n, k, 1, o.x, k, o.y, k, 0, o.z, n)
				default:
					gemmTNSums(m, n, k, o.x, m, o.y, n, o.z[:m*n], n, o.z[m*n:])
				}
			}
			flops := 2 * float64(m*n*k) * float64(b.N)
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			if cpu := cpuTime() - cpu0; cpu > 0 {
				b.ReportMetric(flops/cpu.Seconds()/1e9, "GFLOP/cpu-s")
			}
		})
	}
}
