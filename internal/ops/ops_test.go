package ops

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
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
	// YaRN's form: frequencies of their own and cos and sin multiplied by a temperature.
	checkOp(t, "Rope", []input{
		{[]int{8, 12}, randn(rng, 96, 1), true},
		{[]int{8}, pos, false},
	}, func(in []*G.Node) (*G.Node, error) {
		return Rope(in[0], in[1], RopeConfig{Heads: 2, Rot: 6, Base: 10000, Scale: 1, Freqs: []float64{1, 0.3, 0.01}, Mscale: 1.07})
	})
}

// TestRopeMscale: Mscale multiplies the rotation's output, and Freqs replace Base's frequencies.
func TestRopeMscale(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 7))
	x := randn(rng, 4*8, 1)
	pos := []float64{0, 3, 9, 40}
	run := func(cfg RopeConfig) []float64 {
		g := G.NewGraph()
		xn := G.NewTensor(g, tensor.Float64, 2, G.WithShape(4, 8), G.WithValue(tensor.New(tensor.WithShape(4, 8), tensor.WithBacking(append([]float64(nil), x...)))))
		pn := G.NewVector(g, tensor.Float64, G.WithShape(4), G.WithValue(tensor.New(tensor.WithShape(4), tensor.WithBacking(append([]float64(nil), pos...)))))
		out, err := Rope(xn, pn, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return runOut(t, g, out)
	}
	plain := run(RopeConfig{Heads: 2, Rot: 4, Base: 100, Scale: 1})
	same := run(RopeConfig{Heads: 2, Rot: 4, Base: 7, Scale: 1, Freqs: Theta(100, 4)})
	hot := run(RopeConfig{Heads: 2, Rot: 4, Base: 100, Scale: 1, Mscale: 1.25})
	for i := range plain {
		if same[i] != plain[i] {
			t.Fatalf("Freqs = Theta(100, 4) differs from Base 100 at %d: %v vs %v", i, same[i], plain[i])
		}
		if d := math.Abs(hot[i] - 1.25*plain[i]); d > 1e-12 {
			t.Fatalf("Mscale 1.25 at %d: %v, want %v", i, hot[i], 1.25*plain[i])
		}
	}
}

func TestGradAttention(t *testing.T) { testGradAttention(t) }

// TestGradAttentionBlocked runs the same checks with causal rows processed two at a time (the
// default block is longer than these sequences), so that every partial block is exercised.
func TestGradAttentionBlocked(t *testing.T) {
	attnBlockRows = 2
	defer func() { attnBlockRows = 0 }()
	testGradAttention(t)
}

func testGradAttention(t *testing.T) {
	for _, unscaled := range []bool{false, true} {
		for _, causal := range []bool{true, false} {
			for _, withBias := range []bool{false, true} {
				testGradAttentionCase(t, causal, withBias, unscaled)
			}
		}
	}
}

func testGradAttentionCase(t *testing.T, causal, withBias, unscaled bool) {
	t.Helper()
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
	cfg := AttentionConfig{Batch: B, Len: T, Heads: H, Causal: causal, Unscaled: unscaled}
	checkOp(t, "Attention", ins, func(in []*G.Node) (*G.Node, error) {
		var bias *G.Node
		if withBias {
			bias = in[3]
		}
		return Attention(in[0], in[1], in[2], bias, cfg)
	})
}

// TestAttentionUnscaled: without the scale, attention of q/√Dh is attention of q with it (to
// rounding, float64), with and without a bias and a causal mask; and it is a different function
// of q itself (the scale is really left out).
func TestAttentionUnscaled(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	B, T, H, D := 2, 5, 2, 8
	q, k, v, bias := randn(rng, B*T*D, 1), randn(rng, B*T*D, 1), randn(rng, B*T*D, 1), randn(rng, H*T*T, 1)
	run := func(q []float64, cfg AttentionConfig) []float64 {
		g := G.NewGraph()
		n := func(name string, d []float64, s ...int) *G.Node {
			return G.NewTensor(g, tensor.Float64, len(s), G.WithShape(s...), G.WithName(name),
				G.WithValue(tensor.New(tensor.WithShape(s...), tensor.WithBacking(append([]float64(nil), d...)))))
		}
		out, err := Attention(n("q", q, B*T, D), n("k", k, B*T, D), n("v", v, B*T, D), n("bias", bias, H, T, T), cfg)
		if err != nil {
			t.Fatal(err)
		}
		return runOut(t, g, out)
	}
	qs := make([]float64, len(q))
	for i := range q {
		qs[i] = q[i] / math.Sqrt(float64(D/H))
	}
	for _, causal := range []bool{true, false} {
		cfg := AttentionConfig{Batch: B, Len: T, Heads: H, Causal: causal}
		want := run(q, cfg)
		cfg.Unscaled = true
		got, raw := run(qs, cfg), run(q, cfg)
		far := 0.0
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-12 {
				t.Fatalf("causal %v: unscaled attention of q/√Dh [%d] = %v, scaled attention of q %v", causal, i, got[i], want[i])
			}
			far = math.Max(far, math.Abs(raw[i]-want[i]))
		}
		if far < 1e-3 {
			t.Errorf("causal %v: unscaled attention of q equals the scaled one (max difference %g): the scale was not left out", causal, far)
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

// geluExact is x·Φ(x) and GELU'(x) = Φ(x) + x·φ(x) in float64, with Φ from math.Erfc so that
// the negative tail keeps its relative accuracy, and |Φ(x)| + |x·φ(x)|, the size of the terms
// that GELU' adds (it crosses zero near x = −0.75, where only an error relative to the terms
// means anything).
func geluExact(x float64) (y, dy, dyScale float64) {
	phi := 0.5 * math.Erfc(-x*invSqrt2)
	xpdf := x * invSqrt2Pi * math.Exp(-0.5*x*x)
	return x * phi, phi + xpdf, phi + math.Abs(xpdf)
}

// TestGELUFloat32Accuracy compares the float32 GELU and its derivative, both the vector kernel
// (through geluKernel) and the scalar one, with the float64 ones over a dense grid: relative
// error below 5e-7 (about 4 float32 ulps; for GELU', relative to the size of its two terms),
// and an absolute error below 1e-35 where the result is below 1e-35 (|x| > 13, where the
// vector kernel flushes Φ(−|x|) to zero).
func TestGELUFloat32Accuracy(t *testing.T) {
	var xs []float32
	for x := -16.0; x <= 16; x += 1.0 / 1024 {
		xs = append(xs, float32(x))
	}
	xs = append(xs, 0, 1e-30, -1e-30, 1e-7, -1e-7, 30, -30, 1e4, -1e4, math.MaxFloat32, -math.MaxFloat32)
	y, dy := make([]float32, len(xs)), make([]float32, len(xs))
	ones := make([]float32, len(xs))
	for i := range ones {
		ones[i] = 1
	}
	geluKernel(xs, nil, y)
	geluKernel(xs, ones, dy)
	var worstY, worstD float64
	for i, x := range xs {
		wy, wd, ds := geluExact(float64(x))
		for _, c := range []struct {
			got, want, scale float64
			worst            *float64
			what             string
		}{
			{float64(y[i]), wy, math.Abs(wy), &worstY, "GELU"},
			{float64(geluFast32(x)), wy, math.Abs(wy), &worstY, "scalar GELU"},
			{float64(dy[i]), wd, ds, &worstD, "GELU'"},
			{float64(geluGradFast32(x)), wd, ds, &worstD, "scalar GELU'"},
		} {
			if c.scale < 1e-35 {
				if math.Abs(c.got-c.want) > 1e-35 {
					t.Fatalf("%s(%g) = %g, want %g", c.what, x, c.got, c.want)
				}
				continue
			}
			e := math.Abs(c.got-c.want) / c.scale
			*c.worst = max(*c.worst, e)
			if !(e < 5e-7) {
				t.Fatalf("%s(%g) = %.9g, want %.9g (relative error %.3g)", c.what, x, c.got, c.want, e)
			}
		}
	}
	t.Logf("max relative error: GELU %.3g, GELU' %.3g (float32 epsilon %.3g)", worstY, worstD, math.Pow(2, -23))
}

// TestExpFast checks the exponential behind the float32 GELU against math.Exp.
func TestExpFast(t *testing.T) {
	for y := -720.0; y <= 1; y += 0.0137 {
		want := math.Exp(y)
		if y < -700 {
			want = 0
		}
		if got := expFast(y); math.Abs(got-want) > 1e-12*want {
			t.Fatalf("expFast(%g) = %g, want %g", y, got, want)
		}
	}
}

// TestSoftmaxVector checks softmax rows of every length mod 8 (the vector exponential does
// eight values at a time, the rest is scalar) against float64.
func TestSoftmaxVector(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for n := 1; n <= 70; n++ {
		row := make([]float32, n)
		for i := range row {
			row[i] = float32(rng.NormFloat64() * 30)
		}
		x := append([]float32(nil), row...)
		want := make([]float64, n)
		mx := math.Inf(-1)
		for _, x := range row {
			mx = max(mx, float64(x))
		}
		var z float64
		for i, x := range row {
			want[i] = math.Exp(float64(x) - mx)
			z += want[i]
		}
		softmaxRow(row)
		for i := range row {
			// The float32 subtraction x − max costs |x − max|·2⁻²⁴ of relative accuracy.
			w, tol := want[i]/z, 5e-7+6e-8*(mx-float64(x[i]))
			if e := math.Abs(float64(row[i]) - w); e > tol*w && e > 1e-37 {
				t.Fatalf("n=%d: p[%d] = %g, want %g", n, i, row[i], w)
			}
		}
	}
}

// TestExpVector checks the vector exponential over [−87, 88] against math.Exp.
func TestExpVector(t *testing.T) {
	if !useKernels {
		t.Skip("no vector exponential on this CPU")
	}
	var xs []float32
	for x := -87.0; x <= 88; x += 0.001 {
		xs = append(xs, float32(x))
	}
	xs = xs[:len(xs)&^7]
	y := append([]float32(nil), xs...)
	sum := expShiftSum8(y, 0)
	var ws float64
	for i, x := range xs {
		w := math.Exp(float64(x))
		ws += float64(y[i])
		if e := math.Abs(float64(y[i])-w) / w; e > 2.5e-7 {
			t.Fatalf("exp(%g) = %g, want %g (relative error %.3g)", x, y[i], w, e)
		}
	}
	_ = sum // overflows float32 over this range; the sum is checked below on x − 88 ≤ 0
	y = append(y[:0], xs...)
	sum = expShiftSum8(y, 88)
	ws = 0
	for _, x := range xs {
		ws += math.Exp(float64(x) - 88)
	}
	if math.Abs(float64(sum)-ws)/ws > 1e-5 {
		t.Fatalf("sum %g, want %g", sum, ws)
	}
}

// TestRopeNewPositions: the op keeps its cos/sin tables between runs while the positions repeat;
// new positions in the same graph must give the rotation of a freshly built op.
func TestRopeNewPositions(t *testing.T) {
	cfg := RopeConfig{Heads: 2, Rot: 4, Base: 10000, Scale: 1}
	rng := rand.New(rand.NewPCG(4, 4))
	x := randn(rng, 3*8, 1)
	run := func(vm G.VM, out *G.Node) []float64 {
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		vm.Reset()
		return append([]float64(nil), out.Value().Data().([]float64)...)
	}
	build := func(pos []float64) (G.VM, *G.Node, *tensor.Dense) {
		g := G.NewGraph()
		xn := G.NewTensor(g, tensor.Float64, 2, G.WithShape(3, 8), G.WithValue(tensor.New(tensor.WithShape(3, 8), tensor.WithBacking(x))), G.WithName("x"))
		pv := tensor.New(tensor.WithShape(3), tensor.WithBacking(append([]float64(nil), pos...)))
		pn := G.NewTensor(g, tensor.Float64, 1, G.WithShape(3), G.WithValue(pv), G.WithName("pos"))
		out, err := Rope(xn, pn, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return G.NewTapeMachine(g), out, pv
	}
	vm, out, pv := build([]float64{0, 1, 2})
	defer vm.Close()
	run(vm, out)
	copy(pv.Data().([]float64), []float64{5, 9, 100})
	got := run(vm, out)
	vm2, out2, _ := build([]float64{5, 9, 100})
	defer vm2.Close()
	want := run(vm2, out2)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("after new positions: out[%d] = %v, want %v", i, got[i], want[i])
		}
	}
}

// TestLayerNormFloat32: the float32 layer norm (vector row statistics) against float64, for row
// lengths on both sides of the eight-value vector width, with a large common offset.
func TestLayerNormFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 9))
	for d := 1; d <= 40; d++ {
		n := 3
		x64 := randn(rng, n*d, 2)
		for i := range x64 {
			x64[i] += 100
		}
		g64, b64 := randn(rng, d, 1), randn(rng, d, 1)
		x32, g32, b32 := make([]float32, n*d), make([]float32, d), make([]float32, d)
		for i, v := range x64 {
			x32[i] = float32(v)
			x64[i] = float64(x32[i])
		}
		for i := range g64 {
			g32[i], b32[i] = float32(g64[i]), float32(b64[i])
			g64[i], b64[i] = float64(g32[i]), float64(b32[i])
		}
		y32, y64 := make([]float32, n*d), make([]float64, n*d)
		layerNormFwd(x32, g32, b32, y32, nil, n, d)
		layerNormFwd(x64, g64, b64, y64, nil, n, d)
		for i := range y64 {
			if math.Abs(float64(y32[i])-y64[i]) > 2e-4*(1+math.Abs(y64[i])) {
				t.Fatalf("d=%d: y[%d] = %v, want %v", d, i, y32[i], y64[i])
			}
		}
	}
}

// TestCrossEntropyFloat32: on enough rows to be split over the workers, the float32 loss and
// gradient (expFast) match the float64 ones (math.Exp), rows of weight 0 included.
func TestCrossEntropyFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 1))
	n, v := 3000, 16
	l64, tg64, w64 := randn(rng, n*v, 4), make([]float64, n), make([]float64, n)
	l32, tg32, w32 := make([]float32, n*v), make([]float32, n), make([]float32, n)
	for i := range l64 {
		l32[i] = float32(l64[i])
		l64[i] = float64(l32[i])
	}
	for r := range tg64 {
		tg64[r], w64[r] = float64(rng.IntN(v)), float64(rng.IntN(3)) // weights 0, 1, 2
		tg32[r], w32[r] = float32(tg64[r]), float32(w64[r])
	}
	d32, d64 := make([]float32, n*v), make([]float64, n*v)
	loss32, err := crossEntropy(l32, tg32, w32, d32, 0.5, n, v)
	if err != nil {
		t.Fatal(err)
	}
	loss64, err := crossEntropy(l64, tg64, w64, d64, 0.5, n, v)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(loss32-loss64) > 1e-6*loss64 {
		t.Fatalf("loss %v, want %v", loss32, loss64)
	}
	var wsum float64
	for _, x := range w64 {
		wsum += x
	}
	for i := range d64 {
		// The target's entry is scale·(p − 1): its float32 rounding is relative to scale.
		scale := 0.5 * w64[i/v] / wsum
		if math.Abs(float64(d32[i])-d64[i]) > 1e-6*math.Abs(d64[i])+3e-7*scale {
			t.Fatalf("dlogits[%d] = %v, want %v", i, d32[i], d64[i])
		}
	}
	tg32[n-1], w32[n-1] = float32(v), 1 // a target outside the vocabulary is an error, from any worker
	if _, err := crossEntropy(l32, tg32, w32, d32, 0.5, n, v); err == nil {
		t.Fatal("target = vocabulary size: want an error")
	}
}

// TestGELUIndependentOfWorkers: the float32 GELU and its gradient give the same bits whatever
// the number of workers, for a length that is not a multiple of the kernel's width.
func TestGELUIndependentOfWorkers(t *testing.T) {
	const n = 10007
	rng := rand.New(rand.NewPCG(3, 4))
	x, g := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i], g[i] = float32(4*rng.NormFloat64()), float32(rng.NormFloat64())
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var wantY, wantD []float32
	for _, procs := range []int{1, 2, 3, 5} {
		runtime.GOMAXPROCS(procs)
		y, d := make([]float32, n), make([]float32, n)
		geluKernel(x, nil, y)
		geluKernel(x, g, d)
		if wantY == nil {
			wantY, wantD = y, d
			continue
		}
		for i := range y {
			if math.Float32bits(y[i]) != math.Float32bits(wantY[i]) || math.Float32bits(d[i]) != math.Float32bits(wantD[i]) {
				t.Fatalf("GOMAXPROCS %d: element %d differs from GOMAXPROCS 1: GELU %v vs %v, gradient %v vs %v", procs, i, y[i], wantY[i], d[i], wantD[i])
			}
		}
	}
}

// TestLinearRefusesChangedShapes: a value whose shape no longer fits the graph (x or W not 2-D,
// the inner sizes apart) is refused with an error naming the shapes, never indexed out of range
// (a grid at -jobs 2 once panicked inside Linear with a 1-D input, from a Gorgonia hash collision
// that model.Build now refuses).
func TestLinearRefusesChangedShapes(t *testing.T) {
	op := &linearOp{base: newBase("Linear", 3)}
	x2 := tensor.New(tensor.WithShape(5, 4), tensor.WithBacking(make([]float64, 20)))
	x1 := tensor.New(tensor.WithShape(20), tensor.WithBacking(make([]float64, 20)))
	w := tensor.New(tensor.WithShape(4, 3), tensor.WithBacking(make([]float64, 12)))
	w1 := tensor.New(tensor.WithShape(12), tensor.WithBacking(make([]float64, 12)))
	b := tensor.New(tensor.WithShape(3), tensor.WithBacking(make([]float64, 3)))
	if _, err := op.Do(x2, w, b); err != nil {
		t.Fatalf("fitting shapes refused: %v", err)
	}
	for _, in := range [][3]*tensor.Dense{{x1, w, b}, {x2, w1, b}, {x2, x2, b}} {
		_, err := op.Do(in[0], in[1], in[2])
		if err == nil || !strings.Contains(err.Error(), "ops: Linear got x") {
			t.Errorf("x %v, W %v: got %v; want a shape error", in[0].Shape(), in[1].Shape(), err)
		}
	}
}

// runOut runs graph g once and returns a copy of out's float64 values (the machine is closed).
func runOut(t *testing.T, g *G.ExprGraph, out *G.Node) []float64 {
	t.Helper()
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return append([]float64(nil), out.Value().Data().([]float64)...)
}
