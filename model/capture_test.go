package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/position"
)

// perturb moves every weight off its symmetric initial value, so the attention is not uniform.
func perturb(m *Model, seed uint64, scale float64) {
	rng := rand.New(rand.NewPCG(seed, seed))
	for _, p := range m.Params() {
		switch d := p.Value.Data().(type) {
		case []float64:
			for i := range d {
				d[i] += scale * rng.NormFloat64()
			}
		case []float32:
			for i := range d {
				d[i] += float32(scale * rng.NormFloat64())
			}
		}
	}
}

// captureRun builds a graph (with Capture as asked) for a variant, runs it on random tokens and
// returns the graph and the input.
func captureRun(t *testing.T, m *Model, b, l int, capture bool, seed uint64) (*Graph, Input) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	opt := BuildOptions{Capture: capture}
	var pos []int
	if s, ok := m.Scheme.(position.Sampler); ok {
		if r, on := s.Randomization(); on {
			opt.MaxPos = r.MaxRandom
			pos = r.Batch(rng, b, l)
		}
	}
	g, err := m.Build(b, l, opt)
	if err != nil {
		t.Fatal(err)
	}
	in := randomInput(rng, b, l, m.Cfg.Vocab)
	if tp, ok := m.Scheme.(position.TokenPositioner); ok { // the positions Run derives, for the reference
		if pos, err = tp.TokenPositions(in.Tokens, b, l, nil); err != nil {
			t.Fatal(err)
		}
	}
	in.Positions = pos
	if _, err := g.Run(in); err != nil {
		t.Fatal(err)
	}
	return g, in
}

// TestCapturedAttentionIsTheModels: for every scheme, in float64, the captured weights are a
// distribution per query (rows sum to 1), exactly 0 on the keys after the query under the causal
// mask (and positive everywhere bidirectionally), and they are the weights the model used: a
// float64 reference forward pass that takes them in place of q·kᵀ and softmax (so it needs the
// values, the projections, layer norm, the MLP and the head, but no position hook except the
// additive tables) reproduces the graph's logits.
func TestCapturedAttentionIsTheModels(t *testing.T) {
	for _, v := range schemes {
		t.Run(v.name, func(t *testing.T) {
			m := tinyVariant(t, v, "float64")
			perturb(m, 11, 0.3)
			const B, T = 2, 7
			g, in := captureRun(t, m, B, T, true, 3)
			defer g.Close()
			H := m.Cfg.Heads
			weights := make([][]float64, g.Layers())
			for layer := range weights {
				p, err := g.Attention(layer)
				if err != nil {
					t.Fatal(err)
				}
				if len(p) != B*H*T*T {
					t.Fatalf("layer %d: %d weights, want B·H·T² = %d", layer, len(p), B*H*T*T)
				}
				for r := 0; r < B*H*T; r++ {
					i := r % T
					row := p[r*T : (r+1)*T]
					sum := 0.0
					for j, x := range row {
						sum += x
						switch {
						case j > i && !v.bidirectional && x != 0:
							t.Fatalf("layer %d row %d: key %d after query %d has weight %g, want exactly 0", layer, r, j, i, x)
						case (j <= i || v.bidirectional) && !(x > 0):
							t.Fatalf("layer %d row %d: key %d has weight %g, want > 0", layer, r, j, x)
						}
					}
					if math.Abs(sum-1) > 1e-12 {
						t.Fatalf("layer %d row %d sums to %.17g", layer, r, sum)
					}
				}
				weights[layer] = p
			}
			want := nn.Float64s(g.Logits())
			got := referenceLogits(t, m, in, B, T, weights)
			worst := 0.0
			for i := range want {
				worst = math.Max(worst, math.Abs(got[i]-want[i])/(1+math.Abs(want[i])))
			}
			t.Logf("reference logits from the captured weights: max relative difference %.3g", worst)
			if worst > 1e-12 {
				t.Fatalf("logits recomputed from the captured weights differ from the model's by %.3g", worst)
			}
		})
	}
}

// TestCaptureKeepsTheBits: an inspection graph computes the same logits, bit for bit, as an
// evaluation graph, in float32 and float64, so capture changes nothing the model computes.
func TestCaptureKeepsTheBits(t *testing.T) {
	for _, dtype := range []string{"float32", "float64"} {
		for _, v := range schemes {
			m := tinyVariant(t, v, dtype)
			perturb(m, 5, 0.3)
			plain, _ := captureRun(t, m, 3, 15, false, 9)
			inspect, _ := captureRun(t, m, 3, 15, true, 9)
			a, b := nn.Float64s(plain.Logits()), nn.Float64s(inspect.Logits())
			for i := range a {
				if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
					t.Fatalf("%s %s: logit %d is %v with capture, %v without", dtype, v.name, i, b[i], a[i])
				}
			}
			if _, err := plain.Attention(0); err == nil {
				t.Errorf("%s %s: a graph built without Capture returned attention weights", dtype, v.name)
			}
			if dtype == "float32" {
				p, err := inspect.Attention(1)
				if err != nil {
					t.Fatal(err)
				}
				for r := 0; r < len(p)/15; r++ {
					s := 0.0
					for _, x := range p[r*15 : (r+1)*15] {
						s += x
					}
					if math.Abs(s-1) > 1e-5 {
						t.Fatalf("float32 %s: row %d sums to %g", v.name, r, s)
					}
				}
			}
			plain.Close()
			inspect.Close()
		}
	}
}

// referenceLogits is the model's forward pass in plain float64 with attention weights given:
// x = tok_emb[token] (+ the scheme's table at the token's position); per block
// x += (P·(LN₁(x)·Wv + bv))·Wo + bo, x += GELU(LN₂(x)·W₁ + b₁)·W₂ + b₂; logits = LN(x)·W + b.
func referenceLogits(t *testing.T, m *Model, in Input, B, T int, weights [][]float64) []float64 {
	t.Helper()
	D, H := m.Cfg.DModel, m.Cfg.Heads
	dh := D / H
	N := B * T
	f := func(p nn.Param) []float64 { return nn.Float64s(p.Value) }
	x := make([]float64, N*D)
	emb := f(m.tokEmb)
	pos := in.Positions
	if pos == nil {
		pos = make([]int, N)
		for i := range pos {
			pos[i] = i % T
		}
	}
	var table [][]float64
	if _, ok := m.Scheme.(position.EmbeddingAdder); ok {
		tb, ok := m.Scheme.(position.Tabler)
		if !ok {
			t.Fatalf("%s adds to the embeddings but has no table", m.Scheme.Name())
		}
		maxPos := 0
		for _, p := range pos {
			maxPos = max(maxPos, p+1)
		}
		tab, err := tb.Table(maxPos)
		if err != nil {
			t.Fatal(err)
		}
		table = tab.Rows
	}
	for r := 0; r < N; r++ {
		copy(x[r*D:(r+1)*D], emb[in.Tokens[r]*D:(in.Tokens[r]+1)*D])
		if table != nil {
			for j := 0; j < D; j++ {
				x[r*D+j] += table[pos[r]][j]
			}
		}
	}
	for li, bl := range m.blocks {
		ap := bl.attn.Params() // wq bq wk bk wv bv wo bo
		h := layerNorm(x, f(bl.ln1G), f(bl.ln1B), D)
		vals := linear(h, f(ap[4]), f(ap[5]), D, D)
		y := make([]float64, N*D)
		P := weights[li]
		for b := 0; b < B; b++ {
			for hd := 0; hd < H; hd++ {
				for i := 0; i < T; i++ {
					row := P[((b*H+hd)*T+i)*T:][:T]
					for j, w := range row {
						for c := 0; c < dh; c++ {
							y[(b*T+i)*D+hd*dh+c] += w * vals[(b*T+j)*D+hd*dh+c]
						}
					}
				}
			}
		}
		a := linear(y, f(ap[6]), f(ap[7]), D, D)
		for i := range x {
			x[i] += a[i]
		}
		h = layerNorm(x, f(bl.ln2G), f(bl.ln2B), D)
		F := m.Cfg.DFF
		u := linear(h, f(bl.w1), f(bl.b1), D, F)
		for i, z := range u {
			u[i] = 0.5 * z * (1 + math.Erf(z/math.Sqrt2))
		}
		o := linear(u, f(bl.w2), f(bl.b2), F, D)
		for i := range x {
			x[i] += o[i]
		}
	}
	h := layerNorm(x, f(m.lnfG), f(m.lnfB), D)
	return linear(h, f(m.headW), f(m.headB), D, m.Cfg.Vocab)
}

func linear(x, w, b []float64, in, out int) []float64 {
	n := len(x) / in
	y := make([]float64, n*out)
	for r := 0; r < n; r++ {
		for o := 0; o < out; o++ {
			s := b[o]
			for k := 0; k < in; k++ {
				s += x[r*in+k] * w[k*out+o]
			}
			y[r*out+o] = s
		}
	}
	return y
}

func layerNorm(x, g, b []float64, d int) []float64 {
	y := make([]float64, len(x))
	for r := 0; r < len(x)/d; r++ {
		row := x[r*d : (r+1)*d]
		mean, v := 0.0, 0.0
		for _, z := range row {
			mean += z
		}
		mean /= float64(d)
		for _, z := range row {
			v += (z - mean) * (z - mean)
		}
		inv := 1 / math.Sqrt(v/float64(d)+ops.LayerNormEps)
		for j, z := range row {
			y[r*d+j] = (z-mean)*inv*g[j] + b[j]
		}
	}
	return y
}
