package ops

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ForgetConfig describes a batch of causal multi-head forgetting attention.
type ForgetConfig struct {
	Batch, Len, Heads int // B, T, H; q, k, v are [B·T, D] with D = H·Dh, the gates' logits [B·T, H]
	// Unscaled leaves out the 1/√Dh scale of Q·Kᵀ (as AttentionConfig.Unscaled).
	Unscaled bool
	// Capture, when not nil, receives the op's attention weights after every run.
	Capture *AttentionCapture
}

// ForgetAttention is the Forgetting Transformer's attention (FoX, Lin et al. 2025): causal
// softmax attention whose logits are biased by the forget gates of the tokens between query
// and key. For every sequence b and head h of q, k, v [B·T, D] and the gates' logits g
// [B·T, H] (f_t = σ(g_t), one gate per token and head):
//
//	c_t  = Σ_{l ≤ t} log f_l = −Σ_{l ≤ t} softplus(−g_l)
//	s_ij = s·q_i·k_j + (c_i − c_j)     (= s·q_i·k_j + Σ_{l=j+1..i} log f_l), for the keys j ≤ i
//	y_i  = Σ_j softmax_j(s_ij)·v_j
//
// (s = 1/√Dh, or 1 when Unscaled) and returns y [B·T, D], heads merged. The products run in
// the graph's dtype, as Attention's; c is summed in float64 and c_i − c_j rounded once to the
// dtype, so a long sequence loses nothing to the cumulative sum. A training graph keeps the
// weights [B, H, T, T] for the backward pass; an evaluation keeps one block of rows
// (AttentionEvalRows × T) per worker, so its memory grows linearly with T. Each head is computed
// by one worker alone, so the bits do not depend on the number of workers.
func ForgetAttention(q, k, v, g *G.Node, cfg ForgetConfig) (*G.Node, error) {
	s := q.Shape()
	if len(s) != 2 || cfg.Heads < 1 || s[1]%cfg.Heads != 0 || s[0] != cfg.Batch*cfg.Len {
		return nil, fmt.Errorf("ops: ForgetAttention: q %v does not fit batch %d × length %d with %d heads", s, cfg.Batch, cfg.Len, cfg.Heads)
	}
	if !k.Shape().Eq(s) || !v.Shape().Eq(s) {
		return nil, fmt.Errorf("ops: ForgetAttention: q %v, k %v, v %v must have one shape", s, k.Shape(), v.Shape())
	}
	if gs := g.Shape(); !gs.Eq(tensor.Shape{s[0], cfg.Heads}) {
		return nil, fmt.Errorf("ops: ForgetAttention: the gates' logits are %v, want [%d %d]", gs, s[0], cfg.Heads)
	}
	op := &foxOp{base: newBase("ForgetAttention", 4), cfg: cfg}
	if c := cfg.Capture; c != nil {
		c.src, op.keep = op, true
	}
	op.cfg.Capture = nil
	return apply(op, q, k, v, g)
}

type foxOp struct {
	base
	cfg  ForgetConfig
	keep bool // keep the weights [B, H, T, T] (training graph or capture)
	ran  bool // the weights of a run are kept
	p32  scratch[float32]
	p64  scratch[float64]
	c    scratch[float64] // c of every sequence and head, [B·H, T]
	out  buffer
}

func (op *foxOp) Type() hm.Type { return fnType(2, 2, 2, 2, 2) }

func (op *foxOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	return s.Clone(), nil
}

func (op *foxOp) captured() ([]float64, error) {
	if !op.ran {
		return nil, fmt.Errorf("ops: no attention weights captured yet: run the graph first")
	}
	n := op.cfg.Batch * op.cfg.Heads * op.cfg.Len * op.cfg.Len
	if op.out.t.Dtype() == tensor.Float32 {
		out := make([]float64, n)
		for i, x := range op.p32.s[:n] {
			out[i] = float64(x)
		}
		return out, nil
	}
	return append([]float64(nil), op.p64.s[:n]...), nil
}

func (op *foxOp) capturedShape() (int, int, int) { return op.cfg.Batch, op.cfg.Heads, op.cfg.Len }

func (op *foxOp) scale(dh int) float64 {
	if op.cfg.Unscaled {
		return 1
	}
	return 1 / math.Sqrt(float64(dh))
}

// forgetSums writes c of sequence b, head h, the cumulative sums of log σ(g) over the tokens,
// into c [T], in float64.
func forgetSums[F Float](g []F, c []float64, b, h, T, H int) {
	sum := 0.0
	for t := range T {
		sum -= softplus64(-float64(g[(b*T+t)*H+h]))
		c[t] = sum
	}
}

// softplus64 is log(1 + eˣ), without overflow: max(x, 0) + log1p(e^(−|x|)).
func softplus64(x float64) float64 {
	return max(x, 0) + pmath.Log1p(pmath.Exp(-math.Abs(x)))
}

// sigmoid64 is σ(x) = 1/(1 + e^(−x)), without overflow.
func sigmoid64(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + pmath.Exp(-x))
	}
	e := pmath.Exp(x)
	return e / (1 + e)
}

func (op *foxOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	out := op.out.get(dt, vs[0].Shape()...)
	if dt == tensor.Float32 {
		foxFwd(op, &op.p32, vs, sl[float32](out))
	} else {
		foxFwd(op, &op.p64, vs, sl[float64](out))
	}
	op.ran = op.keep
	return out, nil
}

func foxFwd[F Float](op *foxOp, pbuf *scratch[F], vs []G.Value, y []F) {
	B, T, H := op.cfg.Batch, op.cfg.Len, op.cfg.Heads
	D := vs[0].Shape()[1]
	dh := D / H
	q, k, v, g := sl[F](vs[0]), sl[F](vs[1]), sl[F](vs[2]), sl[F](vs[3])
	scale := F(op.scale(dh))
	blk := AttentionEvalRows(T, true)
	w := min(workers(), B*H)
	var p []F
	if op.keep {
		p = pbuf.get(B * H * T * T)
	} else {
		p = pbuf.get(w * blk * T) // [w, blk, T]: memory linear in T
	}
	c := op.c.get(B * H * T)
	parallelW(w, B*H, T*T*dh, func(worker, lo, hi int) {
		for bh := lo; bh < hi; bh++ {
			b, h := bh/H, bh%H
			ch := c[bh*T : (bh+1)*T]
			forgetSums(g, ch, b, h, T, H)
			off := b*T*D + h*dh
			for i0 := 0; i0 < T; i0 += blk {
				i1 := min(i0+blk, T) // the block's rows see the keys [0, i1)
				var pb []F           // the block's weights [i1 − i0, T]
				if op.keep {
					pb = p[bh*T*T+i0*T : bh*T*T+i1*T]
				} else {
					pb = p[worker*blk*T : worker*blk*T+(i1-i0)*T]
				}
				gemm1(false, true, i1-i0, i1, dh, scale, q[off+i0*D:], D, k[off:], D, 0, pb, T) // s·Q·Kᵀ [i1−i0, i1]
				for i := i0; i < i1; i++ {
					r := (i - i0) * T
					row := pb[r : r+i+1]
					for j := range row {
						row[j] += F(ch[i] - ch[j]) // Σ_{l=j+1..i} log f_l
					}
					softmaxRow(row)
					clear(pb[r+i+1 : r+T]) // the keys after the query: weight exactly 0
				}
				gemm1(false, false, i1-i0, dh, i1, 1, pb, T, v[off:], D, 0, y[off+i0*D:], D) // P·V [i1−i0, dh]
			}
		}
	})
}

func (op *foxOp) DiffWRT(int) []bool { return []bool{true, true, true, true} }

// SymDiff builds one backward op that writes [dq | dk | dv | dg] into one flat tensor, and views
// that pick each piece out of it.
func (op *foxOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	op.keep = true
	bwd := &foxGradOp{base: newBase("ForgetAttentionGrad", 6), fwd: op}
	packed, err := apply(bwd, in[0], in[1], in[2], in[3], out, grad)
	if err != nil {
		return nil, err
	}
	return unpack("ForgetAttentionGrad", packed, in)
}

// foxGradOp reads q, k, v, g, the output y, dy and the forward pass's kept weights, and writes
// [dq | dk | dv | dg].
type foxGradOp struct {
	base
	fwd *foxOp
	d32 scratch[float32] // dS of one head per worker, [T, T], then a row of its column sums
	d64 scratch[float64]
	out buffer
}

func (op *foxGradOp) Type() hm.Type { return fnType(2, 2, 2, 2, 2, 2, 1) }

func (op *foxGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return packedShape(in, 4)
}

func (op *foxGradOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	f := op.fwd
	if f.out.t == nil || !f.ran {
		return nil, fmt.Errorf("ops: ForgetAttentionGrad before its forward pass")
	}
	n := 3*vs[0].Shape().TotalSize() + vs[3].Shape().TotalSize()
	out := op.out.get(dt, n)
	if dt == tensor.Float32 {
		foxBwd(f, f.p32.s, &op.d32, vs, sl[float32](out))
	} else {
		foxBwd(f, f.p64.s, &op.d64, vs, sl[float64](out))
	}
	return out, nil
}

// foxBwd: with P the weights and dP = dY·Vᵀ, dS = P∘(dP − dot), dot_i = Σ_j P_ij·dP_ij = dy_i·y_i;
// dV = Pᵀ·dY, dQ = s·dS·K, dK = s·dSᵀ·Q. The bias c_i − c_j gives dc_t = Σ_j dS_tj − Σ_i dS_it,
// whose first sum is 0 (a softmax row's gradient sums to zero), so dc is minus dS's column
// sums; c_t = Σ_{l≤t} log σ(g_l) gives dg_l = σ(−g_l)·Σ_{t≥l} dc_t.
func foxBwd[F Float](f *foxOp, p []F, dbuf *scratch[F], vs []G.Value, out []F) {
	B, T, H := f.cfg.Batch, f.cfg.Len, f.cfg.Heads
	D := vs[0].Shape()[1]
	dh := D / H
	q, k, v, g, y, dy := sl[F](vs[0]), sl[F](vs[1]), sl[F](vs[2]), sl[F](vs[3]), sl[F](vs[4]), sl[F](vs[5])
	nq := len(q)
	dq, dk, dv, dg := out[:nq], out[nq:2*nq], out[2*nq:3*nq], out[3*nq:]
	scale := F(f.scale(dh))
	w := min(workers(), B*H)
	ds := dbuf.get(w * (T*T + 2*T))
	parallelW(w, B*H, 6*T*T*dh, func(worker, lo, hi int) {
		dsw := ds[worker*(T*T+2*T):][:T*T]
		dots, cs := ds[worker*(T*T+2*T)+T*T:][:T], ds[worker*(T*T+2*T)+T*T+T:][:T]
		for bh := lo; bh < hi; bh++ {
			b, h := bh/H, bh%H
			off := b*T*D + h*dh
			ph := p[bh*T*T : (bh+1)*T*T]
			gemm1(false, true, T, T, dh, 1, dy[off:], D, v[off:], D, 0, dsw, T) // dP = dY·Vᵀ [T, T]
			rowDots(dots, y[off:], dy[off:], D, dh)                             // dy_i·y_i
			for i := range T {
				dr := dsw[i*T : (i+1)*T]
				dsRow(dr[:i+1], ph[i*T:i*T+i+1], dots[i])
				clear(dr[i+1:])
			}
			colSumRows(dsw, cs, T, T)                                                // Σ_i dS_it
			gemm1(true, false, T, dh, T, 1, ph, T, dy[off:], D, 0, dv[off:], D)      // dV = Pᵀ·dY
			gemm1(false, false, T, dh, T, scale, dsw, T, k[off:], D, 0, dq[off:], D) // dQ = s·dS·K
			gemm1(true, false, T, dh, T, scale, dsw, T, q[off:], D, 0, dk[off:], D)  // dK = s·dSᵀ·Q
			sum := 0.0
			for l := T - 1; l >= 0; l-- {
				sum -= float64(cs[l])
				at := (b*T+l)*H + h
				dg[at] = F(sum * sigmoid64(-float64(g[at])))
			}
		}
	})
}

func (op *foxGradOp) DiffWRT(int) []bool { return []bool{false, false, false, false, false} }

func (op *foxGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: ForgetAttentionGrad has no gradient of its own")
}
