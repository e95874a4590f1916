package position

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/posformer/posformer/internal/nn"
	"gorgonia.org/tensor"
)

// TestFIREBiasRowSameBits: FIRE's row of biases (BiasRow: the normaliser once per row, sixteen
// keys at a time by ops.FIRE's kernels) has the bits of Bias pair by pair, in float32 and
// float64, for every query up to 600 (rows of several chunks) with the threshold L below, inside
// and above the positions, c and m of either sign, and keys up to the query and past it.
func TestFIREBiasRowSameBits(t *testing.T) {
	const H, T = 3, 600
	rng := rand.New(rand.NewPCG(71, 72))
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, L := range []float64{2.5, 30, 512} {
			for _, sign := range []float64{1, -1} {
				s, err := New(Spec{Kind: "fire"}.With("init_l", L).With("mlp_width", 7), Dims{DModel: 12, Heads: H, Dtype: dt, Seed: 5})
				if err != nil {
					t.Fatal(err)
				}
				f := s.(*FIRE)
				th := nn.Float64s(f.theta.Value)
				for k := range th[:f.c()] {
					th[k] += 0.5 * rng.NormFloat64()
				}
				th[f.c()] *= sign
				th[f.m()] *= sign
				ff := f.fn
				row, b := make([]float64, H*(T+3)), make([]float64, H)
				for i := 0; i < T; i++ {
					n := min(i+1+rng.IntN(3), T)
					ff.BiasRow(th, i, n, row, T+3)
					for j := 0; j < n; j++ {
						ff.Bias(th, i, j, b)
						for h := range b {
							if got := row[h*(T+3)+j]; math.Float64bits(got) != math.Float64bits(b[h]) {
								t.Fatalf("%v L %v sign %v: query %d key %d head %d: BiasRow %v, Bias %v (same bits)", dt, L, sign, i, j, h, got, b[h])
							}
						}
					}
				}
			}
		}
	}
}
