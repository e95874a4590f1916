package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// BenchmarkCoPEAttention measures CoPEAttention's evaluation (forward, one block of rows per
// worker) and training step (forward and backward) in float32 beside causal Attention's on the
// same q, k, v (the reference model's heads: 4 of 16 values, npos 64), so that the ratio of the
// two shows in one run:
//
//	go test ./internal/ops -run '^$' -bench 'CoPEAttention' -benchtime 20x
func BenchmarkCoPEAttention(b *testing.B) {
	const B, H, dh, npos = 8, 4, 16, 64
	for _, T := range []int{64, 256, 1024} {
		for _, grad := range []bool{false, true} {
			for _, cope := range []bool{false, true} {
				name := fmt.Sprintf("T=%d/grad=%v/%s", T, grad, map[bool]string{false: "attention", true: "cope"}[cope])
				b.Run(name, func(b *testing.B) {
					rng := rand.New(rand.NewPCG(1, 2))
					g := G.NewGraph()
					mk := func(name string, n, d int) *G.Node {
						x := make([]float32, n*d)
						for i := range x {
							x[i] = float32(rng.NormFloat64())
						}
						return G.NewTensor(g, tensor.Float32, 2, G.WithShape(n, d), G.WithValue(tensor.New(tensor.WithShape(n, d), tensor.WithBacking(x))), G.WithName(name))
					}
					q, k, v := mk("q", B*T, H*dh), mk("k", B*T, H*dh), mk("v", B*T, H*dh)
					e := mk("e", npos, dh)
					var out *G.Node
					var err error
					if cope {
						out, err = CoPEAttention(q, k, v, e, CoPEConfig{Batch: B, Len: T, Heads: H, NPos: npos})
					} else {
						out, err = Attention(q, k, v, nil, AttentionConfig{Batch: B, Len: T, Heads: H, Causal: true})
					}
					if err != nil {
						b.Fatal(err)
					}
					if grad {
						wrt := G.Nodes{q, k, v}
						if cope {
							wrt = append(wrt, e)
						}
						if _, err := G.Grad(G.Must(G.Sum(out)), wrt...); err != nil {
							b.Fatal(err)
						}
					}
					vm := G.NewTapeMachine(g)
					defer vm.Close()
					b.ReportAllocs()
					for b.Loop() {
						vm.Reset()
						if err := vm.RunAll(); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		}
	}
}
