package ops

import (
	"math/rand/v2"
	"testing"

	"github.com/posformer/posformer/internal/gradcheck"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestRelativeBias checks RelativeBias's forward pass entry by entry and its gradient against
// central finite differences in float64, with buckets that repeat (many (i, j) per bucket) and
// buckets that are never used (their gradient must be exactly zero).
func TestRelativeBias(t *testing.T) {
	const H, NB, T = 3, 7, 6
	rng := rand.New(rand.NewPCG(11, 12))
	buckets := make([]int, T*T)
	for k := range buckets {
		buckets[k] = rng.IntN(NB - 1) // bucket NB-1 is never used
	}
	table := make([]float64, H*NB)
	for i := range table {
		table[i] = rng.NormFloat64()
	}
	r := make([]float64, H*T*T) // loss = Σ out∘R
	for i := range r {
		r[i] = rng.NormFloat64()
	}
	g := G.NewGraph()
	tv := tensor.New(tensor.WithShape(H, NB), tensor.WithBacking(table))
	tn := G.NewTensor(g, tensor.Float64, 2, G.WithShape(H, NB), G.WithValue(tv), G.WithName("t5.table"))
	out, err := RelativeBias(tn, buckets, T)
	if err != nil {
		t.Fatal(err)
	}
	rn := G.NewTensor(g, tensor.Float64, 3, G.WithShape(H, T, T), G.WithValue(tensor.New(tensor.WithShape(H, T, T), tensor.WithBacking(r))), G.WithName("t5.R"))
	loss := G.Must(G.Sum(G.Must(G.HadamardProd(out, rn))))
	grads, err := G.Grad(loss, tn)
	if err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	run := func() (float64, error) {
		vm.Reset()
		if err := vm.RunAll(); err != nil {
			return 0, err
		}
		return loss.Value().Data().(float64), nil
	}
	if _, err := run(); err != nil {
		t.Fatal(err)
	}
	got := out.Value().Data().([]float64)
	for h := 0; h < H; h++ {
		for i := 0; i < T; i++ {
			for j := 0; j < T; j++ {
				if want := table[h*NB+buckets[i*T+j]]; got[(h*T+i)*T+j] != want {
					t.Fatalf("out[%d,%d,%d] = %v, want table[%d,%d] = %v", h, i, j, got[(h*T+i)*T+j], h, buckets[i*T+j], want)
				}
			}
		}
	}
	analytic := append([]float64(nil), grads[0].Value().Data().([]float64)...)
	num, err := gradcheck.Numeric(run, table, gradcheck.DefaultStep)
	if err != nil {
		t.Fatal(err)
	}
	e := gradcheck.RelErr(analytic, num)
	t.Logf("RelativeBias: relative gradient error %.3g", e)
	if !(e < 1e-8) {
		t.Errorf("RelativeBias gradient: relative error %.3g ≥ 1e-8", e)
	}
	for h := 0; h < H; h++ {
		if a := analytic[h*NB+NB-1]; a != 0 {
			t.Errorf("unused bucket of head %d has gradient %v, want 0", h, a)
		}
	}
}

func TestRelativeBiasErrors(t *testing.T) {
	g := G.NewGraph()
	tn := G.NewTensor(g, tensor.Float64, 2, G.WithShape(2, 4), G.WithName("t5.table"))
	if _, err := RelativeBias(tn, []int{0, 1, 2, 4}, 2); err == nil {
		t.Error("bucket 4 of a 4-bucket table: want an error")
	}
	if _, err := RelativeBias(tn, []int{0, 1, 2, 3, 0}, 2); err == nil {
		t.Error("5 buckets for length 2 (neither 4 pairs nor 3 distances): want an error")
	}
}

// TestRelativeBiasByDistance: with one bucket per distance the result is the table by distance
// [H, 2T−1], entry by entry, and its gradient (summed into the buckets) matches central finite
// differences in float64.
func TestRelativeBiasByDistance(t *testing.T) {
	const H, NB, T = 3, 5, 6
	rng := rand.New(rand.NewPCG(31, 32))
	buckets := make([]int, 2*T-1)
	for k := range buckets {
		buckets[k] = rng.IntN(NB)
	}
	table := randn(rng, H*NB, 1)
	checkOp(t, "RelativeBias", []input{{[]int{H, NB}, table, true}}, func(in []*G.Node) (*G.Node, error) {
		out, err := RelativeBias(in[0], buckets, T)
		if err == nil && !out.Shape().Eq(tensor.Shape{H, 2*T - 1}) {
			t.Fatalf("shape %v, want [%d %d]", out.Shape(), H, 2*T-1)
		}
		return out, err
	})
}
