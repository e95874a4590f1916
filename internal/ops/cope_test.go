package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestGradCoPEAttention: the gradient of every input (q, k, v and the embeddings e) against
// central finite differences in float64, with positions below the clamp (npos 8) and clamped
// (npos 2), scaled and unscaled.
func TestGradCoPEAttention(t *testing.T) {
	const B, T, H, dh = 2, 5, 2, 3
	rng := rand.New(rand.NewPCG(5, 11))
	for _, c := range []struct {
		npos     int
		unscaled bool
	}{{8, false}, {2, false}, {3, true}} {
		checkOp(t, "CoPEAttention", []input{
			{[]int{B * T, H * dh}, randn(rng, B*T*H*dh, 1), true},
			{[]int{B * T, H * dh}, randn(rng, B*T*H*dh, 1), true},
			{[]int{B * T, H * dh}, randn(rng, B*T*H*dh, 1), true},
			{[]int{c.npos, dh}, randn(rng, c.npos*dh, 1), true},
		}, func(in []*G.Node) (*G.Node, error) {
			return CoPEAttention(in[0], in[1], in[2], in[3], CoPEConfig{Batch: B, Len: T, Heads: H, NPos: c.npos, Unscaled: c.unscaled})
		})
	}
}

// TestCoPEAttentionValues: the op against the reference's formulas written out here with whole
// matrices (gates, the reversed cumulative sum, the clamp, floor and ceil gathers), in float64
// and float32, and the captured weights.
func TestCoPEAttentionValues(t *testing.T) {
	const B, T, H, dh, npos = 2, 7, 2, 4, 4
	rng := rand.New(rand.NewPCG(6, 11))
	q, k, v, e := randn(rng, B*T*H*dh, 1.5), randn(rng, B*T*H*dh, 1.5), randn(rng, B*T*H*dh, 1), randn(rng, npos*dh, 1)
	want := make([]float64, B*T*H*dh)
	wantP := make([]float64, B*H*T*T)
	at := func(x []float64, b, i, h int) []float64 { return x[((b*T+i)*H+h)*dh:][:dh] }
	dotv := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	for b := range B {
		for h := range H {
			for i := range T {
				var gates, logits [T]float64
				for j := 0; j <= i; j++ {
					logits[j] = dotv(at(q, b, i, h), at(k, b, j, h)) / 2 // 1/√4
					gates[j] = 1 / (1 + math.Exp(-logits[j]))
				}
				a := make([]float64, i+1)
				for j := 0; j <= i; j++ {
					p := 0.0
					for s := j; s <= i; s++ {
						p += gates[s]
					}
					p = math.Min(p, npos-1)
					lo, hi := math.Floor(p), math.Ceil(p)
					w := p - lo
					a[j] = logits[j] + dotv(at(q, b, i, h), e[int(hi)*dh:][:dh])*w + dotv(at(q, b, i, h), e[int(lo)*dh:][:dh])*(1-w)
				}
				mx, tot := math.Inf(-1), 0.0
				for _, x := range a {
					mx = math.Max(mx, x)
				}
				for j := range a {
					a[j] = math.Exp(a[j] - mx)
					tot += a[j]
				}
				y := at(want, b, i, h)
				for j := range a {
					wantP[((b*H+h)*T+i)*T+j] = a[j] / tot
					for x := range y {
						y[x] += a[j] / tot * at(v, b, j, h)[x]
					}
				}
			}
		}
	}
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		g := G.NewGraph()
		node := func(name string, x []float64, shape ...int) *G.Node {
			var t *tensor.Dense
			if dt == tensor.Float64 {
				t = tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float64(nil), x...)))
			} else {
				f := make([]float32, len(x))
				for i, v := range x {
					f[i] = float32(v)
				}
				t = tensor.New(tensor.WithShape(shape...), tensor.WithBacking(f))
			}
			return G.NewTensor(g, dt, 2, G.WithShape(shape...), G.WithValue(t), G.WithName(name))
		}
		capture := &AttentionCapture{}
		out, err := CoPEAttention(node("q", q, B*T, H*dh), node("k", k, B*T, H*dh), node("v", v, B*T, H*dh), node("e", e, npos, dh),
			CoPEConfig{Batch: B, Len: T, Heads: H, NPos: npos, Capture: capture})
		if err != nil {
			t.Fatal(err)
		}
		vm := G.NewTapeMachine(g)
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		got := float64s(out.Value())
		tol := 1e-13
		if dt == tensor.Float32 {
			tol = 1e-5
		}
		for i := range want {
			if math.Abs(got[i]-want[i]) > tol*max(1, math.Abs(want[i])) {
				t.Fatalf("%v: y[%d] = %v, the reference's %v", dt, i, got[i], want[i])
			}
		}
		p, err := capture.Weights()
		if err != nil {
			t.Fatal(err)
		}
		if b, h, n := capture.Shape(); b != B || h != H || n != T || len(p) != len(wantP) {
			t.Fatalf("%v: captured [%d %d %d] (%d weights)", dt, b, h, n, len(p))
		}
		for i := range p {
			if math.Abs(p[i]-wantP[i]) > tol {
				t.Fatalf("%v: captured weight %d = %v, want %v", dt, i, p[i], wantP[i])
			}
		}
		vm.Close()
	}
}
