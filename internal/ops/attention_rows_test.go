package ops

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestAttentionRowBiasSameBits: attention with a bias by rows (RowBias: the PairFunc evaluated
// block of rows by block of rows inside the op) gives the bits of attention given PairBias's
// [H, T, T] tensor of the same function, in float32 and float64, causal and not, with and
// without a relative term, on 1, 2 and 3 workers, in evaluation (one block of rows and one
// block of biases per worker: the test checks their sizes) and with the weights captured (the
// captured weights too), at a length that is not a multiple of the block.
func TestAttentionRowBiasSameBits(t *testing.T) {
	const B, T, H, D = 2, 61, 3, 12
	defer func(r int) { attnBlockRows = r }(attnBlockRows)
	attnBlockRows = 8
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		for _, causal := range []bool{true, false} {
			for _, rel := range []bool{false, true} {
				for _, procs := range []int{1, 2, 3} {
					for _, capture := range []bool{false, true} {
						what := fmt.Sprintf("%v causal=%v rel=%v procs=%d capture=%v", dt, causal, rel, procs, capture)
						prev := runtime.GOMAXPROCS(procs)
						want, wantP, _ := runRowBias(t, dt, B, T, H, D, causal, rel, capture, false)
						got, gotP, op := runRowBias(t, dt, B, T, H, D, causal, rel, capture, true)
						runtime.GOMAXPROCS(prev)
						sameAny(t, what+": output", got, want)
						if capture {
							sameAny(t, what+": captured weights", gotP, wantP)
							continue
						}
						blk := AttentionEvalRows(T, causal)
						w := min(procs, (T+blk-1)/blk)
						if n := max(len(op.p32.s), len(op.p64.s)); n > w*blk*T {
							t.Errorf("%s: %d weights held, want at most workers·rows·T = %d", what, n, w*blk*T)
						}
						if n := max(len(op.r32.s), len(op.r64.s)); n == 0 || n > w*H*blk*T {
							t.Errorf("%s: %d biases held, want at most workers·H·rows·T = %d (and some)", what, n, w*H*blk*T)
						}
					}
				}
			}
		}
	}
}

// runRowBias runs attention on fixed random inputs with quadPair's bias, as a RowBias (rows) or
// as PairBias's tensor, and returns its output, the captured weights (capture) and the op.
func runRowBias(t *testing.T, dt tensor.Dtype, B, T, H, D int, causal, rel, capture, rows bool) ([]float64, []float64, *attentionOp) {
	t.Helper()
	rng := rand.New(rand.NewPCG(61, 62))
	g := G.NewGraph()
	node := func(name string, x []float64, shape ...int) *G.Node {
		var v *tensor.Dense
		if dt == tensor.Float32 {
			v = tensor.New(tensor.WithShape(shape...), tensor.WithBacking(to32(x)))
		} else {
			v = tensor.New(tensor.WithShape(shape...), tensor.WithBacking(x))
		}
		return G.NewTensor(g, dt, len(shape), G.WithShape(shape...), G.WithValue(v), G.WithName(name))
	}
	q, k, v := node("q", randn(rng, B*T*D, 1), B*T, D), node("k", randn(rng, B*T*D, 1), B*T, D), node("v", randn(rng, B*T*D, 1), B*T, D)
	theta := node("theta", randn(rng, 2*H+1, 0.3), 2*H+1)
	cfg := AttentionConfig{Batch: B, Len: T, Heads: H, Causal: causal}
	if rel {
		cfg.Rel = RelativeKeys{Query: node("qr", randn(rng, B*T*D, 1), B*T, D), Keys: node("rk", randn(rng, (2*T-1)*D, 1), 2*T-1, D)}
	}
	if capture {
		cfg.Capture = &AttentionCapture{}
	}
	var bias *G.Node
	f := quadPair{H}
	if rows {
		cfg.Rows = RowBias{Theta: theta, F: f}
	} else {
		var err error
		if bias, err = PairBias(theta, f, T, causal); err != nil {
			t.Fatal(err)
		}
	}
	y, err := Attention(q, k, v, bias, cfg)
	if err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	var p []float64
	if capture {
		if p, err = cfg.Capture.Weights(); err != nil {
			t.Fatal(err)
		}
	}
	return float64s(y.Value()), p, y.Op().(*attentionOp)
}

func sameAny(t *testing.T, what string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	sameBits(t, what, got, want)
}

// TestAttentionRowBiasRefused: a bias by rows is refused beside another bias, with a θ that is
// not 1-D or a function of another number of heads, and in a graph whose gradient is taken
// (training graphs take PairBias's tensor).
func TestAttentionRowBiasRefused(t *testing.T) {
	const B, T, H, D = 1, 5, 2, 4
	g := G.NewGraph()
	mk := func(name string, shape ...int) *G.Node {
		return G.NewTensor(g, tensor.Float64, len(shape), G.WithShape(shape...), G.WithInit(G.Gaussian(0, 1)), G.WithName(name))
	}
	q, k, v := mk("q", B*T, D), mk("k", B*T, D), mk("v", B*T, D)
	theta, theta2 := mk("theta", 2*H+1), mk("theta2", 2*H+1, 1)
	cfg := func(r RowBias) AttentionConfig {
		return AttentionConfig{Batch: B, Len: T, Heads: H, Causal: true, Rows: r}
	}
	other := mk("bias", H, T, T)
	for _, c := range []struct {
		what string
		bias *G.Node
		rows RowBias
	}{
		{"beside another bias", other, RowBias{theta, quadPair{H}}},
		{"with a 2-D θ", nil, RowBias{theta2, quadPair{H}}},
		{"with another number of heads", nil, RowBias{theta, quadPair{H + 1}}},
		{"without a function", nil, RowBias{Theta: theta}},
	} {
		if _, err := Attention(q, k, v, c.bias, cfg(c.rows)); err == nil || !strings.Contains(err.Error(), "bias by rows") {
			t.Errorf("%s: %v, want an error about the bias by rows", c.what, err)
		}
	}
	y, err := Attention(q, k, v, nil, cfg(RowBias{theta, quadPair{H}}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := G.Grad(G.Must(G.Sum(y)), q, theta); err == nil || !strings.Contains(err.Error(), "no gradient") {
		t.Errorf("gradient through a bias by rows: %v, want it refused", err)
	}
}
