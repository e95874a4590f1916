package ops

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// PairFunc is a learnable per-head attention bias: a function of the query's token index i, the
// key's token index j and a parameter vector θ (KERPLE's log kernel, FIRE's MLP, ...). The
// function is the scheme's; PairBias turns it into an op with its gradient.
type PairFunc interface {
	// Heads is the number of biases per pair.
	Heads() int
	// Bias writes the bias of every head for query i and key j into out (len Heads()), in
	// float64.
	Bias(theta []float64, i, j int, out []float64)
	// BiasGrad adds to dtheta the gradient with respect to θ of Σ_h g[h]·Bias(θ, i, j)[h].
	BiasGrad(theta []float64, i, j int, g, dtheta []float64)
}

// PairBias builds the bias [H, T, T] of a PairFunc from its parameters theta (a 1-D node): out[h,
// i, j] = f.Bias(θ, i, j)[h]. With causal, the pairs j > i (hidden by the mask) are 0 and never
// evaluated. The values are computed in float64 and rounded to the graph's dtype; the gradient
// sums over the pairs in a fixed order, so its bits do not depend on the number of cores.
func PairBias(theta *G.Node, f PairFunc, T int, causal bool) (*G.Node, error) {
	s := theta.Shape()
	if len(s) != 1 {
		return nil, fmt.Errorf("ops: PairBias wants a 1-D parameter vector, got %v", s)
	}
	if T < 1 || f.Heads() < 1 {
		return nil, fmt.Errorf("ops: PairBias: length %d and %d heads must be positive", T, f.Heads())
	}
	op := &pairBiasOp{base: newBase("PairBias", 1), f: f, n: s[0], t: T, causal: causal}
	return apply(op, theta)
}

type pairBiasOp struct {
	base
	f      PairFunc
	n, t   int // parameters, length
	causal bool
	out    buffer
}

func (op *pairBiasOp) Type() hm.Type { return fnType(1, 3) }

func (op *pairBiasOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.f.Heads(), op.t, op.t}, nil
}

// pairs calls fn for every pair the op evaluates, in row-major order.
func (op *pairBiasOp) pairs(fn func(i, j int)) {
	for i := 0; i < op.t; i++ {
		last := op.t - 1
		if op.causal {
			last = i
		}
		for j := 0; j <= last; j++ {
			fn(i, j)
		}
	}
}

func float64sOf(v G.Value) []float64 {
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

func (op *pairBiasOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	if s := vs[0].Shape(); len(s) != 1 || s[0] != op.n {
		return nil, fmt.Errorf("ops: PairBias: parameters are %v, want [%d]", s, op.n)
	}
	H, T := op.f.Heads(), op.t
	theta := float64sOf(vs[0])
	vals := make([]float64, H*T*T)
	b := make([]float64, H)
	op.pairs(func(i, j int) {
		op.f.Bias(theta, i, j, b)
		for h, x := range b {
			vals[(h*T+i)*T+j] = x
		}
	})
	out := op.out.get(dt, H, T, T)
	switch d := out.Data().(type) {
	case []float64:
		copy(d, vals)
	case []float32:
		for k, x := range vals {
			d[k] = float32(x)
		}
	}
	return out, nil
}

func (op *pairBiasOp) DiffWRT(int) []bool { return []bool{true} }

func (op *pairBiasOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	g, err := apply(&pairBiasGradOp{base: newBase("PairBiasGrad", 2), fwd: op}, in[0], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{g}, nil
}

// pairBiasGradOp is PairBias's gradient: (θ [N], dout [H, T, T]) ↦ dθ [N].
type pairBiasGradOp struct {
	base
	fwd *pairBiasOp
	out buffer
}

func (op *pairBiasGradOp) Type() hm.Type { return fnType(1, 3, 1) }

func (op *pairBiasGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.fwd.n}, nil
}

func (op *pairBiasGradOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	f, T := op.fwd.f, op.fwd.t
	H := f.Heads()
	theta, gout := float64sOf(vs[0]), float64sOf(vs[1])
	dtheta := make([]float64, op.fwd.n)
	g := make([]float64, H)
	op.fwd.pairs(func(i, j int) {
		for h := range g {
			g[h] = gout[(h*T+i)*T+j]
		}
		f.BiasGrad(theta, i, j, g, dtheta)
	})
	out := op.out.get(dt, op.fwd.n)
	switch d := out.Data().(type) {
	case []float64:
		copy(d, dtheta)
	case []float32:
		for k, x := range dtheta {
			d[k] = float32(x)
		}
	}
	return out, nil
}

func (op *pairBiasGradOp) DiffWRT(int) []bool { return []bool{false, false} }
func (op *pairBiasGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: PairBiasGrad has no gradient of its own")
}
