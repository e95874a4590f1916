package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestGradAttentionByDistance checks the gradient of Attention with a bias table by distance
// (one for the batch, or one per sequence) and with relative keys (one table for the batch, or
// one per sequence) against central finite differences in float64, causal and bidirectional,
// with whole sequences and with row blocks of two.
func TestGradAttentionByDistance(t *testing.T) {
	for _, rows := range []int{0, 2} {
		attnBlockRows = rows
		for _, causal := range []bool{true, false} {
			for _, perSeq := range []bool{false, true} {
				for _, withBias := range []bool{false, true} {
					for _, withRel := range []bool{false, true} {
						if !withBias && !withRel {
							continue
						}
						rng := rand.New(rand.NewPCG(11, 12))
						B, T, H, D := 2, 5, 2, 6
						nr, nb := 2*T-1, 1
						if perSeq {
							nb = B
						}
						ins := []input{
							{[]int{B * T, D}, randn(rng, B*T*D, 1), true},
							{[]int{B * T, D}, randn(rng, B*T*D, 1), true},
							{[]int{B * T, D}, randn(rng, B*T*D, 1), true},
						}
						if withBias {
							ins = append(ins, input{[]int{nb * H, nr}, randn(rng, nb*H*nr, 1), true})
						}
						if withRel {
							ins = append(ins, input{[]int{B * T, D}, randn(rng, B*T*D, 1), true}, input{[]int{nb * nr, D}, randn(rng, nb*nr*D, 1), true})
						}
						t.Logf("rows %d causal %v per sequence %v bias %v relative %v", rows, causal, perSeq, withBias, withRel)
						checkOp(t, "Attention", ins, func(in []*G.Node) (*G.Node, error) {
							cfg := AttentionConfig{Batch: B, Len: T, Heads: H, Causal: causal}
							var bias *G.Node
							rest := in[3:]
							if withBias {
								bias, rest = in[3], in[4:]
							}
							if withRel {
								cfg.Rel = RelativeKeys{Query: rest[0], Keys: rest[1]}
							}
							return Attention(in[0], in[1], in[2], bias, cfg)
						})
					}
				}
			}
		}
	}
	attnBlockRows = 0
}

// runAttention runs Attention once in float64 and returns its output.
func runAttention(t *testing.T, cfg AttentionConfig, q, k, v, bias []float64, biasShape []int, qr, rk []float64, rkRows int) []float64 {
	t.Helper()
	g := G.NewGraph()
	D := len(q) / (cfg.Batch * cfg.Len)
	node := func(name string, x []float64, s ...int) *G.Node {
		return G.NewTensor(g, tensor.Float64, len(s), G.WithShape(s...), G.WithName(name),
			G.WithValue(tensor.New(tensor.WithShape(s...), tensor.WithBacking(append([]float64(nil), x...)))))
	}
	var bn *G.Node
	if bias != nil {
		bn = node("bias", bias, biasShape...)
	}
	if qr != nil {
		cfg.Rel = RelativeKeys{Query: node("qr", qr, cfg.Batch*cfg.Len, D), Keys: node("rk", rk, rkRows, D)}
	}
	out, err := Attention(node("q", q, cfg.Batch*cfg.Len, D), node("k", k, cfg.Batch*cfg.Len, D), node("v", v, cfg.Batch*cfg.Len, D), bn, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return runOut(t, g, out)
}

// TestAttentionByDistanceIsPairs: a table by distance gives the bits of the same bias spelled
// out per pair [H, T, T], and the relative keys give what the pair bias
// scale·qr_i·keys[i − j + T − 1] gives (to rounding), sequence by sequence.
func TestAttentionByDistanceIsPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	const B, T, H, D = 2, 9, 2, 8
	dh, nr := D/H, 2*T-1
	q, k, v := randn(rng, B*T*D, 1), randn(rng, B*T*D, 1), randn(rng, B*T*D, 1)
	tab := randn(rng, H*nr, 1)
	pairs := make([]float64, H*T*T)
	for h := 0; h < H; h++ {
		for i := 0; i < T; i++ {
			for j := 0; j < T; j++ {
				pairs[(h*T+i)*T+j] = tab[h*nr+i-j+T-1]
			}
		}
	}
	qr, rk := randn(rng, B*T*D, 1), randn(rng, B*nr*D, 1)
	for _, causal := range []bool{true, false} {
		cfg := AttentionConfig{Batch: B, Len: T, Heads: H, Causal: causal}
		a := runAttention(t, cfg, q, k, v, tab, []int{H, nr}, nil, nil, 0)
		b := runAttention(t, cfg, q, k, v, pairs, []int{H, T, T}, nil, nil, 0)
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("causal %v: output %d is %v by distance, %v by pairs", causal, i, a[i], b[i])
			}
		}
		// The relative term as a pair bias, one sequence at a time.
		rel := runAttention(t, cfg, q, k, v, nil, nil, qr, rk, B*nr)
		worst := 0.0
		for bi := 0; bi < B; bi++ {
			pb := make([]float64, H*T*T)
			for h := 0; h < H; h++ {
				for i := 0; i < T; i++ {
					for j := 0; j < T; j++ {
						s := 0.0
						for x := 0; x < dh; x++ {
							s += qr[(bi*T+i)*D+h*dh+x] * rk[(bi*nr+i-j+T-1)*D+h*dh+x]
						}
						pb[(h*T+i)*T+j] = s / math.Sqrt(float64(dh))
					}
				}
			}
			one := AttentionConfig{Batch: 1, Len: T, Heads: H, Causal: causal}
			want := runAttention(t, one, q[bi*T*D:(bi+1)*T*D], k[bi*T*D:(bi+1)*T*D], v[bi*T*D:(bi+1)*T*D], pb, []int{H, T, T}, nil, nil, 0)
			for i, w := range want {
				worst = max(worst, math.Abs(rel[bi*T*D+i]-w))
			}
		}
		t.Logf("causal %v: relative keys against the pair bias: max difference %.3g", causal, worst)
		if !(worst < 1e-12) {
			t.Errorf("causal %v: relative keys differ from the pair bias by %.3g", causal, worst)
		}
	}
}
