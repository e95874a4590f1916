package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestAttentionEvalBlocksSameBits: an evaluation's attention (one block of AttentionEvalRows
// rows per worker, reused) gives the same bits as a training graph's (every head's weights
// kept), causal and not, with and without a logit bias, at a length that is not a multiple of
// the block, in float32 and float64.
func TestAttentionEvalBlocksSameBits(t *testing.T) {
	const B, T, H, D = 3, 101, 2, 16
	for _, causal := range []bool{true, false} {
		for _, withBias := range []bool{false, true} {
			for _, form := range []int{biasPairs, biasDistSeq} { // with the relative term when by distance
				if !withBias && form != biasPairs {
					continue
				}
				rel := withBias && form == biasDistSeq
				rng := rand.New(rand.NewPCG(5, 6))
				mk := func(n int) []float64 {
					x := make([]float64, n)
					for i := range x {
						x[i] = rng.NormFloat64()
					}
					return x
				}
				q, k, v, bias := mk(B*T*D), mk(B*T*D), mk(B*T*D), mk(H*T*T)
				biasShape := []int{H, T, T}
				if form == biasDistSeq {
					bias, biasShape = mk(B*H*(2*T-1)), []int{B * H, 2*T - 1}
				}
				qr, rk := mk(B*T*D), mk(B*(2*T-1)*D)
				cfg := AttentionConfig{Batch: B, Len: T, Heads: H, Causal: causal}
				if rows := AttentionEvalRows(T, causal); rows >= T {
					t.Fatalf("causal=%v: %d rows per block at T=%d: the test needs several blocks", causal, rows, T)
				}
				run32 := func(keep bool) []float32 {
					vs := []G.Value{dense32(q, B*T, D), dense32(k, B*T, D), dense32(v, B*T, D)}
					if withBias {
						vs = append(vs, tensor.New(tensor.WithShape(biasShape...), tensor.WithBacking(to32(bias))))
					}
					if rel {
						vs = append(vs, dense32(qr, B*T, D), dense32(rk, B*(2*T-1), D))
					}
					op := &attentionOp{base: newBase("Attention", len(vs)), cfg: cfg, keepP: keep, rel: rel, relSeq: rel}
					if withBias {
						op.bias = form
					}
					y := make([]float32, B*T*D)
					attnFwd(op, &op.p32, &op.m32, &op.r32, &op.kt32, vs, y)
					if !keep && len(op.p32.s) > workers()*AttentionEvalRows(T, causal)*T {
						t.Errorf("causal=%v: evaluation holds %d weights, want at most workers·rows·T = %d", causal, len(op.p32.s), workers()*AttentionEvalRows(T, causal)*T)
					}
					return y
				}
				run64 := func(keep bool) []float64 {
					vs := []G.Value{dense64(q, B*T, D), dense64(k, B*T, D), dense64(v, B*T, D)}
					if withBias {
						vs = append(vs, tensor.New(tensor.WithShape(biasShape...), tensor.WithBacking(append([]float64(nil), bias...))))
					}
					if rel {
						vs = append(vs, dense64(qr, B*T, D), dense64(rk, B*(2*T-1), D))
					}
					op := &attentionOp{base: newBase("Attention", len(vs)), cfg: cfg, keepP: keep, rel: rel, relSeq: rel}
					if withBias {
						op.bias = form
					}
					y := make([]float64, B*T*D)
					attnFwd(op, &op.p64, &op.m64, &op.r64, &op.kt64, vs, y)
					return y
				}
				e32, k32 := run32(false), run32(true)
				for i := range e32 {
					if math.Float32bits(e32[i]) != math.Float32bits(k32[i]) {
						t.Fatalf("float32 causal=%v bias=%v: output %d is %v in evaluation, %v with the weights kept", causal, withBias, i, e32[i], k32[i])
					}
				}
				e64, k64 := run64(false), run64(true)
				for i := range e64 {
					if math.Float64bits(e64[i]) != math.Float64bits(k64[i]) {
						t.Fatalf("float64 causal=%v bias=%v: output %d is %v in evaluation, %v with the weights kept", causal, withBias, i, e64[i], k64[i])
					}
				}
			}
		}
	}
}

func to32(x []float64) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(v)
	}
	return y
}

func dense32(x []float64, r, c int) *tensor.Dense {
	return tensor.New(tensor.WithShape(r, c), tensor.WithBacking(to32(x)))
}

func dense64(x []float64, r, c int) *tensor.Dense {
	return tensor.New(tensor.WithShape(r, c), tensor.WithBacking(append([]float64(nil), x...)))
}

// TestAttentionFloat32MatchesFloat64: the float32 attention (vector softmax, packed Kᵀ and Vᵀ,
// row blocks) agrees with the float64 one, forward and backward, causal and not, to float32
// precision.
func TestAttentionFloat32MatchesFloat64(t *testing.T) {
	const B, T, H, D = 2, 70, 2, 64
	for _, causal := range []bool{true, false} {
		rng := rand.New(rand.NewPCG(11, 12))
		mk := func(n int) []float64 {
			x := make([]float64, n)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			return x
		}
		q, k, v, dy := mk(B*T*D), mk(B*T*D), mk(B*T*D), mk(B*T*D)
		cfg := AttentionConfig{Batch: B, Len: T, Heads: H, Causal: causal}
		op32 := &attentionOp{base: newBase("Attention", 3), cfg: cfg, keepP: true}
		y32 := make([]float32, B*T*D)
		attnFwd(op32, &op32.p32, &op32.m32, &op32.r32, &op32.kt32, []G.Value{dense32(q, B*T, D), dense32(k, B*T, D), dense32(v, B*T, D)}, y32)
		g32 := &attentionGradOp{base: newBase("AttentionGrad", 5), fwd: op32}
		d32 := make([]float32, 3*B*T*D)
		attnBwd(op32, op32.p32.s, &g32.d32, &g32.g32, &g32.r32, &g32.vt32, []G.Value{dense32(q, B*T, D), dense32(k, B*T, D), dense32(v, B*T, D),
			tensor.New(tensor.WithShape(B*T, D), tensor.WithBacking(y32)), dense32(dy, B*T, D)}, d32)

		op64 := &attentionOp{base: newBase("Attention", 3), cfg: cfg, keepP: true}
		y64 := make([]float64, B*T*D)
		attnFwd(op64, &op64.p64, &op64.m64, &op64.r64, &op64.kt64, []G.Value{dense64(q, B*T, D), dense64(k, B*T, D), dense64(v, B*T, D)}, y64)
		g64 := &attentionGradOp{base: newBase("AttentionGrad", 5), fwd: op64}
		d64 := make([]float64, 3*B*T*D)
		attnBwd(op64, op64.p64.s, &g64.d64, &g64.g64, &g64.r64, &g64.vt64, []G.Value{dense64(q, B*T, D), dense64(k, B*T, D), dense64(v, B*T, D),
			tensor.New(tensor.WithShape(B*T, D), tensor.WithBacking(y64)), dense64(dy, B*T, D)}, d64)

		for _, c := range []struct {
			name string
			a    []float32
			b    []float64
		}{{"output", y32, y64}, {"dq", d32[:B*T*D], d64[:B*T*D]}, {"dk", d32[B*T*D : 2*B*T*D], d64[B*T*D : 2*B*T*D]}, {"dv", d32[2*B*T*D:], d64[2*B*T*D:]}} {
			var num, den float64
			for i := range c.b {
				d := float64(c.a[i]) - c.b[i]
				num += d * d
				den += c.b[i] * c.b[i]
			}
			if rel := math.Sqrt(num / den); rel > 1e-5 || math.IsNaN(rel) {
				t.Errorf("causal=%v: float32 %s differs from float64 by %.2g (relative); want ≤ 1e-5", causal, c.name, rel)
			} else {
				t.Logf("causal=%v: %s relative difference %.2g", causal, c.name, rel)
			}
		}
	}
}

// TestRowDotsBits: rowDots, four rows at a time, gives each row's dot product the bits of the
// plain loop it replaced, each product rounded before it is added (float32 and float64, 1 to 11
// rows).
func TestRowDotsBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(17, 18))
	const D, dh = 40, 29
	y, dy := randSlice[float32](rng, 11*D), randSlice[float32](rng, 11*D)
	y64, dy64 := randSlice[float64](rng, 11*D), randSlice[float64](rng, 11*D)
	for rows := 1; rows <= 11; rows++ {
		got, got64 := make([]float32, rows), make([]float64, rows)
		rowDots(got, y, dy, D, dh)
		rowDots(got64, y64, dy64, D, dh)
		for r := 0; r < rows; r++ {
			var s float32
			var s64 float64
			for j := 0; j < dh; j++ {
				s += float32(y[r*D+j] * dy[r*D+j]) // each product rounded: amd64's bits, on arm64 too
				s64 += float64(y64[r*D+j] * dy64[r*D+j])
			}
			if math.Float32bits(got[r]) != math.Float32bits(s) || math.Float64bits(got64[r]) != math.Float64bits(s64) {
				t.Fatalf("%d rows, row %d: %v and %v, want %v and %v (same bits)", rows, r, got[r], got64[r], s, s64)
			}
		}
	}
}

// TestHeadDotsBits: the dot products of every head of every row in one pass (headDots) have the
// bits of rowDots head by head, as attention's backward computed them before (float32 and
// float64, 8 heads of 32 and 3 heads of 5).
func TestHeadDotsBits(t *testing.T) {
	testHeadDots[float32](t)
	testHeadDots[float64](t)
}

func testHeadDots[F Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for _, s := range [][3]int{{7, 256, 8}, {5, 15, 3}} { // rows, D, H
		rows, D, H := s[0], s[1], s[2]
		dh := D / H
		y, dy := randSlice[F](rng, rows*D), randSlice[F](rng, rows*D)
		got := make([]F, rows*H)
		headDots(got, y, dy, rows, D, H)
		for h := 0; h < H; h++ {
			want := make([]F, rows)
			rowDots(want, y[h*dh:], dy[h*dh:], D, dh)
			for r := 0; r < rows; r++ {
				if math.Float64bits(float64(got[r*H+h])) != math.Float64bits(float64(want[r])) {
					t.Fatalf("%T rows=%d D=%d H=%d: row %d head %d is %v, want %v (same bits)", F(0), rows, D, H, r, h, got[r*H+h], want[r])
				}
			}
		}
	}
}

// TestAttentionStaleBuffersSameBits: causal attention zeroes each row's masked keys only up to
// the end of its row block, the last key its products read, so weights and dS left in its
// buffers by an earlier run must not reach a result: runs whose buffers start full of NaN give
// the bits of runs on fresh buffers that zero every masked key (whole), forward and backward,
// with and without a logit bias (whose gradient sums all of dS), training and evaluation
// graphs; and a captured P is zero after every row's last key.
func TestAttentionStaleBuffersSameBits(t *testing.T) {
	const B, T, H, D = 2, 53, 2, 16
	defer func(r int) { attnBlockRows = r }(attnBlockRows)
	attnBlockRows = 12
	rng := rand.New(rand.NewPCG(27, 28))
	q, k, v, dy := randSlice[float32](rng, B*T*D), randSlice[float32](rng, B*T*D), randSlice[float32](rng, B*T*D), randSlice[float32](rng, B*T*D)
	bias := randSlice[float32](rng, H*T*T)
	t32 := func(x []float32, s ...int) G.Value { return tensor.New(tensor.WithShape(s...), tensor.WithBacking(x)) }
	nan := float32(math.NaN())
	fill := func(s *scratch[float32], n int) {
		for i := range s.get(n) {
			s.s[i] = nan
		}
	}
	run := func(withBias, keep, stale, capture bool) ([]float32, []float32, []float32) {
		cfg := AttentionConfig{Batch: B, Len: T, Heads: H, Causal: true}
		op := &attentionOp{base: newBase("Attention", 3), cfg: cfg, keepP: keep, whole: !stale}
		vs := []G.Value{t32(q, B*T, D), t32(k, B*T, D), t32(v, B*T, D)}
		if withBias {
			op.arity, op.bias = 4, biasPairs
			vs = append(vs, t32(bias, H, T, T))
		}
		if capture {
			(&AttentionCapture{}).attach(op)
		}
		g := &attentionGradOp{base: newBase("AttentionGrad", len(vs)+2), fwd: op}
		if stale {
			fill(&op.p32, B*H*T*T)
			fill(&g.d32, B*H*T*T)
			fill(&g.g32, B*T*H)
		}
		y := make([]float32, B*T*D)
		attnFwd(op, &op.p32, &op.m32, &op.r32, &op.kt32, vs, y)
		if !keep {
			return y, nil, nil
		}
		out := make([]float32, 3*B*T*D+len(vs[3:])*H*T*T) // dq, dk, dv (and dbias)
		attnBwd(op, op.p32.s, &g.d32, &g.g32, &g.r32, &g.vt32, append(append([]G.Value{}, vs...), t32(y, B*T, D), t32(dy, B*T, D)), out)
		return y, out, op.p32.s[:B*H*T*T]
	}
	for _, withBias := range []bool{false, true} {
		for _, keep := range []bool{true, false} {
			y0, g0, _ := run(withBias, keep, false, false)
			y1, g1, _ := run(withBias, keep, true, false)
			what := fmt.Sprintf("bias=%v keepP=%v", withBias, keep)
			sameBits(t, what+": output", y1, y0)
			sameBits(t, what+": gradients", g1, g0)
		}
	}
	_, _, p := run(false, true, true, true)
	for bh := 0; bh < B*H; bh++ {
		for i := 0; i < T; i++ {
			for j := i + 1; j < T; j++ {
				if x := p[(bh*T+i)*T+j]; x != 0 {
					t.Fatalf("captured P[%d][%d][%d] = %v after the row's last key, want 0", bh, i, j, x)
				}
			}
		}
	}
}
