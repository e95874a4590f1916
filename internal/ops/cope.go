package ops

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// CoPEConfig describes a batch of causal multi-head attention with contextual positions.
type CoPEConfig struct {
	Batch, Len, Heads int // B, T, H; q, k, v are [B·T, D] with D = H·Dh
	// NPos is the number of position embeddings: positions are clamped to NPos − 1.
	NPos int
	// Unscaled leaves out the 1/√Dh scale s (as AttentionConfig.Unscaled): s = 1.
	Unscaled bool
	// ScalePos scales the position term with Q·Kᵀ, (q·k + q·e[p])·s, as facebookresearch/RAM's
	// ContextPosSelfAttn.forward does by default (cope_nodiv false); unset, the paper's listing
	// (Golovneva et al. 2024, §3), q·k·s + q·e[p].
	ScalePos bool
	// Capture, when not nil, receives the op's attention weights after every run.
	Capture *AttentionCapture
}

// CoPEAttention is causal attention with contextual positions (CoPE, Golovneva et al. 2024) for
// every sequence b and head h of q, k, v [B·T, D], with the embeddings e [NPos, Dh] that every
// head shares (facebookresearch/RAM's projects/cope/src/cope/context_position.py folds the heads
// into the batch):
//
//	z_ij = s·q_i·k_j (s = 1/√Dh, or 1 when Unscaled), for the keys j ≤ i
//	g_ij = σ(z_ij),  p_ij = min(Σ_{t=j..i} g_it, NPos − 1)
//	l_im = c·q_i·e[m]  (c = 1, the paper's listing; c = s with ScalePos, the reference code's default)
//	a_ij = z_ij + w·l_i⌈p_ij⌉ + (1 − w)·l_i⌊p_ij⌋,  w = p_ij − ⌊p_ij⌋
//	y_i = Σ_j softmax_j(a_ij)·v_j
//
// and returns y [B·T, D], heads merged. The keys after the query get no weight (their gates, as
// the reference's masked logits', are 0).
//
// It is computed as Attention is, in the graph's dtype: head by head, a block of query rows at a
// time (attnBlock rows, AttentionEvalRows in an evaluation), the products Z = s·Q·Kᵀ, L = c·Q·Eᵀ
// and P·V by the matrix kernels (Kᵀ packed once per head, Eᵀ once per run), the gates' exponential
// and the softmax by the vector kernels; per row, the suffix sums of the gates, the clamp and the
// interpolation go key by key from the query down (cope_rows.go). A training graph keeps the
// weights P [B, H, T, T] for the backward pass, which recomputes each block's gates, positions
// and L; an evaluation keeps one block of rows per worker, so its memory grows linearly with T.
// Every element is computed by the same operations whatever the number of workers, and e's
// gradient is summed over the heads in a fixed order, so the bits do not depend on it.
func CoPEAttention(q, k, v, e *G.Node, cfg CoPEConfig) (*G.Node, error) {
	s := q.Shape()
	if len(s) != 2 || cfg.Heads < 1 || s[1]%cfg.Heads != 0 || s[0] != cfg.Batch*cfg.Len {
		return nil, fmt.Errorf("ops: CoPEAttention: q %v does not fit batch %d × length %d with %d heads", s, cfg.Batch, cfg.Len, cfg.Heads)
	}
	if !k.Shape().Eq(s) || !v.Shape().Eq(s) {
		return nil, fmt.Errorf("ops: CoPEAttention: q %v, k %v, v %v must have one shape", s, k.Shape(), v.Shape())
	}
	if es := e.Shape(); cfg.NPos < 1 || !es.Eq(tensor.Shape{cfg.NPos, s[1] / cfg.Heads}) {
		return nil, fmt.Errorf("ops: CoPEAttention: e is %v, want [%d %d]", es, cfg.NPos, s[1]/cfg.Heads)
	}
	op := &copeOp{base: newBase("CoPEAttention", 4), cfg: cfg}
	if c := cfg.Capture; c != nil {
		c.src, op.keep, op.whole = op, true, true
	}
	op.cfg.Capture = nil
	return apply(op, q, k, v, e)
}

type copeOp struct {
	base
	cfg CoPEConfig
	// keep: the forward pass keeps its weights [B, H, T, T] in the graph's dtype (p32 or p64),
	// for the backward pass of a training graph (set when the gradient is built) or a capture.
	keep bool
	// whole: a capture reads P, so every row's masked keys are zeroed up to T (else up to the
	// end of its row block, the last key a product reads).
	whole bool
	p32   scratch[float32] // P [B, H, T, T] when kept, else a block of rows [blk, T] per worker
	p64   scratch[float64]
	w32   copeScratch[float32] // the forward pass's per-worker scratch
	w64   copeScratch[float64]
	ran   bool // the weights of a run are kept
	out   buffer
}

// copeScratch is the per-worker working memory of a pass (forward or backward), kept across runs.
type copeScratch[F Float] struct {
	et   bPacker[F]   // Eᵀ, packed once per run for every head
	kt   []bPacker[F] // per worker: the head's Kᵀ
	vt   []bPacker[F] // per worker: the head's Vᵀ (backward)
	rows scratch[F]   // per worker: copeWork's buffers
	idx  []int32      // per worker: the backward pass's positions [2T]
	de   scratch[F]   // the backward pass's e gradient per head [B·H, NPos, Dh], summed in order
	dots scratch[F]   // the backward pass's dYᵢ·Yᵢ of every row and head [B·T, H]
}

func (op *copeOp) Type() hm.Type { return fnType(2, 2, 2, 2, 2) }

func (op *copeOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	return s.Clone(), nil
}

// captured returns a copy of the last run's weights (AttentionCapture).
func (op *copeOp) captured() ([]float64, error) {
	if !op.ran {
		return nil, fmt.Errorf("ops: no attention weights captured yet: run the graph first")
	}
	n := op.cfg.Batch * op.cfg.Heads * op.cfg.Len * op.cfg.Len
	if op.out.t.Dtype() == tensor.Float32 {
		return float64s(G.Value(tensor.New(tensor.WithBacking(op.p32.s[:n])))), nil
	}
	return append([]float64(nil), op.p64.s[:n]...), nil
}

func (op *copeOp) capturedShape() (int, int, int) { return op.cfg.Batch, op.cfg.Heads, op.cfg.Len }

// float64s returns a value's data as float64 (a copy for float32).
func float64s(v G.Value) []float64 {
	switch d := v.Data().(type) {
	case []float64:
		return d
	case []float32:
		out := make([]float64, len(d))
		for i, x := range d {
			out[i] = float64(x)
		}
		return out
	}
	return nil
}

// copeDims are the sizes and factors of one run.
type copeDims[F Float] struct {
	B, T, H, D, dh, npos, blk int
	scale, lscale             F // s of Q·Kᵀ, c of Q·Eᵀ
}

// copeDimsOf are op's sizes for inputs of width D.
func copeDimsOf[F Float](op *copeOp, D int) copeDims[F] {
	c := op.cfg
	dh := D / c.Heads
	scale := 1 / math.Sqrt(float64(dh))
	if c.Unscaled {
		scale = 1
	}
	lscale := 1.0
	if c.ScalePos {
		lscale = scale
	}
	return copeDims[F]{B: c.Batch, T: c.Len, H: c.Heads, D: D, dh: dh, npos: c.NPos, blk: attnBlock(c.Len, true), scale: F(scale), lscale: F(lscale)}
}

func (op *copeOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	out := op.out.get(dt, vs[0].Shape()...)
	if dt == tensor.Float32 {
		copeFwd(op, &op.p32, &op.w32, vs, sl[float32](out))
	} else {
		copeFwd(op, &op.p64, &op.w64, vs, sl[float64](out))
	}
	op.ran = op.keep
	return out, nil
}

func copeFwd[F Float](op *copeOp, pbuf *scratch[F], ws *copeScratch[F], vs []G.Value, y []F) {
	d := copeDimsOf[F](op, vs[0].Shape()[1])
	q, k, v, e := sl[F](vs[0]), sl[F](vs[1]), sl[F](vs[2]), sl[F](vs[3])
	T, D, dh, blk := d.T, d.D, d.dh, d.blk
	w := min(workers(), d.B*d.H)
	var p []F
	if op.keep {
		p = pbuf.get(d.B * d.H * T * T)
	} else {
		p = pbuf.get(w * blk * T) // [w, blk, T]: memory linear in T
	}
	ws.et.pack(e, dh, d.npos, dh) // Eᵀ [dh, NPos], for every head
	kt := packers(&ws.kt, w)
	wlen := copeFwdWork(T, blk, d.npos)
	rows := ws.rows.get(w * wlen)
	parallelW(w, d.B*d.H, 1<<20, func(worker, lo, hi int) {
		wk := copeFwdWorkOf(rows[worker*wlen:(worker+1)*wlen], T, blk, d.npos)
		for bh := lo; bh < hi; bh++ {
			b, h := bh/d.H, bh%d.H
			off := b*T*D + h*dh
			kt[worker].pack(k[off:], D, T, dh) // Kᵀ of the head [dh, T], for every row block
			for i0 := 0; i0 < T; i0 += blk {
				i1 := min(i0+blk, T)
				var pb []F // the block's rows of P, [i1−i0, T]
				if op.keep {
					pb = p[bh*T*T+i0*T : bh*T*T+i1*T]
				} else {
					pb = p[worker*blk*T : worker*blk*T+(i1-i0)*T]
				}
				kt[worker].mul(false, i1-i0, i1, d.scale, q[off+i0*D:], D, k[off:], D, pb, T)   // Z [i1−i0, i1]
				ws.et.mul(false, i1-i0, d.npos, d.lscale, q[off+i0*D:], D, e, dh, wk.l, d.npos) // L [i1−i0, NPos]
				for i := i0; i < i1; i++ {
					r := (i - i0) * T
					row := pb[r : r+i+1]
					copeLogits(row, wk.g[:i+1], wk.l[(i-i0)*d.npos:(i-i0+1)*d.npos], F(d.npos-1))
					softmaxRow(row)
					if op.whole {
						clear(pb[r+i+1 : r+T])
					} else { // P·V here and Pᵀ·dY in the backward read keys below i1 only
						clear(pb[r+i+1 : r+i1])
					}
				}
				gemm1(false, false, i1-i0, dh, i1, 1, pb, T, v[off:], D, 0, y[off+i0*D:], D)
			}
		}
	})
}

func (op *copeOp) DiffWRT(int) []bool { return []bool{true, true, true, true} }

// SymDiff builds one backward op that writes [dq | dk | dv | de] into one flat tensor, and views
// that pick each piece out of it.
func (op *copeOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	op.keep = true
	bwd := &copeGradOp{base: newBase("CoPEAttentionGrad", 6), fwd: op}
	packed, err := apply(bwd, in[0], in[1], in[2], in[3], out, grad)
	if err != nil {
		return nil, err
	}
	return unpack("CoPEAttentionGrad", packed, in)
}

// copeGradOp reads q, k, v, e, y and dy and the forward pass's kept weights, and writes [dq | dk |
// dv | de], recomputing each row block's gates, positions and L.
type copeGradOp struct {
	base
	fwd *copeOp
	w32 copeScratch[float32]
	w64 copeScratch[float64]
	out buffer
}

func (op *copeGradOp) Type() hm.Type { return fnType(2, 2, 2, 2, 2, 2, 1) }

func (op *copeGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	return packedShape(in, 4)
}

func (op *copeGradOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	f := op.fwd
	if f.out.t == nil || !f.ran {
		return nil, fmt.Errorf("ops: CoPEAttentionGrad before its forward pass")
	}
	n := 3*vs[0].Shape().TotalSize() + vs[3].Shape().TotalSize()
	out := op.out.get(dt, n)
	if dt == tensor.Float32 {
		copeBwd(f, f.p32.s, &op.w32, vs, sl[float32](out))
	} else {
		copeBwd(f, f.p64.s, &op.w64, vs, sl[float64](out))
	}
	return out, nil
}

func copeBwd[F Float](f *copeOp, p []F, ws *copeScratch[F], vs []G.Value, grad []F) {
	d := copeDimsOf[F](f, vs[0].Shape()[1])
	q, k, v, e, y, dy := sl[F](vs[0]), sl[F](vs[1]), sl[F](vs[2]), sl[F](vs[3]), sl[F](vs[4]), sl[F](vs[5])
	T, D, dh, blk, npos, H := d.T, d.D, d.dh, d.blk, d.npos, d.H
	nq, ne := len(q), len(e)
	dq, dk, dv, de := grad[:nq], grad[nq:2*nq], grad[2*nq:3*nq], grad[3*nq:]
	// workers() changes when another run of a grid starts or ends: read it once, so that there is
	// scratch for every chunk.
	w := min(workers(), d.B*d.H)
	ws.et.pack(e, dh, npos, dh)
	kt, vt := packers(&ws.kt, w), packers(&ws.vt, w)
	wlen := copeBwdWork(T, blk, npos)
	rows := ws.rows.get(w * wlen)
	if len(ws.idx) < w*2*T {
		ws.idx = make([]int32, w*2*T)
	}
	deBH := ws.de.get(d.B * d.H * ne) // e's gradient of each sequence and head, summed in order below
	// Σ_j P_ij·dP_ij = dYᵢ·Yᵢ for every row i and head, [B·T, H], in one pass over whole rows
	dots := ws.dots.get(d.B * T * H)
	parallel(d.B*T, 2*D, func(_, lo, hi int) { headDots(dots[lo*H:hi*H], y[lo*D:], dy[lo*D:], hi-lo, D, H) })
	parallelW(w, d.B*d.H, 1<<20, func(worker, lo, hi int) {
		wk := copeBwdWorkOf(rows[worker*wlen:(worker+1)*wlen], ws.idx[worker*2*T:(worker+1)*2*T], T, blk, npos)
		for bh := lo; bh < hi; bh++ {
			b, h := bh/d.H, bh%d.H
			off := b*T*D + h*dh
			kt[worker].pack(k[off:], D, T, dh)
			vt[worker].pack(v[off:], D, T, dh)
			ph, dz := p[bh*T*T:(bh+1)*T*T], wk.dz // the head's P and dZ [T, T]
			deh := deBH[bh*ne : (bh+1)*ne]
			for i0 := 0; i0 < T; i0 += blk {
				i1 := min(i0+blk, T)
				gb, dpb := wk.g[:(i1-i0)*T], dz[i0*T:i1*T]                                    // the block's gates and dP, then dZ
				kt[worker].mul(false, i1-i0, i1, d.scale, q[off+i0*D:], D, k[off:], D, gb, T) // Z
				ws.et.mul(false, i1-i0, npos, d.lscale, q[off+i0*D:], D, e, dh, wk.l, npos)   // L
				vt[worker].mul(false, i1-i0, i1, 1, dy[off+i0*D:], D, v[off:], D, dpb, T)     // dP = dY·Vᵀ
				for i := i0; i < i1; i++ {
					r := (i - i0) * T
					dl := wk.dl[(i-i0)*npos : (i-i0+1)*npos]
					copeRowGrad(dpb[r:r+i+1], gb[r:r+i+1], ph[i*T:i*T+i+1], wk.l[(i-i0)*npos:(i-i0+1)*npos], dl, wk.raw[:i+1], F(npos-1), dots[(b*T+i)*H+h], &wk)
					clear(dpb[r+i+1 : r+i1]) // dZ·K and dZᵀ·Q read keys below i1 only
				}
				// dQ = s·dZ·K + c·dL·E ; dE_bh += c·dLᵀ·Q
				gemm1(false, false, i1-i0, dh, i1, d.scale, dpb, T, k[off:], D, 0, dq[off+i0*D:], D)
				gemm1(false, false, i1-i0, dh, npos, d.lscale, wk.dl, npos, e, dh, 1, dq[off+i0*D:], D)
				beta := F(1)
				if i0 == 0 {
					beta = 0
				}
				gemm1(true, false, npos, dh, i1-i0, d.lscale, wk.dl, npos, q[off+i0*D:], D, beta, deh, dh)
			}
			for j0 := 0; j0 < T; j0 += blk { // key blocks: dV and dK need the queries [j0, T) only
				j1 := min(j0+blk, T)
				// dV = Pᵀ·dY ; dK = s·dZᵀ·Q
				gemm1(true, false, j1-j0, dh, T-j0, 1, ph[j0*T+j0:], T, dy[off+j0*D:], D, 0, dv[off+j0*D:], D)
				gemm1(true, false, j1-j0, dh, T-j0, d.scale, dz[j0*T+j0:], T, q[off+j0*D:], D, 0, dk[off+j0*D:], D)
			}
		}
	})
	copy(de, deBH[:ne])
	for bh := 1; bh < d.B*d.H; bh++ {
		addInto(de, de, deBH[bh*ne:(bh+1)*ne])
	}
}

func (op *copeGradOp) DiffWRT(int) []bool { return []bool{false, false, false, false, false} }

func (op *copeGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: CoPEAttentionGrad has no gradient of its own")
}
