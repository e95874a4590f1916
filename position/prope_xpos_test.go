package position_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/position"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// p-RoPE: the first ⌊p·d_head/2⌋ pairs turn at rope's own frequencies θᵢ = base^(−2i/d_head),
// the others do not turn at all; rope's rotary_fraction instead spreads every frequency over
// fewer dimensions (other θᵢ).
func TestPRoPE(t *testing.T) {
	dims := position.Dims{DModel: 32, Heads: 2, Dtype: tensor.Float64}
	rope := mustNew(t, position.Spec{Kind: "rope"}.With("base", 500), dims).(*position.RoPE)
	frac := mustNew(t, position.Spec{Kind: "rope"}.With("base", 500).With("rotary_fraction", 0.5), dims).(*position.RoPE)
	rng := rand.New(rand.NewPCG(21, 22))
	for _, c := range []struct {
		p    float64
		kept int
	}{{1, 8}, {0.75, 6}, {0.5, 4}, {0.3, 2}, {0.125, 1}} {
		p := mustNew(t, position.Spec{Kind: "p_rope"}.With("base", 500).With("p", c.p), dims).(*position.PRoPE)
		if p.Name() != "p_rope" || p.Kept != c.kept {
			t.Fatalf("p = %v: %s keeps %d pairs, want %d", c.p, p.Name(), p.Kept, c.kept)
		}
		const n = 24
		pos := make([]float64, n)
		for i := range pos {
			pos[i] = float64(i)
		}
		q := randn(rng, n*32)
		got := ropeGraph(t, p, q, pos, 32, n, n)
		want := ropeGraph(t, rope, q, pos, 32, n, n)
		for row := range n {
			for h := range 2 {
				for j := range 16 {
					at := row*32 + h*16 + j
					if j/2 < c.kept && got[at] != want[at] {
						t.Fatalf("p = %v, position %d, value %d of a kept pair: %v, rope's %v", c.p, row, j, got[at], want[at])
					}
					if j/2 >= c.kept && got[at] != q[at] {
						t.Fatalf("p = %v, position %d, value %d of a dropped pair: rotated (%v from %v)", c.p, row, j, got[at], q[at])
					}
				}
			}
		}
	}
	half := mustNew(t, position.Spec{Kind: "p_rope"}.With("base", 500).With("p", 0.5), dims).(*position.PRoPE)
	if th, tf := half.Theta(), frac.Theta(); th[1] == tf[1] {
		t.Errorf("p_rope p = 0.5 and rope rotary_fraction 0.5 share θ₁ = %v: they should differ", th[1])
	}
	for _, p := range []float64{0, 0.1, -1, 1.5} {
		_, err := position.New(position.Spec{Kind: "p_rope"}.With("p", p), dims)
		if err == nil || !strings.HasPrefix(err.Error(), "position.p: ") {
			t.Errorf("p = %v: %v, want an error naming position.p", p, err)
		}
	}
}

// xPos: q at n and k at m give R(n)ζ^(n/γ)q · R(m)ζ^(−m/γ)k, whose pair i is ζᵢ^((n − m)/γ)
// times rope's: a function of n − m only, at every length and offset; refused in an encoder.
func TestXPos(t *testing.T) {
	dims := position.Dims{DModel: 32, Heads: 2, Dtype: tensor.Float64}
	x := mustNew(t, position.Spec{Kind: "xpos"}.With("base", 500).With("scale_base", 16), dims).(*position.XPos)
	rope := mustNew(t, position.Spec{Kind: "rope"}.With("base", 500), dims).(*position.RoPE)
	z := x.Zeta()
	if len(z) != 8 || math.Abs(z[0]-0.4/1.4) > 1e-15 || math.Abs(z[7]-(14.0/16+0.4)/1.4) > 1e-15 {
		t.Fatalf("ζ = %v, want (2i/16 + 0.4)/1.4", z)
	}
	rng := rand.New(rand.NewPCG(23, 24))
	for _, n := range []int{5, 16, 61} {
		pos := make([]float64, n)
		for i := range pos {
			pos[i] = float64(i)
		}
		q, k := randn(rng, 32), randn(rng, 32)
		qs, ks := make([]float64, 0, n*32), make([]float64, 0, n*32)
		for range n {
			qs, ks = append(qs, q...), append(ks, k...)
		}
		rq, rk := rotQK(t, x, qs, ks, pos, n)
		pq, pk := rotQK(t, rope, qs, ks, pos, n)
		for range 30 {
			a, b := rng.IntN(n), rng.IntN(n)
			for h := range 2 {
				got, want := 0.0, 0.0
				for i := range 8 {
					lo := h*16 + 2*i
					got += rq[a*32+lo]*rk[b*32+lo] + rq[a*32+lo+1]*rk[b*32+lo+1]
					want += math.Pow(z[i], float64(a-b)/16) * (pq[a*32+lo]*pk[b*32+lo] + pq[a*32+lo+1]*pk[b*32+lo+1])
				}
				if math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
					t.Fatalf("T = %d, q at %d, k at %d, head %d: q·k = %v, want Σᵢ ζᵢ^((n − m)/γ)·rope's = %v", n, a, b, h, got, want)
				}
			}
		}
	}
	_, err := position.New(position.Spec{Kind: "xpos"}, position.Dims{DModel: 32, Heads: 2, Dtype: tensor.Float64, Bidirectional: true})
	if err == nil || !strings.Contains(err.Error(), "but model.bidirectional is set") {
		t.Errorf("xpos in an encoder: %v, want refused", err)
	}
	_, err = position.New(position.Spec{Kind: "xpos", Randomized: true}, dims)
	if err == nil || !strings.HasPrefix(err.Error(), "position.randomized: ") {
		t.Errorf("randomized xpos: %v, want refused", err)
	}
	_, err = position.New(position.Spec{Kind: "xpos"}.With("scale_base", 0), dims)
	if err == nil || !strings.HasPrefix(err.Error(), "position.scale_base: ") {
		t.Errorf("scale_base 0: %v, want refused", err)
	}
}

// rotQK runs a scheme's RotateQK on q and k [n, 32] at the positions, one sequence of n tokens.
func rotQK(t *testing.T, s position.Scheme, q, k, pos []float64, n int) (qr, kr []float64) {
	t.Helper()
	b := nn.NewBuilder(tensor.Float64)
	qn, _ := b.Const("test.q", tensor.New(tensor.WithShape(n, 32), tensor.WithBacking(slices.Clone(q))))
	kn, _ := b.Const("test.k", tensor.New(tensor.WithShape(n, 32), tensor.WithBacking(slices.Clone(k))))
	pn, _ := b.Const("test.pos", tensor.New(tensor.WithShape(n), tensor.WithBacking(slices.Clone(pos))))
	a, c, err := s.(position.QKRotator).RotateQK(position.Ctx{B: b, Batch: 1, Len: n, Pos: pn, MaxPos: n, TrainLen: n}, qn, kn)
	if err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(b.G)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return slices.Clone(a.Value().Data().([]float64)), slices.Clone(c.Value().Data().([]float64))
}
