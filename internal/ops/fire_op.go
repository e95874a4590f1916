package ops

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// FIREBias builds FIRE's causal bias [H, T, T] from its parameters theta (a 1-D node of
// f.Size() values): out[h, i, j] = b_h(i, j) (FIRE) for the keys j ≤ i, 0 above the diagonal
// (hidden by the mask, never evaluated). It is computed in the graph's dtype, which must be the
// one f was made for, row by row, sixteen keys at a time (FIRE's Bias and BiasRow give the same
// bits). Its gradient sums over the pairs in a fixed order (fire_grad.go), whatever the number of
// cores.
func FIREBias(theta *G.Node, f *FIRE, T int) (*G.Node, error) {
	if s := theta.Shape(); len(s) != 1 || s[0] != f.Size() {
		return nil, fmt.Errorf("ops: FIREBias wants θ of %d values (%d heads, width %d), got %v", f.Size(), f.Heads(), f.Width, s)
	}
	if T < 1 || f.Heads() < 1 || f.Width < 1 {
		return nil, fmt.Errorf("ops: FIREBias: length %d, %d heads and width %d must be positive", T, f.Heads(), f.Width)
	}
	if f32 := theta.Dtype() == tensor.Float32; f32 != f.f32 {
		return nil, fmt.Errorf("ops: FIREBias: θ is %v but the FIRE was made for the other dtype; make it with NewFIRE(..., %v)", theta.Dtype(), theta.Dtype())
	}
	return apply(&fireBiasOp{base: newBase("FIREBias", 1), f: f, t: T}, theta)
}

type fireBiasOp struct {
	base
	f   *FIRE
	t   int
	out buffer
}

func (op *fireBiasOp) shape() tensor.Shape { return tensor.Shape{op.f.Heads(), op.t, op.t} }

func (op *fireBiasOp) Type() hm.Type { return fnType(1, 3) }

func (op *fireBiasOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape(), nil }

func (op *fireBiasOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := op.check(vs[0])
	if err != nil {
		return nil, err
	}
	out := op.out.get(dt, op.shape()...)
	theta := float64s(vs[0])
	if dt == tensor.Float32 {
		fireBiasFwd(params(op.f, &op.f.p32, theta, op.t), op.f, op.t, sl[float32](out))
	} else {
		fireBiasFwd(params(op.f, &op.f.p64, theta, op.t), op.f, op.t, sl[float64](out))
	}
	return out, nil
}

// check returns θ's dtype after checking its shape and dtype against the op's.
func (op *fireBiasOp) check(theta G.Value) (tensor.Dtype, error) {
	dt, err := dtypeOf(theta)
	if err != nil {
		return dt, err
	}
	if s := theta.Shape(); len(s) != 1 || s[0] != op.f.Size() {
		return dt, fmt.Errorf("ops: FIREBias: parameters are %v, want [%d]", s, op.f.Size())
	}
	if (dt == tensor.Float32) != op.f.f32 {
		return dt, fmt.Errorf("ops: FIREBias: parameters are %v, not the dtype the FIRE was made for", dt)
	}
	return dt, nil
}

func fireBiasFwd[F Float](p *fireParams[F], f *FIRE, T int, out []F) {
	H := f.Heads()
	for i := 0; i < T; i++ {
		fireRow(p, H, f.Width, i, i+1, out[i*T:], T*T)
		for h := 0; h < H; h++ {
			clear(out[h*T*T+i*T+i+1 : h*T*T+(i+1)*T])
		}
	}
}

func (op *fireBiasOp) DiffWRT(int) []bool { return []bool{true} }

func (op *fireBiasOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	g, err := apply(&fireBiasGradOp{base: newBase("FIREBiasGrad", 2), fwd: op}, in[0], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{g}, nil
}

// fireBiasGradOp is FIREBias's gradient: (θ [N], dout [H, T, T]) ↦ dθ [N].
type fireBiasGradOp struct {
	base
	fwd      *fireBiasOp
	out      buffer
	a32, p32 scratch[float32] // the lanes' sums [N, fireLanes], a chunk of scratch
	a64, p64 scratch[float64]
}

func (op *fireBiasGradOp) Type() hm.Type { return fnType(1, 3, 1) }

func (op *fireBiasGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.fwd.f.Size()}, nil
}

func (op *fireBiasGradOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := op.fwd.check(vs[0])
	if err != nil {
		return nil, err
	}
	if s := vs[1].Shape(); !s.Eq(op.fwd.shape()) {
		return nil, fmt.Errorf("ops: FIREBiasGrad: the gradient is %v, want %v", s, op.fwd.shape())
	}
	f, T := op.fwd.f, op.fwd.t
	theta := float64s(vs[0])
	dtheta := make([]float64, f.Size())
	if dt == tensor.Float32 {
		fireBiasBwd(params(f, &f.p32, theta, T), f, T, sl[float32](vs[1]), &op.a32, &op.p32, dtheta)
	} else {
		fireBiasBwd(params(f, &f.p64, theta, T), f, T, sl[float64](vs[1]), &op.a64, &op.p64, dtheta)
	}
	out := op.out.get(dt, f.Size())
	setFrom64(out, 0, dtheta)
	return out, nil
}

func fireBiasBwd[F Float](p *fireParams[F], f *FIRE, T int, g []F, accBuf, padBuf *scratch[F], dtheta []float64) {
	l := f.FIRELayout
	acc, pad := accBuf.get(l.Size()*fireLanes), padBuf.get((2+l.Heads)*fireLanes)
	clear(acc)
	for i := 0; i < T; i++ {
		fireGradRow(p, l, f.L0, i, 0, i+1, g[i*T:], T*T, acc, pad)
	}
	fireGradSum(l, acc, dtheta)
}

func (op *fireBiasGradOp) DiffWRT(int) []bool { return []bool{false, false} }
func (op *fireBiasGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: FIREBiasGrad has no gradient of its own")
}
