package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGELUPhiSameBits: the GELU that keeps Φ(x) from its forward for its gradient (geluFwdPhi,
// geluFwdPhiX2, geluBwdPhi: the AVX2 kernels) gives geluKernel's bits, forward and gradient, on
// the sweep, random values and the special cases, at lengths that leave tails of every size to
// the one-block kernel and the scalar code, with the forward and the gradient split over
// different numbers of workers.
func TestGELUPhiSameBits(t *testing.T) {
	if !phiKernels(t) {
		t.Skip("no GELU kernel keeps Φ on this CPU (AVX2 and FMA needed)")
	}
	xs := geluBitsInputs()
	rng := rand.New(rand.NewPCG(5, 16))
	g := make([]float32, len(xs))
	for i := range g {
		g[i] = float32(rng.NormFloat64())
	}
	lengths := []int{len(xs), len(xs) - 3, len(xs) - 8, len(xs) - 13}
	for n := 0; n <= 40; n++ {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		for _, w := range [][2]int{{1, 1}, {2, 2}, {1, 3}, {3, 2}} { // workers of the forward, of the gradient
			x, gs := xs[len(xs)-n:], g[len(xs)-n:] // the special cases are at the end
			want, wantD := make([]float32, n), make([]float32, n)
			geluKernel(x, nil, want)
			geluKernel(x, gs, wantD)
			got, gotD, phi := make([]float32, n), make([]float32, n), make([]float32, n)
			for i := range phi { // a value the forward does not write spoils the gradient
				phi[i] = float32(math.NaN())
			}
			withWorkers(t, w[0], func() { geluKernelPhi(x, nil, got, phi) })
			withWorkers(t, w[1], func() { geluKernelPhi(x, gs, gotD, phi) })
			what := fmt.Sprintf("%d values, workers %v", n, w)
			sameBits(t, "GELU keeping Φ, "+what, got, want)
			sameBits(t, "GELU' from the kept Φ, "+what, gotD, wantD)
			for i := range n &^ 7 { // Φ(x) itself: y = x·Φ(x) where that product is exact
				if x[i] == 1 && math.Float32bits(phi[i]) != math.Float32bits(got[i]) {
					t.Fatalf("Φ(1) kept as %v, GELU(1) = %v", phi[i], got[i])
				}
			}
		}
	}
}
