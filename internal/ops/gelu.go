package ops

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// GELU is the exact Gaussian error linear unit x·Φ(x) = x/2·(1 + erf(x/√2)) (PyTorch's default),
// applied elementwise to a 2-D tensor.
func GELU(x *G.Node) (*G.Node, error) {
	return apply(&geluOp{base: newBase("GELU", 1)}, x)
}

type geluOp struct {
	base
	grad bool // when set, the op is the gradient: (x, g) ↦ g·GELU'(x)
	out  buffer
}

func (op *geluOp) Type() hm.Type {
	if op.grad {
		return fnType(2, 2, 2)
	}
	return fnType(2, 2)
}

func (op *geluOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	return s.Clone(), nil
}

func (op *geluOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	out := op.out.get(dt, vs[0].Shape()...)
	if dt == tensor.Float32 {
		geluKernel(sl[float32](vs[0]), op.gradOf32(vs), sl[float32](out))
	} else {
		geluKernel(sl[float64](vs[0]), op.gradOf64(vs), sl[float64](out))
	}
	return out, nil
}

func (op *geluOp) gradOf32(vs []G.Value) []float32 {
	if op.grad {
		return sl[float32](vs[1])
	}
	return nil
}

func (op *geluOp) gradOf64(vs []G.Value) []float64 {
	if op.grad {
		return sl[float64](vs[1])
	}
	return nil
}

const invSqrt2 = 0.70710678118654752440
const invSqrt2Pi = 0.39894228040143267794

// geluKernel writes GELU(x) to y, or g·GELU'(x) when g is not nil.
func geluKernel[F Float](x, g, y []F) {
	parallel(len(x), 20, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			v := float64(x[i])
			cdf := 0.5 * (1 + math.Erf(v*invSqrt2))
			if g == nil {
				y[i] = F(v * cdf)
			} else {
				y[i] = g[i] * F(cdf+v*invSqrt2Pi*math.Exp(-0.5*v*v))
			}
		}
	})
}

func (op *geluOp) DiffWRT(int) []bool {
	if op.grad {
		return []bool{false, false}
	}
	return []bool{true}
}

func (op *geluOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("ops: GELUGrad has no gradient of its own")
	}
	dx, err := apply(&geluOp{base: newBase("GELUGrad", 2), grad: true}, in[0], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}
