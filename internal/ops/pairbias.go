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

// RowFunc is a PairFunc that also computes a whole row of pairs at once, faster than pair by
// pair (what depends on the query alone computed once), with Bias's values bit for bit.
// PairBias and Attention's RowBias use it when a PairFunc has it.
type RowFunc interface {
	PairFunc
	// BiasRow writes Bias(θ, i, j)[h] to out[h·stride + j] for the keys j < n.
	BiasRow(theta []float64, i, n int, out []float64, stride int)
}

// biasRow writes f's biases of query i and keys j < n to out[h·stride + j], through BiasRow
// when f has it; b is scratch of f.Heads() values.
func biasRow(f PairFunc, theta []float64, i, n int, out []float64, stride int, b []float64) {
	if rf, ok := f.(RowFunc); ok {
		rf.BiasRow(theta, i, n, out, stride)
		return
	}
	for j := 0; j < n; j++ {
		f.Bias(theta, i, j, b)
		for h, x := range b {
			out[h*stride+j] = x
		}
	}
}

// PairBias builds the bias [H, T, T] of a PairFunc from its parameters theta (a 1-D node): out[h,
// i, j] = f.Bias(θ, i, j)[h]. With causal, the pairs j > i (hidden by the mask) are 0 and never
// evaluated. The values are computed in float64 and rounded to the graph's dtype; the gradient
// sums over the pairs in a fixed order, so its bits do not depend on the number of cores.
func PairBias(theta *G.Node, f PairFunc, T int, causal bool) (*G.Node, error) {
	return pairBias("PairBias", theta, f, T, causal, false)
}

func pairBias(name string, theta *G.Node, f PairFunc, T int, causal, byDist bool) (*G.Node, error) {
	s := theta.Shape()
	if len(s) != 1 {
		return nil, fmt.Errorf("ops: %s wants a 1-D parameter vector, got %v", name, s)
	}
	if T < 1 || f.Heads() < 1 {
		return nil, fmt.Errorf("ops: %s: length %d and %d heads must be positive", name, T, f.Heads())
	}
	op := &pairBiasOp{base: newBase(name, 1), f: f, n: s[0], t: T, causal: causal, byDist: byDist}
	return apply(op, theta)
}

// DistanceBias is PairBias for a PairFunc that depends on i − j only (KERPLE's): the result is
// the table by distance [H, 2T−1] that Attention takes, entry (h, d + T − 1) = f.Bias(θ, i, j)[h]
// for one pair with i − j = d (i = max(d, 0), j = max(−d, 0)); with causal the distances d < 0
// (hidden by the mask) are 0 and never evaluated. Its gradient sums f.BiasGrad over the
// distances, each weighted by the incoming gradient of its entry (the sum, in Attention's
// gradient, over the pairs at that distance).
func DistanceBias(theta *G.Node, f PairFunc, T int, causal bool) (*G.Node, error) {
	return pairBias("DistanceBias", theta, f, T, causal, true)
}

type pairBiasOp struct {
	base
	f      PairFunc
	n, t   int // parameters, length
	causal bool
	byDist bool // one entry per distance, [H, 2T−1] (DistanceBias)
	out    buffer
}

// perHead is the number of entries of one head: T·T pairs, or 2T−1 distances.
func (op *pairBiasOp) perHead() int {
	if op.byDist {
		return 2*op.t - 1
	}
	return op.t * op.t
}

func (op *pairBiasOp) shape() tensor.Shape {
	if op.byDist {
		return tensor.Shape{op.f.Heads(), 2*op.t - 1}
	}
	return tensor.Shape{op.f.Heads(), op.t, op.t}
}

func (op *pairBiasOp) Type() hm.Type { return fnType(1, len(op.shape())) }

func (op *pairBiasOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape(), nil }

// pairs calls fn for every pair the op evaluates, with its entry k within a head's slab: in
// row-major order (k = i·T + j), or by distance d = −(T−1) … T−1 (k = d + T − 1) for one pair each.
func (op *pairBiasOp) pairs(fn func(i, j, k int)) {
	if op.byDist {
		first := -(op.t - 1)
		if op.causal {
			first = 0
		}
		for d := first; d < op.t; d++ {
			fn(max(d, 0), max(-d, 0), d+op.t-1)
		}
		return
	}
	for i := 0; i < op.t; i++ {
		last := op.t - 1
		if op.causal {
			last = i
		}
		for j := 0; j <= last; j++ {
			fn(i, j, i*op.t+j)
		}
	}
}

// setFrom64 writes vals into t (float64 or float32) from offset o, rounding to t's dtype.
func setFrom64(t *tensor.Dense, o int, vals []float64) {
	switch d := t.Data().(type) {
	case []float64:
		copy(d[o:], vals)
	case []float32:
		for k, x := range vals {
			d[o+k] = float32(x)
		}
	}
}

func (op *pairBiasOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	if s := vs[0].Shape(); len(s) != 1 || s[0] != op.n {
		return nil, fmt.Errorf("ops: PairBias: parameters are %v, want [%d]", s, op.n)
	}
	H, n := op.f.Heads(), op.perHead()
	theta := float64s(vs[0])
	vals := make([]float64, H*n)
	b := make([]float64, H)
	if op.byDist {
		op.pairs(func(i, j, k int) {
			op.f.Bias(theta, i, j, b)
			for h, x := range b {
				vals[h*n+k] = x
			}
		})
	} else { // row by row: the pairs (i, j ≤ last) of row i are entries i·T + j
		for i := 0; i < op.t; i++ {
			last := op.t
			if op.causal {
				last = i + 1
			}
			biasRow(op.f, theta, i, last, vals[i*op.t:], n, b)
		}
	}
	out := op.out.get(dt, op.shape()...)
	setFrom64(out, 0, vals)
	return out, nil
}

func (op *pairBiasOp) DiffWRT(int) []bool { return []bool{true} }

func (op *pairBiasOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	g, err := apply(&pairBiasGradOp{base: newBase(op.name+"Grad", 2), fwd: op}, in[0], grad)
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

func (op *pairBiasGradOp) Type() hm.Type { return fnType(1, len(op.fwd.shape()), 1) }

func (op *pairBiasGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.fwd.n}, nil
}

func (op *pairBiasGradOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	f, n := op.fwd.f, op.fwd.perHead()
	H := f.Heads()
	theta, gout := float64s(vs[0]), float64s(vs[1])
	dtheta := make([]float64, op.fwd.n)
	g := make([]float64, H)
	op.fwd.pairs(func(i, j, k int) {
		for h := range g {
			g[h] = gout[h*n+k]
		}
		f.BiasGrad(theta, i, j, g, dtheta)
	})
	out := op.out.get(dt, op.fwd.n)
	setFrom64(out, 0, dtheta)
	return out, nil
}

func (op *pairBiasGradOp) DiffWRT(int) []bool { return []bool{false, false} }
func (op *pairBiasGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: PairBiasGrad has no gradient of its own")
}
