package position_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/position"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// xtDynamicPositionBias is lucidrains/x-transformers' DynamicPositionBias.forward (at
// 9252ed7838021ee61e6c5be0930b3a9a88efdf06, x_transformers/x_transformers.py:541-590, with
// log_distance=True and norm=False), transcribed with its nn.Linear layers as (weight [out, in],
// bias [out]) pairs, y = x·Wᵀ + b:
//
//	pos = arange(−n + 1, n); pos = sign(pos)·log(|pos| + 1)            [2n − 1, 1]
//	for layer in mlp: pos = layer(pos)     Linear(1, dim), SiLU, (Linear(dim, dim), SiLU)…, Linear(dim, heads)
//	indices = arange(n)[:, None] − arange(n)[None, :] + (n − 1); bias = pos[indices]  → [heads, i, j]
func xtDynamicPositionBias(layers [][2][][]float64, n, heads int) [][][]float64 {
	silu := func(x float64) float64 { return x / (1 + math.Exp(-x)) }
	out := make([][]float64, 2*n-1) // MLP output per entry of arange(−n + 1, n)
	for e := range out {
		p := float64(e - (n - 1))
		x := []float64{math.Copysign(math.Log(math.Abs(p)+1), p)}
		if p == 0 {
			x[0] = 0
		}
		for l, lin := range layers {
			w, b := lin[0], lin[1][0]
			y := make([]float64, len(w))
			for o := range w {
				y[o] = b[o]
				for i := range x {
					y[o] += x[i] * w[o][i]
				}
				if l < len(layers)-1 {
					y[o] = silu(y[o])
				}
			}
			x = y
		}
		out[e] = x
	}
	bias := make([][][]float64, heads)
	for h := range bias {
		bias[h] = make([][]float64, n)
		for i := range n {
			bias[h][i] = make([]float64, n)
			for j := range n {
				bias[h][i][j] = out[i-j+n-1][h]
			}
		}
	}
	return bias
}

// TestDPBMatchesXTransformers: dpb's bias by distance (the graph's table [H, 2T − 1], entry
// i − j + T − 1) against xtDynamicPositionBias with the same weights, for every pair of an
// encoder (both signs of the distance) and depths 1 to 3, in float64 to 1e-12.
func TestDPBMatchesXTransformers(t *testing.T) {
	const T, H, D = 9, 3, 12
	for _, depth := range []int{1, 2, 3} {
		const width = 5
		s, err := position.New(position.Spec{Kind: "dpb"}.With("mlp_width", width).With("mlp_depth", depth),
			position.Dims{DModel: D, Heads: H, Dtype: tensor.Float64, Seed: uint64(depth), Bidirectional: true})
		if err != nil {
			t.Fatal(err)
		}
		p := s.(position.Parameterized).Params()[0]
		theta := nn.Float64s(p.Value)
		rng := rand.New(rand.NewPCG(3, uint64(depth)))
		for i := range theta { // off the initial values, so every weight matters
			theta[i] += 0.5 * rng.NormFloat64()
		}
		copy(p.Value.Data().([]float64), theta)
		// θ's layout (position/dpb.go, dpbFunc): W1 [w], b1 [w]; per further hidden layer W [w, w]
		// (input × output), b [w]; W_out [w, H], b_out [H]. As nn.Linear pairs (weight [out, in]):
		at := 0
		take := func(n int) []float64 { at += n; return theta[at-n : at] }
		linear := func(in, out int) [2][][]float64 {
			w := take(in * out)
			b := take(out)
			wt := make([][]float64, out)
			for o := range out {
				wt[o] = make([]float64, in)
				for i := range in {
					wt[o][i] = w[i*out+o]
				}
			}
			return [2][][]float64{wt, {b}}
		}
		layers := [][2][][]float64{linear(1, width)}
		for range depth - 1 {
			layers = append(layers, linear(width, width))
		}
		layers = append(layers, linear(width, H))
		if at != len(theta) {
			t.Fatalf("depth %d: the layers take %d of θ's %d values", depth, at, len(theta))
		}
		want := xtDynamicPositionBias(layers, T, H)

		b := nn.NewBuilder(tensor.Float64)
		node, err := s.(position.LogitBiaser).LogitBias(position.Ctx{B: b, Batch: 1, Len: T})
		if err != nil {
			t.Fatal(err)
		}
		vm := G.NewTapeMachine(b.G)
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		got := nn.Float64s(node.Value().(*tensor.Dense)) // [H, 2T − 1]
		vm.Close()
		worst := 0.0
		for h := range H {
			for i := range T {
				for j := range T {
					worst = math.Max(worst, math.Abs(got[h*(2*T-1)+i-j+T-1]-want[h][i][j]))
				}
			}
		}
		t.Logf("depth %d: max |dpb − x-transformers| %.3g", depth, worst)
		if !(worst <= 1e-12) {
			t.Errorf("depth %d: dpb's bias differs from x-transformers' DynamicPositionBias by %.3g", depth, worst)
		}
	}
}
