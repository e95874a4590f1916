package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestGradCoPEAttention: the gradient of every input (q, k, v and the embeddings e) against
// central finite differences in float64, with positions below the clamp (npos 8) and clamped
// (npos 2), scaled and unscaled, in both forms (the paper's listing and the reference code's
// scaled position term), and over several row blocks (blocks of 4 rows, T = 11).
func TestGradCoPEAttention(t *testing.T) {
	const B, H, dh = 2, 2, 3
	defer func(r int) { attnBlockRows = r }(attnBlockRows)
	rng := rand.New(rand.NewPCG(5, 11))
	for _, c := range []struct {
		T, npos, rows      int
		unscaled, scalePos bool
	}{{5, 8, 0, false, false}, {5, 2, 0, false, false}, {5, 3, 0, true, false}, {5, 8, 0, false, true}, {11, 6, 4, false, true}, {11, 3, 4, false, false}} {
		attnBlockRows = c.rows
		T := c.T
		checkOp(t, fmt.Sprintf("CoPEAttention%+v", c), []input{
			{[]int{B * T, H * dh}, randn(rng, B*T*H*dh, 1), true},
			{[]int{B * T, H * dh}, randn(rng, B*T*H*dh, 1), true},
			{[]int{B * T, H * dh}, randn(rng, B*T*H*dh, 1), true},
			{[]int{c.npos, dh}, randn(rng, c.npos*dh, 1), true},
		}, func(in []*G.Node) (*G.Node, error) {
			return CoPEAttention(in[0], in[1], in[2], in[3], CoPEConfig{Batch: B, Len: T, Heads: H, NPos: c.npos, Unscaled: c.unscaled, ScalePos: c.scalePos})
		})
	}
}

// copeReference is the reference's formulas written out with whole rows (gates, the reversed
// cumulative sum, the clamp, floor and ceil gathers), in float64: the output [B·T, H·dh] and the
// weights [B, H, T, T].
func copeReference(q, k, v, e []float64, B, T, H, dh, npos int, scalePos bool) (y, P []float64) {
	y, P = make([]float64, B*T*H*dh), make([]float64, B*H*T*T)
	at := func(x []float64, b, i, h int) []float64 { return x[((b*T+i)*H+h)*dh:][:dh] }
	dotv := func(a, b []float64) float64 {
		s := 0.0
		for i := range a {
			s += a[i] * b[i]
		}
		return s
	}
	s := 1 / math.Sqrt(float64(dh))
	c := 1.0
	if scalePos {
		c = s
	}
	for b := range B {
		for h := range H {
			for i := range T {
				gates, logits := make([]float64, i+1), make([]float64, i+1)
				for j := 0; j <= i; j++ {
					logits[j] = dotv(at(q, b, i, h), at(k, b, j, h)) * s
					gates[j] = 1 / (1 + math.Exp(-logits[j]))
				}
				a := make([]float64, i+1)
				for j := 0; j <= i; j++ {
					p := 0.0
					for t := j; t <= i; t++ {
						p += gates[t]
					}
					p = math.Min(p, float64(npos-1))
					lo, hi := math.Floor(p), math.Ceil(p)
					w := p - lo
					a[j] = logits[j] + c*dotv(at(q, b, i, h), e[int(hi)*dh:][:dh])*w + c*dotv(at(q, b, i, h), e[int(lo)*dh:][:dh])*(1-w)
				}
				mx, tot := math.Inf(-1), 0.0
				for _, x := range a {
					mx = math.Max(mx, x)
				}
				for j := range a {
					a[j] = math.Exp(a[j] - mx)
					tot += a[j]
				}
				yi := at(y, b, i, h)
				for j := range a {
					P[((b*H+h)*T+i)*T+j] = a[j] / tot
					for x := range yi {
						yi[x] += a[j] / tot * at(v, b, j, h)[x]
					}
				}
			}
		}
	}
	return y, P
}

// copeRun runs CoPEAttention once in a graph of dtype dt on q, k, v, e and returns its output,
// the captured weights (capture) and the op; grad builds the gradient (a training graph, which
// keeps the weights) of Σ out∘R and returns dq | dk | dv | de as well.
func copeRun(t *testing.T, dt tensor.Dtype, q, k, v, e []float64, cfg CoPEConfig, capture, grad bool) (y, P, dall []float64) {
	t.Helper()
	D := len(q) / (cfg.Batch * cfg.Len)
	dh := D / cfg.Heads
	g := G.NewGraph()
	node := func(name string, x []float64, shape ...int) *G.Node {
		var tv *tensor.Dense
		if dt == tensor.Float64 {
			tv = tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float64(nil), x...)))
		} else {
			f := make([]float32, len(x))
			for i, v := range x {
				f[i] = float32(v)
			}
			tv = tensor.New(tensor.WithShape(shape...), tensor.WithBacking(f))
		}
		return G.NewTensor(g, dt, len(shape), G.WithShape(shape...), G.WithValue(tv), G.WithName(name))
	}
	var c *AttentionCapture
	if capture {
		c = &AttentionCapture{}
		cfg.Capture = c
	}
	n := cfg.Batch * cfg.Len
	in := []*G.Node{node("q", q, n, D), node("k", k, n, D), node("v", v, n, D), node("e", e, cfg.NPos, dh)}
	out, err := CoPEAttention(in[0], in[1], in[2], in[3], cfg)
	if err != nil {
		t.Fatal(err)
	}
	var grads G.Nodes
	if grad {
		r := node("R", randn(rand.New(rand.NewPCG(3, 4)), n*D, 1), n, D)
		loss := G.Must(G.Sum(G.Must(G.HadamardProd(out, r))))
		if grads, err = G.Grad(loss, in...); err != nil {
			t.Fatal(err)
		}
	}
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	for range 2 { // twice: the second run reuses every buffer
		vm.Reset()
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
	}
	y = append([]float64(nil), float64s(out.Value())...)
	if capture {
		if P, err = c.Weights(); err != nil {
			t.Fatal(err)
		}
	}
	for _, gr := range grads {
		dall = append(dall, float64s(gr.Value())...)
	}
	return y, P, dall
}

// TestCoPEAttentionValues: the op against the reference's formulas (copeReference), in float64
// and float32, both forms, on one row block (T 7) and on several (T 37 in blocks of 8, the
// vector kernels' gates from 8 keys on), and the captured weights, masked keys exactly 0.
func TestCoPEAttentionValues(t *testing.T) {
	defer func(r int) { attnBlockRows = r }(attnBlockRows)
	const B, H, dh, npos = 2, 2, 4, 4
	for _, c := range []struct {
		T, rows  int
		scalePos bool
	}{{7, 0, false}, {7, 0, true}, {37, 8, false}, {37, 8, true}} {
		attnBlockRows = c.rows
		rng := rand.New(rand.NewPCG(6, uint64(c.T)))
		T := c.T
		q, k, v, e := randn(rng, B*T*H*dh, 1.5), randn(rng, B*T*H*dh, 1.5), randn(rng, B*T*H*dh, 1), randn(rng, npos*dh, 1)
		want, wantP := copeReference(q, k, v, e, B, T, H, dh, npos, c.scalePos)
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			what := fmt.Sprintf("%v T=%d scalePos=%v", dt, T, c.scalePos)
			got, p, _ := copeRun(t, dt, q, k, v, e, CoPEConfig{Batch: B, Len: T, Heads: H, NPos: npos, ScalePos: c.scalePos}, true, false)
			tol := 1e-13
			if dt == tensor.Float32 {
				tol = 2e-5
			}
			for i := range want {
				if math.Abs(got[i]-want[i]) > tol*max(1, math.Abs(want[i])) {
					t.Fatalf("%s: y[%d] = %v, the reference's %v", what, i, got[i], want[i])
				}
			}
			for i := range p {
				if math.Abs(p[i]-wantP[i]) > tol || wantP[i] == 0 && p[i] != 0 {
					t.Fatalf("%s: captured weight %d = %v, want %v", what, i, p[i], wantP[i])
				}
			}
		}
	}
}

// TestCoPEAttentionSameBits: the output of an evaluation graph (one block of rows per worker), a
// training graph (the weights kept) and a capture are the same bits, and with them the
// gradients, whatever the number of workers (1, 2, 3 and two jobs sharing two), in float32 and
// float64, over several row blocks (T 100: blocks of 24).
func TestCoPEAttentionSameBits(t *testing.T) {
	const B, T, H, dh, npos = 3, 100, 2, 8, 16
	rng := rand.New(rand.NewPCG(8, 9))
	q, k, v, e := randn(rng, B*T*H*dh, 1.5), randn(rng, B*T*H*dh, 1.5), randn(rng, B*T*H*dh, 1), randn(rng, npos*dh, 0.5)
	cfg := CoPEConfig{Batch: B, Len: T, Heads: H, NPos: npos}
	for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
		var want, wantD []float64
		for _, procs := range []int{1, 2, 3, -2} {
			prev := runtime.GOMAXPROCS(max(procs, -procs))
			if procs < 0 { // two jobs sharing the workers
				JobStarted()
				JobStarted()
			}
			eval, _, _ := copeRun(t, dt, q, k, v, e, cfg, false, false)
			capt, _, _ := copeRun(t, dt, q, k, v, e, cfg, true, false)
			trained, _, d := copeRun(t, dt, q, k, v, e, cfg, false, true)
			if procs < 0 {
				JobFinished()
				JobFinished()
			}
			runtime.GOMAXPROCS(prev)
			what := fmt.Sprintf("%v procs=%d", dt, procs)
			if want == nil {
				want, wantD = eval, d
			}
			sameAny(t, what+": evaluation", eval, want)
			sameAny(t, what+": capture", capt, want)
			sameAny(t, what+": training", trained, want)
			sameAny(t, what+": gradients", d, wantD)
		}
	}
}

// TestCoPEAttentionZeroEmbeddings: with e = 0 the position term vanishes whatever the gates,
// so CoPE is causal attention: the op matches Attention (Causal) on 20 random inputs, in
// float64 to 1e-12 and float32 to 1e-5, in both forms.
func TestCoPEAttentionZeroEmbeddings(t *testing.T) {
	const B, H, dh, npos = 2, 2, 8, 5
	for trial := range 20 {
		rng := rand.New(rand.NewPCG(10, uint64(trial)))
		T := 1 + rng.IntN(60)
		q, k, v, e := randn(rng, B*T*H*dh, 2), randn(rng, B*T*H*dh, 2), randn(rng, B*T*H*dh, 1), make([]float64, npos*dh)
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			got, _, _ := copeRun(t, dt, q, k, v, e, CoPEConfig{Batch: B, Len: T, Heads: H, NPos: npos, ScalePos: trial%2 == 1}, false, false)
			g := G.NewGraph()
			mk := func(name string, x []float64) *G.Node {
				tv := tensor.New(tensor.WithShape(B*T, H*dh), tensor.WithBacking(append([]float64(nil), x...)))
				if dt == tensor.Float32 {
					f := make([]float32, len(x))
					for i, v := range x {
						f[i] = float32(v)
					}
					tv = tensor.New(tensor.WithShape(B*T, H*dh), tensor.WithBacking(f))
				}
				return G.NewTensor(g, dt, 2, G.WithShape(B*T, H*dh), G.WithValue(tv), G.WithName(name))
			}
			out, err := Attention(mk("q", q), mk("k", k), mk("v", v), nil, AttentionConfig{Batch: B, Len: T, Heads: H, Causal: true})
			if err != nil {
				t.Fatal(err)
			}
			vm := G.NewTapeMachine(g)
			if err := vm.RunAll(); err != nil {
				t.Fatal(err)
			}
			want := float64s(out.Value())
			vm.Close()
			tol := 1e-12
			if dt == tensor.Float32 {
				tol = 1e-5
			}
			for i := range want {
				if math.Abs(got[i]-want[i]) > tol*max(1, math.Abs(want[i])) {
					t.Fatalf("trial %d %v T=%d: y[%d] = %v, causal attention's %v", trial, dt, T, i, got[i], want[i])
				}
			}
		}
	}
}

// TestCoPEAttentionCausal: a query's output does not depend on the keys and values after it, to
// the last bit: changing the last tokens' k and v leaves every earlier row of the output
// unchanged (float32, several row blocks, 10 random cuts).
func TestCoPEAttentionCausal(t *testing.T) {
	const B, T, H, dh, npos = 2, 70, 2, 8, 12
	rng := rand.New(rand.NewPCG(12, 13))
	q, k, v, e := randn(rng, B*T*H*dh, 1.5), randn(rng, B*T*H*dh, 1.5), randn(rng, B*T*H*dh, 1), randn(rng, npos*dh, 1)
	cfg := CoPEConfig{Batch: B, Len: T, Heads: H, NPos: npos}
	want, _, _ := copeRun(t, tensor.Float32, q, k, v, e, cfg, false, false)
	D := H * dh
	for range 10 {
		cut := 1 + rng.IntN(T-1) // tokens cut.. change
		k2, v2 := append([]float64(nil), k...), append([]float64(nil), v...)
		for b := range B {
			for i := b*T*D + cut*D; i < (b+1)*T*D; i++ {
				k2[i], v2[i] = rng.NormFloat64(), rng.NormFloat64()
			}
		}
		got, _, _ := copeRun(t, tensor.Float32, q, k2, v2, e, cfg, false, false)
		for b := range B {
			for i := b * T * D; i < b*T*D+cut*D; i++ {
				if got[i] != want[i] {
					t.Fatalf("cut %d: row %d changed (%v, was %v)", cut, i/D, got[i], want[i])
				}
			}
		}
	}
}

// TestCoPEAttentionFloat32Gradients: the float32 backward pass (the vector kernels' suffix and
// prefix sums, the registers' sums of dl) against the float64 one, which the finite differences
// check: every gradient within 1e-4 of the largest, over several row blocks, both forms, with
// positions below the clamp (npos 40) and clamped (npos 3).
func TestCoPEAttentionFloat32Gradients(t *testing.T) {
	defer func(r int) { attnBlockRows = r }(attnBlockRows)
	attnBlockRows = 8
	const B, T, H, dh = 2, 37, 2, 8
	for _, npos := range []int{40, 3} {
		for _, scalePos := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(14, uint64(npos)))
			q, k, v, e := randn(rng, B*T*H*dh, 1), randn(rng, B*T*H*dh, 1), randn(rng, B*T*H*dh, 1), randn(rng, npos*dh, 1)
			cfg := CoPEConfig{Batch: B, Len: T, Heads: H, NPos: npos, ScalePos: scalePos}
			_, _, want := copeRun(t, tensor.Float64, q, k, v, e, cfg, false, true)
			_, _, got := copeRun(t, tensor.Float32, q, k, v, e, cfg, false, true)
			big := 0.0
			for _, x := range want {
				big = max(big, math.Abs(x))
			}
			for i := range want {
				if math.Abs(got[i]-want[i]) > 1e-4*big {
					t.Fatalf("npos %d scalePos %v: gradient %d = %v in float32, %v in float64 (largest %v)", npos, scalePos, i, got[i], want[i], big)
				}
			}
		}
	}
}
