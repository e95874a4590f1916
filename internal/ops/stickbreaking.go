package ops

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// StickBreakingConfig describes a batch of causal multi-head stick-breaking attention.
type StickBreakingConfig struct {
	Batch, Len, Heads int // B, T, H; q, k, v are [B·T, D] with D = H·Dh
	// AttendCurrent lets a query attend to its own token (key j = i); without it the keys are
	// j < i, the reference's default (attend_current=False).
	AttendCurrent bool
	// Remainder adds the weight the keys leave, 1 − Σ_j A_ij, to the query's own value (the
	// reference's o + rem·v).
	Remainder bool
	// Unscaled leaves out the 1/√Dh scale of Q·Kᵀ (as AttentionConfig.Unscaled).
	Unscaled bool
	// Capture, when not nil, receives the op's effective weights after every run: A, with the
	// remainder added on the diagonal when Remainder is set (each row then sums to 1).
	Capture *AttentionCapture
}

// StickBreakingAttention is stick-breaking attention (Tan et al. 2025, "Scaling Stick-Breaking
// Attention"), as shawntan/stickbreaking-attention's stickbreaking_attention/sb_ref.py and
// flash-linear-attention's ops/stickbreaking_attn/naive.py compute it: no softmax; for every
// sequence b and head h of q, k, v [B·T, D], with z_ij = s·q_i·k_j (s = 1/√Dh, or 1 when
// Unscaled) and β_ij = σ(z_ij), over the keys j ≤ last (last = i with AttendCurrent, else i − 1):
//
//	log A_ij = log σ(z_ij) + Σ_{j<k≤last} log(1 − β_ik) = −softplus(−z_ij) − Σ_{j<k≤last} softplus(z_ik)
//	y_i      = Σ_j A_ij·v_j  (+ (1 − Σ_j A_ij)·v_i with Remainder)
//
// The nearest key takes β of the stick, the next β of what is left, and so on. The logarithms
// and the sum run in float64 (the products, as Attention's, in the graph's dtype), so a far key's
// weight is exp of a sum, never a product of many factors below 1 that underflows to zero. A
// training graph keeps A [B, H, T, T] for the backward pass, which recomputes the logits; an
// evaluation keeps one block of rows (AttentionEvalRows × T) per worker, so its memory grows
// linearly with T. Each head is computed by one worker alone, so the bits do not depend on the
// number of workers.
func StickBreakingAttention(q, k, v *G.Node, cfg StickBreakingConfig) (*G.Node, error) {
	s := q.Shape()
	if len(s) != 2 || cfg.Heads < 1 || s[1]%cfg.Heads != 0 || s[0] != cfg.Batch*cfg.Len {
		return nil, fmt.Errorf("ops: StickBreakingAttention: q %v does not fit batch %d × length %d with %d heads", s, cfg.Batch, cfg.Len, cfg.Heads)
	}
	if !k.Shape().Eq(s) || !v.Shape().Eq(s) {
		return nil, fmt.Errorf("ops: StickBreakingAttention: q %v, k %v, v %v must have one shape", s, k.Shape(), v.Shape())
	}
	op := &sbOp{base: newBase("StickBreakingAttention", 3), cfg: cfg}
	if c := cfg.Capture; c != nil {
		c.src, op.keep = op, true
	}
	op.cfg.Capture = nil
	return apply(op, q, k, v)
}

type sbOp struct {
	base
	cfg  StickBreakingConfig
	keep bool // keep A [B, H, T, T] (training graph or capture)
	ran  bool // A of a run is kept
	a32  scratch[float32]
	a64  scratch[float64]
	rem  scratch[float64] // 1 − Σ_j A_ij of every sequence, head and query, [B·H·T]
	out  buffer
}

func (op *sbOp) Type() hm.Type { return fnType(2, 2, 2, 2) }

func (op *sbOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	return s.Clone(), nil
}

// captured returns the effective weights: A, plus the remainder on the diagonal.
func (op *sbOp) captured() ([]float64, error) {
	if !op.ran {
		return nil, fmt.Errorf("ops: no attention weights captured yet: run the graph first")
	}
	T := op.cfg.Len
	n := op.cfg.Batch * op.cfg.Heads * T * T
	var out []float64
	if op.out.t.Dtype() == tensor.Float32 {
		out = make([]float64, n)
		for i, x := range op.a32.s[:n] {
			out[i] = float64(x)
		}
	} else {
		out = append([]float64(nil), op.a64.s[:n]...)
	}
	if op.cfg.Remainder {
		for r, x := range op.rem.s[:n/T] {
			out[r*T+r%T] += x
		}
	}
	return out, nil
}

func (op *sbOp) capturedShape() (int, int, int) { return op.cfg.Batch, op.cfg.Heads, op.cfg.Len }

func (op *sbOp) scale(dh int) float64 {
	if op.cfg.Unscaled {
		return 1
	}
	return 1 / math.Sqrt(float64(dh))
}

// last is the last key query i attends to (−1: none).
func (c StickBreakingConfig) last(i int) int {
	if c.AttendCurrent {
		return i
	}
	return i - 1
}

// sbRow replaces the logits z_j of one query's keys j ≤ last (row[:last+1]) by the weights
// A_j and returns their sum; e, t and q are scratch of len(row) values. With β = σ(z),
//
//	log A_j = log σ(z_j) + Σ_{k>j} log σ(−z_k),   log σ(−z) = −max(z, 0) − log(1 + e^(−|z|)),
//
// so A_j = σ(z_j)·exp(−M_j)/Q_j with M_j = Σ_{k>j} max(z_k, 0), summed, and Q_j = Π_{k>j} (1 +
// e^(−|z_k|)), a product of factors in (1, 2] that only grows: the decaying part of the weight is
// the exponential of a sum (log space), so no product of many factors below 1 underflows, and
// one exponential of each logit and one of each sum are all the transcendental work (computed
// by expRow: exact in a float64 graph, expFast eight at a time in a float32 one).
func sbRow[F Float](row []F, e, t, q []float64) float64 {
	n := len(row)
	e, t, q = e[:n], t[:n], q[:n]
	for j, z := range row {
		e[j] = -math.Abs(float64(z))
	}
	expRow[F](e) // e^(−|z|)
	m, p := 0.0, 1.0
	for j := n - 1; j >= 0; j-- {
		p *= 1 + e[j]
		t[j], q[j] = -m, p // q_j = (1 + e^(−|z_j|))·Q_j, σ(z_j)'s denominator with Q_j
		m += max(float64(row[j]), 0)
	}
	expRow[F](t) // exp(−M_j)
	sum := 0.0
	for j, z := range row {
		num := t[j] // σ(z) = 1/(1 + e^(−|z|)) for z ≥ 0, e^(−|z|)/(1 + e^(−|z|)) below
		if z < 0 {
			num = float64(e[j] * num)
		}
		a := num / q[j]
		row[j] = F(a)
		sum += a
	}
	return sum
}

// sbSigmoid is σ(z) from z and e = e^(−|z|).
func sbSigmoid(z, e float64) float64 {
	if z >= 0 {
		return 1 / (1 + e)
	}
	return e / (1 + e)
}

func (op *sbOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	out := op.out.get(dt, vs[0].Shape()...)
	if dt == tensor.Float32 {
		sbFwd(op, &op.a32, vs, sl[float32](out))
	} else {
		sbFwd(op, &op.a64, vs, sl[float64](out))
	}
	op.ran = op.keep
	return out, nil
}

func sbFwd[F Float](op *sbOp, abuf *scratch[F], vs []G.Value, y []F) {
	B, T, H := op.cfg.Batch, op.cfg.Len, op.cfg.Heads
	D := vs[0].Shape()[1]
	dh := D / H
	q, k, v := sl[F](vs[0]), sl[F](vs[1]), sl[F](vs[2])
	scale := F(op.scale(dh))
	blk := AttentionEvalRows(T, true)
	w := min(workers(), B*H)
	var a []F
	if op.keep {
		a = abuf.get(B * H * T * T)
	} else {
		a = abuf.get(w * blk * T) // [w, blk, T]: memory linear in T
	}
	rem := op.rem.get(B * H * T)
	parallelW(w, B*H, T*T*dh, func(worker, lo, hi int) {
		e, et, eq := make([]float64, T), make([]float64, T), make([]float64, T)
		for bh := lo; bh < hi; bh++ {
			off := bh/H*T*D + bh%H*dh
			for i0 := 0; i0 < T; i0 += blk {
				i1 := min(i0+blk, T) // the block's rows see the keys [0, i1)
				var ab []F           // the block's weights [i1 − i0, T]
				if op.keep {
					ab = a[bh*T*T+i0*T : bh*T*T+i1*T]
				} else {
					ab = a[worker*blk*T : worker*blk*T+(i1-i0)*T]
				}
				gemm1(false, true, i1-i0, i1, dh, scale, q[off+i0*D:], D, k[off:], D, 0, ab, T) // z = s·Q·Kᵀ [i1−i0, i1]
				for i := i0; i < i1; i++ {
					r, n := (i-i0)*T, op.cfg.last(i)+1
					rem[bh*T+i] = 1 - sbRow(ab[r:r+n], e, et, eq)
					clear(ab[r+n : r+T]) // the keys after the last: weight exactly 0
				}
				gemm1(false, false, i1-i0, dh, i1, 1, ab, T, v[off:], D, 0, y[off+i0*D:], D) // A·V [i1−i0, dh]
				if op.cfg.Remainder {
					for i := i0; i < i1; i++ {
						yi, vi, r := y[off+i*D:][:dh], v[off+i*D:][:dh], F(rem[bh*T+i])
						for x := range yi {
							yi[x] += r * vi[x]
						}
					}
				}
			}
		}
	})
}

func (op *sbOp) DiffWRT(int) []bool { return []bool{true, true, true} }

// SymDiff builds one backward op that writes [dq | dk | dv] into one flat tensor, and views that
// pick each piece out of it.
func (op *sbOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	op.keep = true
	bwd := &sbGradOp{base: newBase("StickBreakingAttentionGrad", 4), fwd: op}
	packed, err := apply(bwd, in[0], in[1], in[2], grad)
	if err != nil {
		return nil, err
	}
	return unpack("StickBreakingAttentionGrad", packed, in)
}

// sbGradOp reads q, k, v, dy and the forward pass's kept A and remainders, and writes [dq | dk |
// dv], recomputing the logits.
type sbGradOp struct {
	base
	fwd *sbOp
	z32 scratch[float32] // per worker the logits, then dZ, and dA of one head, [2, T, T]
	z64 scratch[float64]
	out buffer
}

func (op *sbGradOp) Type() hm.Type { return fnType(2, 2, 2, 2, 1) }

func (op *sbGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	return tensor.Shape{3 * s.TotalSize()}, nil
}

func (op *sbGradOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	f := op.fwd
	if f.out.t == nil || !f.ran {
		return nil, fmt.Errorf("ops: StickBreakingAttentionGrad before its forward pass")
	}
	out := op.out.get(dt, 3*vs[0].Shape().TotalSize())
	if dt == tensor.Float32 {
		sbBwd(f, f.a32.s, &op.z32, vs, sl[float32](out))
	} else {
		sbBwd(f, f.a64.s, &op.z64, vs, sl[float64](out))
	}
	return out, nil
}

// sbBwd: with dP = dY·Vᵀ, dA_ij = dP_ij − R·dP_ii (the remainder moves weight from key j to
// the query's own value); dlogA_ij = dA_ij·A_ij; and since log A_ij = log σ(z_ij) −
// Σ_{j<k≤last} softplus(z_ik), dz_ik = dlogA_ik·σ(−z_ik) − σ(z_ik)·Σ_{j<k} dlogA_ij. Then dQ =
// s·dZ·K, dK = s·dZᵀ·Q, and dV = Aᵀ·dY plus R·rem_i·dy_i on the query's own row.
func sbBwd[F Float](f *sbOp, a []F, zbuf *scratch[F], vs []G.Value, out []F) {
	B, T, H := f.cfg.Batch, f.cfg.Len, f.cfg.Heads
	D := vs[0].Shape()[1]
	dh := D / H
	q, k, v, dy := sl[F](vs[0]), sl[F](vs[1]), sl[F](vs[2]), sl[F](vs[3])
	nq := len(q)
	dq, dk, dv := out[:nq], out[nq:2*nq], out[2*nq:]
	scale := F(f.scale(dh))
	rem := f.rem.s
	w := min(workers(), B*H)
	zs := zbuf.get(w * 2 * T * T)
	parallelW(w, B*H, 7*T*T*dh, func(worker, lo, hi int) {
		zw, dpw := zs[worker*2*T*T:][:T*T], zs[(worker*2+1)*T*T:][:T*T]
		e := make([]float64, T)
		for bh := lo; bh < hi; bh++ {
			off := bh/H*T*D + bh%H*dh
			ah := a[bh*T*T : (bh+1)*T*T]
			gemm1(false, true, T, T, dh, scale, q[off:], D, k[off:], D, 0, zw, T) // z = s·Q·Kᵀ
			gemm1(false, true, T, T, dh, 1, dy[off:], D, v[off:], D, 0, dpw, T)   // dP = dY·Vᵀ
			for i := range T {
				zr, dr, ar := zw[i*T:(i+1)*T], dpw[i*T:(i+1)*T], ah[i*T:(i+1)*T]
				n := f.cfg.last(i) + 1
				self := 0.0
				if f.cfg.Remainder {
					self = float64(dr[i])
				}
				en := e[:n]
				for j, z := range zr[:n] {
					en[j] = -math.Abs(float64(z))
				}
				expRow[F](en) // e^(−|z|)
				pre := 0.0    // Σ_{j<k} dlogA_ij
				for j := range n {
					dl := float64(float64(dr[j])-self) * float64(ar[j])
					z := float64(zr[j])
					zr[j] = F(float64(dl*sbSigmoid(-z, en[j])) - float64(sbSigmoid(z, en[j])*pre)) // dlogA·σ(−z) − σ(z)·Σ_{j'<j} dlogA
					pre += dl
				}
				clear(zr[n:])
			}
			gemm1(true, false, T, dh, T, 1, ah, T, dy[off:], D, 0, dv[off:], D)     // dV = Aᵀ·dY
			gemm1(false, false, T, dh, T, scale, zw, T, k[off:], D, 0, dq[off:], D) // dQ = s·dZ·K
			gemm1(true, false, T, dh, T, scale, zw, T, q[off:], D, 0, dk[off:], D)  // dK = s·dZᵀ·Q
			if f.cfg.Remainder {
				for i := range T {
					dvi, dyi, r := dv[off+i*D:][:dh], dy[off+i*D:][:dh], F(rem[bh*T+i])
					for x := range dvi {
						dvi[x] += r * dyi[x]
					}
				}
			}
		}
	})
}

func (op *sbGradOp) DiffWRT(int) []bool { return []bool{false, false, false, false} }

func (op *sbGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: StickBreakingAttentionGrad has no gradient of its own")
}
