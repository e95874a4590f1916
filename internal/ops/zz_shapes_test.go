package ops

import (
	"fmt"
	"syscall"
	"testing"
	"time"
)

func cpuNowZ() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestZZShapes(t *testing.T) {
	const N = 4096
	type sh struct {
		name    string
		kind    int // 0 fwd linear, 1 dX (tB), 2 dW (tA)
		i, o    int
	}
	for _, s := range []sh{{"qkvo fwd", 0, 256, 256}, {"w1 fwd", 0, 256, 1024}, {"w2 fwd", 0, 1024, 256},
		{"qkvo dX", 1, 256, 256}, {"w1 dX", 1, 256, 1024}, {"w2 dX", 1, 1024, 256},
		{"qkvo dW", 2, 256, 256}, {"w1 dW", 2, 256, 1024}, {"w2 dW", 2, 1024, 256}, {"qkvo oldf", 5, 256, 256}, {"w1 oldf", 5, 256, 1024}, {"w2 oldf", 5, 1024, 256}, {"qkvo b0", 3, 256, 256}, {"w1 b0", 3, 256, 1024}, {"w2 b0", 3, 1024, 256}, {"qkvo b0s", 4, 256, 256}, {"w1 b0s", 4, 256, 1024}, {"w2 b0s", 4, 1024, 256}} {
		x := make([]float32, N*s.i)
		w := make([]float32, s.i*s.o)
		y := make([]float32, N*s.o)
		bias := make([]float32, s.o)
		for i := range x {
			x[i] = float32(i%7) * 0.1
		}
		for i := range w {
			w[i] = float32(i%5) * 0.1
		}
		for i := range y {
			y[i] = float32(i%3) * 0.1
		}
		dx := make([]float32, N*s.i)
		dw := make([]float32, s.i*s.o)
		run := func() {
			switch s.kind {
			case 0:
				linearFwd(x, w, bias, y, N, s.i, s.o)
			case 1:
				gemm(false, true, N, s.i, s.o, 1, y, s.o, w, s.o, 0, dx, s.i)
			case 5:
				for r := 0; r < N; r++ {
					copy(y[r*s.o:(r+1)*s.o], bias)
				}
				gemm(false, false, N, s.o, s.i, 1, x, s.i, w, s.o, 1, y, s.o)
			case 3:
				gemm(false, false, N, s.o, s.i, 1, x, s.i, w, s.o, 0, y, s.o)
			case 4:
				parallel(N, 2*s.i*s.o, func(_, lo, hi int) {
					gemm1(false, false, hi-lo, s.o, s.i, 1, x[lo*s.i:], s.i, w, s.o, 0, y[lo*s.o:], s.o)
				})
			case 2:
				gemm(true, false, s.i, s.o, N, 1, x, s.i, y, s.o, 0, dw, s.o)
			}
		}
		run()
		reps := 20
		best := 0.0
		for r := 0; r < 3; r++ {
			c0 := cpuNowZ()
			for i := 0; i < reps; i++ {
				run()
			}
			d := cpuNowZ() - c0
			g := 2 * float64(N*s.i*s.o) * float64(reps) / d.Seconds() / 1e9
			best = max(best, g)
		}
		fmt.Printf("%-10s %6.1f GFLOP per CPU-s, %.2f CPU-ms per call\n", s.name, best, 2*float64(N*s.i*s.o)/best/1e6)
	}
}
