package ops

import (
	"fmt"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Add returns a + b for two 2-D tensors of one shape (the residual connections and the
// additive position encodings). Gorgonia's built-in Add clones and adds on one core, one element
// at a time; this op writes into its own buffer, eight float32 at a time, split over the workers.
// Its gradient passes the output's gradient to both inputs unchanged.
func Add(a, b *G.Node) (*G.Node, error) {
	return apply(&addOp{base: newBase("Add", 2)}, a, b)
}

type addOp struct {
	base
	out buffer
}

func (op *addOp) Type() hm.Type { return fnType(2, 2, 2) }

func (op *addOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	a, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	b, err := shapeOf(in, 1)
	if err != nil {
		return nil, err
	}
	if len(a) != 2 || !a.Eq(b) {
		return nil, fmt.Errorf("ops: Add wants two 2-D tensors of one shape, got %v and %v", a, b)
	}
	return a.Clone(), nil
}

func (op *addOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	if !vs[0].Shape().Eq(vs[1].Shape()) {
		return nil, fmt.Errorf("ops: Add got shapes %v and %v", vs[0].Shape(), vs[1].Shape())
	}
	out := op.out.get(dt, vs[0].Shape()...)
	if dt == tensor.Float32 {
		addKernel(sl[float32](vs[0]), sl[float32](vs[1]), sl[float32](out))
	} else {
		addKernel(sl[float64](vs[0]), sl[float64](vs[1]), sl[float64](out))
	}
	return out, nil
}

// addKernel writes a + b to y in blocks of eight elements split over the workers (y may alias a
// or b).
func addKernel[F Float](a, b, y []F) {
	parallel((len(y)+7)/8, 24, func(_, lo, hi int) {
		lo, hi = 8*lo, min(8*hi, len(y))
		addInto(y[lo:hi], a[lo:hi], b[lo:hi])
	})
}

func (op *addOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *addOp) SymDiff(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	return G.Nodes{grad, grad}, nil
}
