package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func xposConfig(key bool) XPosConfig {
	return XPosConfig{Heads: 2, Rot: 6, Theta: Theta(100, 6), Zeta: []float64{0.4 / 1.4, 0.6 / 1.4, 0.8 / 1.4}, ScaleBase: 8, Center: 3, Key: key}
}

// TestGradXPos: the gradient (the inverse rotation with the same scale) against central finite
// differences in float64, for queries and keys, with positions on both sides of the centre.
func TestGradXPos(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	pos := []float64{0, 1, 2, 3, 7, 20, 5, 4}
	for _, key := range []bool{false, true} {
		checkOp(t, "XPos", []input{
			{[]int{8, 14}, randn(rng, 112, 1), true},
			{[]int{8}, pos, false},
		}, func(in []*G.Node) (*G.Node, error) { return XPos(in[0], in[1], xposConfig(key)) })
	}
}

// TestXPosValues: each pair is rotated by p·θᵢ and scaled by ζᵢ^(±(p − c)/γ); the values past
// Rot pass through; a query at n and a key at m give a dot product that depends on n − m only.
func TestXPosValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 9))
	const N, D, dh = 4, 14, 7
	x := randn(rng, N*D, 1)
	pos := []float64{0, 3, 9, 40}
	run := func(cfg XPosConfig, pos []float64) []float64 {
		g := G.NewGraph()
		xn := G.NewTensor(g, tensor.Float64, 2, G.WithShape(N, D), G.WithValue(tensor.New(tensor.WithShape(N, D), tensor.WithBacking(append([]float64(nil), x...)))))
		pn := G.NewVector(g, tensor.Float64, G.WithShape(N), G.WithValue(tensor.New(tensor.WithShape(N), tensor.WithBacking(append([]float64(nil), pos...)))))
		out, err := XPos(xn, pn, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return runOut(t, g, out)
	}
	for _, key := range []bool{false, true} {
		cfg := xposConfig(key)
		y := run(cfg, pos)
		for n, p := range pos {
			for h := range 2 {
				off := n*D + h*dh
				for i, th := range cfg.Theta {
					e := (p - cfg.Center) / cfg.ScaleBase
					if key {
						e = -e
					}
					m := math.Pow(cfg.Zeta[i], e)
					s, c := math.Sincos(p * th)
					x0, x1 := x[off+2*i], x[off+2*i+1]
					if d := max(math.Abs(y[off+2*i]-m*(x0*c-x1*s)), math.Abs(y[off+2*i+1]-m*(x0*s+x1*c))); d > 1e-12*max(1, m) {
						t.Fatalf("key %v row %d head %d pair %d: off by %.3g", key, n, h, i, d)
					}
				}
				if y[off+6] != x[off+6] {
					t.Fatalf("key %v row %d head %d: the unrotated value changed", key, n, h)
				}
			}
		}
	}
	// q at n, k at m against q at n + c, k at m + c: the same dot product.
	q, k := run(xposConfig(false), []float64{5, 0, 0, 0}), run(xposConfig(true), []float64{2, 0, 0, 0})
	q2, k2 := run(xposConfig(false), []float64{17, 0, 0, 0}), run(xposConfig(true), []float64{14, 0, 0, 0})
	a, b := 0.0, 0.0
	for j := range dh - 1 {
		a += q[j] * k[j]
		b += q2[j] * k2[j]
	}
	if math.Abs(a-b) > 1e-12*math.Abs(a) {
		t.Fatalf("q·k at (5, 2) is %v, at (17, 14) %v: not a function of the distance", a, b)
	}
}
