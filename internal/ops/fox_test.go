package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestGradForgetAttention: the gradient of q, k, v and the gates' logits against central finite
// differences in float64, scaled and unscaled, with gates near 1 and near 0.
func TestGradForgetAttention(t *testing.T) {
	const B, T, H, dh = 2, 5, 2, 3
	rng := rand.New(rand.NewPCG(5, 12))
	for _, c := range []struct {
		gateShift float64
		unscaled  bool
	}{{0, false}, {3, false}, {-2, true}} {
		g := randn(rng, B*T*H, 1.5)
		for i := range g {
			g[i] += c.gateShift
		}
		checkOp(t, "ForgetAttention", []input{
			{[]int{B * T, H * dh}, randn(rng, B*T*H*dh, 1), true},
			{[]int{B * T, H * dh}, randn(rng, B*T*H*dh, 1), true},
			{[]int{B * T, H * dh}, randn(rng, B*T*H*dh, 1), true},
			{[]int{B * T, H}, g, true},
		}, func(in []*G.Node) (*G.Node, error) {
			return ForgetAttention(in[0], in[1], in[2], in[3], ForgetConfig{Batch: B, Len: T, Heads: H, Unscaled: c.unscaled})
		})
	}
}

// runAttnOp builds build(inputs) in a graph of dtype dt (each input [rows, cols] from float64
// values), runs it and returns its output as float64 and the captured weights (nil without
// capture).
func runAttnOp(t *testing.T, dt tensor.Dtype, ins [][]float64, shapes [][2]int, capture *AttentionCapture, build func(in []*G.Node) (*G.Node, error)) (y, p []float64) {
	t.Helper()
	g := G.NewGraph()
	nodes := make([]*G.Node, len(ins))
	for i, x := range ins {
		var v *tensor.Dense
		if dt == tensor.Float64 {
			v = tensor.New(tensor.WithShape(shapes[i][0], shapes[i][1]), tensor.WithBacking(append([]float64(nil), x...)))
		} else {
			f := make([]float32, len(x))
			for j, e := range x {
				f[j] = float32(e)
			}
			v = tensor.New(tensor.WithShape(shapes[i][0], shapes[i][1]), tensor.WithBacking(f))
		}
		nodes[i] = G.NewTensor(g, dt, 2, G.WithShape(shapes[i][0], shapes[i][1]), G.WithValue(v), G.WithName("in"+string(rune('a'+i))))
	}
	out, err := build(nodes)
	if err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	y = append([]float64(nil), float64s(out.Value())...)
	if capture != nil {
		if p, err = capture.Weights(); err != nil {
			t.Fatal(err)
		}
	}
	return y, p
}

// foxReference is the forward pass of flash-linear-attention's naive_forgetting_attn
// (fla-org/flash-linear-attention at bc3b101dcb713ddc5bd8924b66754eb68b5ccf89,
// fla/ops/forgetting_attn/naive.py), written out here with whole matrices in float64, the
// log-gates from the gates' logits as the layer there and zhixuan-lin/forgetting-transformer
// (at 883f260c636e87971339749b0d8310004794a5cc, src/forgetting_transformer/model/
// forgetting_transformer/modeling_forgetting_transformer.py, ForgettingAttentionLayer.forward)
// compute them: g = logsigmoid(fgate_logit); gc = g.cumsum(1); ref = q·scale @ kᵀ + gc[:, i] −
// gc[:, j]; masked_fill(~tril, −inf); softmax; @ v. Layout: q, k, v [B, T, H, dh] flattened,
// logits [B, T, H]. It returns y and the weights [B, H, T, T].
func foxReference(q, k, v, logit []float64, B, T, H, dh int, scale float64) (y, p []float64) {
	y, p = make([]float64, B*T*H*dh), make([]float64, B*H*T*T)
	at := func(x []float64, b, i, h int) []float64 { return x[((b*T+i)*H+h)*dh:][:dh] }
	for b := range B {
		for h := range H {
			gc := make([]float64, T) // the cumulative sum of logsigmoid over time
			run := 0.0
			for t := range T {
				x := logit[(b*T+t)*H+h]
				run += -math.Log1p(math.Exp(-x)) // logsigmoid(x) = −log(1 + e^(−x)); |x| is small here
				gc[t] = run
			}
			ref := make([][]float64, T)
			for i := range T {
				ref[i] = make([]float64, T)
				for j := range T {
					s := 0.0
					for x := range dh {
						s += at(q, b, i, h)[x] * scale * at(k, b, j, h)[x]
					}
					ref[i][j] = s + gc[i] - gc[j]
					if j > i {
						ref[i][j] = math.Inf(-1)
					}
				}
				mx, tot := math.Inf(-1), 0.0
				for _, x := range ref[i] {
					mx = math.Max(mx, x)
				}
				for j, x := range ref[i] {
					ref[i][j] = math.Exp(x - mx)
					tot += ref[i][j]
				}
				for j := range ref[i] {
					w := ref[i][j] / tot
					p[((b*H+h)*T+i)*T+j] = w
					for x := range dh {
						at(y, b, i, h)[x] += w * at(v, b, j, h)[x]
					}
				}
			}
		}
	}
	return y, p
}

// TestForgetAttentionReference: the op against foxReference on a small case (float64 to 1e-12,
// float32 to 1e-5), evaluation graphs (rows in blocks: T = 30 spans two blocks) and captured
// weights (the whole [T, T] kept), which must be the reference's.
func TestForgetAttentionReference(t *testing.T) {
	const B, T, H, dh = 2, 30, 2, 4
	rng := rand.New(rand.NewPCG(8, 12))
	q, k, v := randn(rng, B*T*H*dh, 1.2), randn(rng, B*T*H*dh, 1.2), randn(rng, B*T*H*dh, 1)
	g := randn(rng, B*T*H, 2)
	for i := range g {
		g[i] += 2 // gates mostly near 1, as a trained model's
	}
	wantY, wantP := foxReference(q, k, v, g, B, T, H, dh, 0.5)
	shapes := [][2]int{{B * T, H * dh}, {B * T, H * dh}, {B * T, H * dh}, {B * T, H}}
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		tol := 1e-12
		if dt == tensor.Float32 {
			tol = 1e-5
		}
		for _, capture := range []*AttentionCapture{nil, {}} {
			y, p := runAttnOp(t, dt, [][]float64{q, k, v, g}, shapes, capture, func(in []*G.Node) (*G.Node, error) {
				return ForgetAttention(in[0], in[1], in[2], in[3], ForgetConfig{Batch: B, Len: T, Heads: H, Capture: capture})
			})
			worst := maxDiff(y, wantY)
			if capture != nil {
				worst = max(worst, maxDiff(p, wantP))
			}
			t.Logf("%v capture=%v: max |difference| from the reference %.3g", dt, capture != nil, worst)
			if !(worst <= tol) {
				t.Errorf("%v capture=%v: max |difference| from the reference %.3g > %g", dt, capture != nil, worst, tol)
			}
		}
	}
}

// maxDiff is max |a_i − b_i| (+Inf for different lengths or a NaN).
func maxDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	worst := 0.0
	for i := range a {
		d := math.Abs(a[i] - b[i])
		if d != d {
			return math.Inf(1)
		}
		worst = max(worst, d)
	}
	return worst
}

// TestForgetAttentionFloat32Long: at 8× a training length of 64 tokens (T = 512), with gates
// that forget fast (log f ≈ −2.1 a token: the cumulative sums reach −1000) and gates that hardly
// forget, the float32 op agrees with the float64 op to 1e-5 and has no NaN: the cumulative sum is
// taken in float64, so c_i − c_j is exact wherever its weight is not negligible.
func TestForgetAttentionFloat32Long(t *testing.T) {
	const B, T, H, dh = 1, 512, 2, 4
	rng := rand.New(rand.NewPCG(9, 12))
	q, k, v := randn(rng, B*T*H*dh, 1), randn(rng, B*T*H*dh, 1), randn(rng, B*T*H*dh, 1)
	g := make([]float64, B*T*H)
	for i := range g {
		g[i] = 6 + rng.NormFloat64() // head 1: f ≈ 0.998
		if i%H == 0 {
			g[i] = -2 + 0.3*rng.NormFloat64() // head 0: f ≈ 0.12
		}
	}
	shapes := [][2]int{{B * T, H * dh}, {B * T, H * dh}, {B * T, H * dh}, {B * T, H}}
	var ys [2][]float64
	for n, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		ys[n], _ = runAttnOp(t, dt, [][]float64{q, k, v, g}, shapes, nil, func(in []*G.Node) (*G.Node, error) {
			return ForgetAttention(in[0], in[1], in[2], in[3], ForgetConfig{Batch: B, Len: T, Heads: H})
		})
	}
	d := maxDiff(ys[0], ys[1])
	t.Logf("T=%d: max |float32 − float64| %.3g", T, d)
	if !(d <= 1e-5) {
		t.Fatalf("T=%d: float32 output differs from float64 by %.3g (NaN: +Inf)", T, d)
	}
}
