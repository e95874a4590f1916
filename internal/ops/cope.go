package ops

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// CoPEConfig describes a batch of causal multi-head attention with contextual positions.
type CoPEConfig struct {
	Batch, Len, Heads int // B, T, H; q, k, v are [B·T, D] with D = H·Dh
	// NPos is the number of position embeddings: positions are clamped to NPos − 1.
	NPos int
	// Unscaled leaves out the 1/√Dh scale of Q·Kᵀ (as AttentionConfig.Unscaled).
	Unscaled bool
	// Capture, when not nil, receives the op's attention weights after every run.
	Capture *AttentionCapture
}

// CoPEAttention is causal attention with contextual positions (CoPE, Golovneva et al. 2024), as
// facebookresearch/RAM's projects/cope/src/cope/context_position.py (ContextPosSelfAttn.forward
// and CoPE.forward) computes it, for every sequence b and head h of q, k, v [B·T, D] with the
// embeddings e [NPos, Dh] that every head shares:
//
//	z_ij = s·q_i·k_j (s = 1/√Dh, or 1 when Unscaled), for the keys j ≤ i
//	g_ij = σ(z_ij),  p_ij = min(Σ_{t=j..i} g_it, NPos − 1)
//	a_ij = z_ij + (1 − w)·q_i·e[⌊p_ij⌋] + w·q_i·e[⌈p_ij⌉],  w = p_ij − ⌊p_ij⌋
//	y_i = Σ_j softmax_j(a_ij)·v_j
//
// and returns y [B·T, D], heads merged. The keys after the query get no weight (their gates, as
// the reference's masked logits', are 0). Computed in float64 whatever the dtype; a training
// graph keeps the weights [B, H, T, T] (in its dtype) for the backward pass, which recomputes
// each row's gates and positions and sums e's gradient over the sequences and heads in a fixed
// order, so the bits do not depend on the number of workers. An evaluation keeps one row per
// worker.
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
		c.src, op.keep = op, true
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
	p32  scratch[float32]
	p64  scratch[float64]
	ran  bool // the weights of a run are kept
	out  buffer
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

// weight is the kept weight of sequence and head bh, query i, key j.
func (op *copeOp) weight(bh, i, j int) float64 {
	at := (bh*op.cfg.Len+i)*op.cfg.Len + j
	if op.out.t.Dtype() == tensor.Float32 {
		return float64(op.p32.s[at])
	}
	return op.p64.s[at]
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

// copeRow is one query row's forward quantities over its keys j ≤ i.
type copeRow struct {
	z, g, raw, p, pr []float64 // logits s·q·k, gates, positions, positions clamped, weights
	l                []float64 // q_i·e[m], m < NPos
}

// copeDims are the sizes one head's rows are read with.
type copeDims struct {
	T, D, dh, npos int
	scale          float64
}

func (op *copeOp) dims() copeDims {
	D := op.out.t.Shape()[1]
	dh := D / op.cfg.Heads
	scale := 1 / math.Sqrt(float64(dh))
	if op.cfg.Unscaled {
		scale = 1
	}
	return copeDims{T: op.cfg.Len, D: D, dh: dh, npos: op.cfg.NPos, scale: scale}
}

func newCopeRow(T, npos int) *copeRow {
	return &copeRow{z: make([]float64, T), g: make([]float64, T), raw: make([]float64, T), p: make([]float64, T), pr: make([]float64, T), l: make([]float64, npos)}
}

// forward fills r for query i of sequence b, head h (keys 0..i).
func (d copeDims) forward(r *copeRow, q, k, e []float64, b, h, i int) {
	qi := q[(b*d.T+i)*d.D+h*d.dh:][:d.dh]
	for j := 0; j <= i; j++ {
		kj := k[(b*d.T+j)*d.D+h*d.dh:][:d.dh]
		s := 0.0
		for x, qv := range qi {
			s += float64(qv * kj[x]) // float64(): not fused on arm64, as on amd64
		}
		r.z[j] = d.scale * s
		r.g[j] = 1 / (1 + pmath.Exp(-r.z[j]))
	}
	for m := range d.npos {
		s := 0.0
		for x, qv := range qi {
			s += float64(qv * e[m*d.dh+x])
		}
		r.l[m] = s
	}
	sum, top := 0.0, float64(d.npos-1)
	for j := i; j >= 0; j-- { // p_ij = Σ_{t=j..i} g_it
		sum += r.g[j]
		r.raw[j], r.p[j] = sum, min(sum, top)
	}
	mx := math.Inf(-1)
	for j := 0; j <= i; j++ {
		f, c := math.Floor(r.p[j]), math.Ceil(r.p[j])
		w := r.p[j] - f
		r.pr[j] = r.z[j] + float64(r.l[int(c)]*w) + float64(r.l[int(f)]*(1-w))
		mx = max(mx, r.pr[j])
	}
	tot := 0.0
	for j := 0; j <= i; j++ {
		r.pr[j] = pmath.Exp(r.pr[j] - mx)
		tot += r.pr[j]
	}
	for j := 0; j <= i; j++ {
		r.pr[j] /= tot
	}
}

func (op *copeOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	out := op.out.get(dt, vs[0].Shape()...)
	q, k, v, e := float64s(vs[0]), float64s(vs[1]), float64s(vs[2]), float64s(vs[3])
	d := op.dims()
	B, H, T := op.cfg.Batch, op.cfg.Heads, op.cfg.Len
	y := make([]float64, B*T*d.D)
	var p32 []float32
	var p64 []float64
	if op.keep {
		if dt == tensor.Float32 {
			p32 = op.p32.get(B * H * T * T)
			clear(p32)
		} else {
			p64 = op.p64.get(B * H * T * T)
			clear(p64)
		}
	}
	parallel(B*H, T*T*d.dh, func(_, lo, hi int) {
		r := newCopeRow(T, d.npos)
		for bh := lo; bh < hi; bh++ {
			b, h := bh/H, bh%H
			for i := range T {
				d.forward(r, q, k, e, b, h, i)
				yi := y[(b*T+i)*d.D+h*d.dh:][:d.dh]
				for j := 0; j <= i; j++ {
					vj := v[(b*T+j)*d.D+h*d.dh:][:d.dh]
					for x := range yi {
						yi[x] += float64(r.pr[j] * vj[x])
					}
				}
				for j, w := range r.pr[:i+1] {
					switch {
					case p32 != nil:
						p32[(bh*T+i)*T+j] = float32(w)
					case p64 != nil:
						p64[(bh*T+i)*T+j] = w
					}
				}
			}
		}
	})
	op.ran = op.keep
	switch o := out.Data().(type) {
	case []float64:
		copy(o, y)
	case []float32:
		for i, x := range y {
			o[i] = float32(x)
		}
	}
	return out, nil
}

func (op *copeOp) DiffWRT(int) []bool { return []bool{true, true, true, true} }

// SymDiff builds one backward op that writes [dq | dk | dv | de] into one flat tensor, and views
// that pick each piece out of it.
func (op *copeOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	op.keep = true
	bwd := &copeGradOp{base: newBase("CoPEAttentionGrad", 5), fwd: op}
	packed, err := apply(bwd, in[0], in[1], in[2], in[3], grad)
	if err != nil {
		return nil, err
	}
	return unpack("CoPEAttentionGrad", packed, in)
}

// copeGradOp reads q, k, v, e and dy and the forward pass's kept weights, and writes [dq | dk |
// dv | de], recomputing each row's gates and positions.
type copeGradOp struct {
	base
	fwd *copeOp
	out buffer
}

func (op *copeGradOp) Type() hm.Type { return fnType(2, 2, 2, 2, 2, 1) }

func (op *copeGradOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	n := 0
	for i := range 4 {
		s, err := shapeOf(in, i)
		if err != nil {
			return nil, err
		}
		n += s.TotalSize()
	}
	return tensor.Shape{n}, nil
}

func (op *copeGradOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	q, k, v, e, dy := float64s(vs[0]), float64s(vs[1]), float64s(vs[2]), float64s(vs[3]), float64s(vs[4])
	f := op.fwd
	if f.out.t == nil || !f.ran {
		return nil, fmt.Errorf("ops: CoPEAttentionGrad before its forward pass")
	}
	d := f.dims()
	B, H, T := f.cfg.Batch, f.cfg.Heads, f.cfg.Len
	nq, ne := len(q), len(e)
	grad := make([]float64, 3*nq+ne)
	dq, dk, dv := grad[:nq], grad[nq:2*nq], grad[2*nq:3*nq]
	deBH := make([]float64, B*H*ne) // e's gradient of each sequence and head, summed in order below
	parallel(B*H, 4*T*T*d.dh, func(_, lo, hi int) {
		r := newCopeRow(T, d.npos)
		dP, dz, dl := make([]float64, T), make([]float64, T), make([]float64, d.npos)
		for bh := lo; bh < hi; bh++ {
			b, h := bh/H, bh%H
			de := deBH[bh*ne:][:ne]
			for i := range T {
				d.forward(r, q, k, e, b, h, i)
				for j := 0; j <= i; j++ {
					r.pr[j] = f.weight(bh, i, j) // the forward pass's weights, as rounded to the dtype
				}
				row := (b*T+i)*d.D + h*d.dh
				qi, dqi, dyi := q[row:][:d.dh], dq[row:][:d.dh], dy[row:][:d.dh]
				dot := 0.0
				for j := 0; j <= i; j++ {
					at := (b*T+j)*d.D + h*d.dh
					vj, dvj := v[at:][:d.dh], dv[at:][:d.dh]
					s := 0.0
					for x, g := range dyi {
						s += float64(g * vj[x])
						dvj[x] += float64(r.pr[j] * g)
					}
					dP[j] = s
					dot += float64(r.pr[j] * s)
				}
				clear(dl)
				clear(dz[:i+1])
				dgSum := 0.0 // Σ_{j ≤ t} dp_ij, accumulated as t grows
				for j := 0; j <= i; j++ {
					da := float64(r.pr[j] * (dP[j] - dot))
					fl, c := math.Floor(r.p[j]), math.Ceil(r.p[j])
					w := r.p[j] - fl
					dl[int(fl)] += float64(da * (1 - w))
					dl[int(c)] += float64(da * w)
					dp := 0.0
					if r.raw[j] <= float64(d.npos-1) { // the clamp passes the gradient up to its bound (torch.clamp's)
						dp = float64(da * (r.l[int(c)] - r.l[int(fl)]))
					}
					dgSum += dp
					dz[j] = da + float64(float64(dgSum*r.g[j])*(1-r.g[j])) // dg_ij = Σ_{j' ≤ j} dp_ij'
				}
				for m, g := range dl {
					em := e[m*d.dh:][:d.dh]
					for x := range dqi {
						dqi[x] += float64(g * em[x])
						de[m*d.dh+x] += float64(g * qi[x])
					}
				}
				for j := 0; j <= i; j++ {
					at := (b*T+j)*d.D + h*d.dh
					kj, dkj := k[at:][:d.dh], dk[at:][:d.dh]
					g := d.scale * dz[j]
					for x := range dqi {
						dqi[x] += float64(g * kj[x])
						dkj[x] += float64(g * qi[x])
					}
				}
			}
		}
	})
	de := grad[3*nq:]
	for bh := range B * H {
		for x, g := range deBH[bh*ne:][:ne] {
			de[x] += g
		}
	}
	out := op.out.get(dt, len(grad))
	switch o := out.Data().(type) {
	case []float64:
		copy(o, grad)
	case []float32:
		for i, x := range grad {
			o[i] = float32(x)
		}
	}
	return out, nil
}

func (op *copeGradOp) DiffWRT(int) []bool { return []bool{false, false, false, false, false} }

func (op *copeGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: CoPEAttentionGrad has no gradient of its own")
}
