package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestGradLogScale: the gradient to q and s against central finite differences in float64,
// causal and bidirectional.
func TestGradLogScale(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 13))
	for _, causal := range []bool{true, false} {
		checkOp(t, "LogScale", []input{
			{[]int{2 * 5, 6}, randn(rng, 60, 1), true},
			{[]int{3}, randn(rng, 3, 1), true},
		}, func(in []*G.Node) (*G.Node, error) {
			return LogScale(in[0], in[1], LogScaleConfig{Batch: 2, Len: 5, Heads: 3, Causal: causal})
		})
	}
}

// TestLogScaleValues: row r of head h is multiplied by s_h·ln n, n = (r mod T) + 1 causal and T
// bidirectional: the first query of a causal sequence sees one key and is scaled by 0.
func TestLogScaleValues(t *testing.T) {
	const B, T, H, dh = 2, 4, 2, 3
	rng := rand.New(rand.NewPCG(9, 13))
	q, s := randn(rng, B*T*H*dh, 1), []float64{0.5, -1.5}
	for _, causal := range []bool{true, false} {
		g := G.NewGraph()
		qn := G.NewTensor(g, tensor.Float64, 2, G.WithShape(B*T, H*dh), G.WithValue(tensor.New(tensor.WithShape(B*T, H*dh), tensor.WithBacking(append([]float64(nil), q...)))))
		sn := G.NewVector(g, tensor.Float64, G.WithShape(H), G.WithValue(tensor.New(tensor.WithShape(H), tensor.WithBacking(append([]float64(nil), s...)))))
		out, err := LogScale(qn, sn, LogScaleConfig{Batch: B, Len: T, Heads: H, Causal: causal})
		if err != nil {
			t.Fatal(err)
		}
		y := runOut(t, g, out)
		for r := range B * T {
			n := float64(T)
			if causal {
				n = float64(r%T + 1)
			}
			for h := range H {
				for x := range dh {
					at := r*H*dh + h*dh + x
					if want := q[at] * s[h] * math.Log(n); math.Abs(y[at]-want) > 1e-15 {
						t.Fatalf("causal %v row %d head %d: %v, want %v", causal, r, h, y[at], want)
					}
				}
			}
		}
	}
}
