package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/posformer/posformer/internal/gradcheck"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// input is one input of an op under test: its shape, its values and whether to check its gradient.
type input struct {
	shape []int
	data  []float64
	diff  bool
}

func randn(rng *rand.Rand, n int, scale float64) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64() * scale
	}
	return x
}

// checkOp builds build(inputs) in a float64 graph, reduces it to the scalar Σ out∘R for a fixed
// random R, and compares Gorgonia's gradient of every differentiable input with central finite
// differences.
func checkOp(t *testing.T, name string, ins []input, build func(in []*G.Node) (*G.Node, error)) {
	t.Helper()
	g := G.NewGraph()
	nodes := make([]*G.Node, len(ins))
	vals := make([]*tensor.Dense, len(ins))
	for i, in := range ins {
		vals[i] = tensor.New(tensor.WithShape(in.shape...), tensor.WithBacking(in.data))
		nodes[i] = G.NewTensor(g, tensor.Float64, len(in.shape), G.WithShape(in.shape...), G.WithValue(vals[i]), G.WithName(name+".in"+string(rune('a'+i))))
	}
	out, err := build(nodes)
	if err != nil {
		t.Fatalf("%s: build: %v", name, err)
	}
	loss := out
	if !out.IsScalar() {
		r := tensor.New(tensor.WithShape(out.Shape()...), tensor.WithBacking(randn(rand.New(rand.NewPCG(7, 7)), out.Shape().TotalSize(), 1)))
		rn := G.NewTensor(g, tensor.Float64, out.Dims(), G.WithShape(out.Shape()...), G.WithValue(r), G.WithName(name+".R"))
		loss = G.Must(G.Sum(G.Must(G.HadamardProd(out, rn))))
	}
	var wrt []*G.Node
	var idx []int
	for i, in := range ins {
		if in.diff {
			wrt = append(wrt, nodes[i])
			idx = append(idx, i)
		}
	}
	grads, err := G.Grad(loss, wrt...)
	if err != nil {
		t.Fatalf("%s: grad: %v", name, err)
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
		t.Fatalf("%s: run: %v", name, err)
	}
	analytic := make([][]float64, len(grads))
	for i, gr := range grads {
		analytic[i] = append([]float64(nil), gr.Value().Data().([]float64)...)
	}
	for i, j := range idx {
		num, err := gradcheck.Numeric(run, ins[j].data, gradcheck.DefaultStep)
		if err != nil {
			t.Fatalf("%s: numeric: %v", name, err)
		}
		if e := gradcheck.RelErr(analytic[i], num); !(e < 1e-7) {
			t.Errorf("%s: input %d: relative gradient error %.3g ≥ 1e-7", name, j, e)
		} else {
			t.Logf("%s: input %d: relative gradient error %.3g", name, j, e)
		}
	}
}

func TestGradLinear(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checkOp(t, "Linear", []input{
		{[]int{5, 4}, randn(rng, 20, 1), true},
		{[]int{4, 3}, randn(rng, 12, 1), true},
		{[]int{3}, randn(rng, 3, 1), true},
	}, func(in []*G.Node) (*G.Node, error) { return Linear(in[0], in[1], in[2]) })
}

func TestGradLayerNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 3))
	checkOp(t, "LayerNorm", []input{
		{[]int{6, 5}, randn(rng, 30, 2), true},
		{[]int{5}, randn(rng, 5, 1), true},
		{[]int{5}, randn(rng, 5, 1), true},
	}, func(in []*G.Node) (*G.Node, error) { return LayerNorm(in[0], in[1], in[2]) })
}

func TestGradGELU(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 4))
	checkOp(t, "GELU", []input{{[]int{7, 6}, randn(rng, 42, 2), true}},
		func(in []*G.Node) (*G.Node, error) { return GELU(in[0]) })
}

func TestGradEmbed(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 5))
	idx := []float64{0, 3, 3, 1, 4, 0, 2} // repeated indices accumulate
	checkOp(t, "Embed", []input{
		{[]int{5, 3}, randn(rng, 15, 1), true},
		{[]int{7}, idx, false},
	}, func(in []*G.Node) (*G.Node, error) { return Embed(in[0], in[1]) })
}

func TestGradCrossEntropy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 6))
	checkOp(t, "CrossEntropy", []input{
		{[]int{6, 5}, randn(rng, 30, 3), true},
		{[]int{6}, []float64{0, 4, 2, 2, 1, 3}, false},
		{[]int{6}, []float64{0, 1, 1, 0, 1, 1}, false},
	}, func(in []*G.Node) (*G.Node, error) { return CrossEntropy(in[0], in[1], in[2]) })
}

func TestGradRope(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 7))
	pos := []float64{0, 1, 2, 3, 7, 100, 2047, 5}
	for _, rot := range []int{6, 4, 0} {
		checkOp(t, "Rope", []input{
			{[]int{8, 12}, randn(rng, 96, 1), true},
			{[]int{8}, pos, false},
		}, func(in []*G.Node) (*G.Node, error) {
			return Rope(in[0], in[1], RopeConfig{Heads: 2, Rot: rot, Base: 10000, Scale: 1})
		})
	}
}

func TestGradAttention(t *testing.T) {
	for _, causal := range []bool{true, false} {
		for _, withBias := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(1, 8))
			B, T, H, D := 2, 5, 2, 6
			ins := []input{
				{[]int{B * T, D}, randn(rng, B*T*D, 1), true},
				{[]int{B * T, D}, randn(rng, B*T*D, 1), true},
				{[]int{B * T, D}, randn(rng, B*T*D, 1), true},
			}
			if withBias {
				ins = append(ins, input{[]int{H, T, T}, randn(rng, H*T*T, 1), true})
			}
			cfg := AttentionConfig{Batch: B, Len: T, Heads: H, Causal: causal}
			checkOp(t, "Attention", ins, func(in []*G.Node) (*G.Node, error) {
				var bias *G.Node
				if withBias {
					bias = in[3]
				}
				return Attention(in[0], in[1], in[2], bias, cfg)
			})
		}
	}
}

// TestSoftmaxLargeLogits is the case that breaks tensor v0.9.24's SoftMax (its max starts from
// the tensor's first element): rows of very different scale must give finite probabilities.
func TestSoftmaxLargeLogits(t *testing.T) {
	for _, row := range [][]float32{{100, 0, 0}, {-100, 0, 0}, {1e4, 1e4 - 1, -1e4}, {0, 0, 0}} {
		r := append([]float32(nil), row...)
		softmaxRow(r)
		var s float64
		for _, p := range r {
			if math.IsNaN(float64(p)) || p < 0 || p > 1 {
				t.Fatalf("softmax(%v) = %v", row, r)
			}
			s += float64(p)
		}
		if math.Abs(s-1) > 1e-6 {
			t.Fatalf("softmax(%v) sums to %v", row, s)
		}
	}
}

// TestCrossEntropyStable checks the loss of huge logits against log-sum-exp done by hand.
func TestCrossEntropyStable(t *testing.T) {
	logits := []float32{1000, 0, -1000, 50, 51, 52}
	loss, err := crossEntropy(logits, []float32{1, 2}, []float32{1, 1}, nil, 0, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	lse2 := 52 + math.Log(math.Exp(-2)+math.Exp(-1)+1)
	want := ((1000 - 0) + (lse2 - 52)) / 2
	if math.Abs(loss-want) > 1e-3 || math.IsNaN(loss) {
		t.Fatalf("loss %v, want %v", loss, want)
	}
}

// TestEmbedOutOfRange: an index beyond the table is an error, not a panic.
func TestEmbedOutOfRange(t *testing.T) {
	if err := gather([]float64{1, 2}, []float64{2}, make([]float64, 1), 2, 1); err == nil {
		t.Fatal("index 2 of a 2-row table: want an error")
	}
}
