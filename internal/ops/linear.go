package ops

import (
	"fmt"

	"github.com/chewxy/hm"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Linear returns x·W + b for x [N, I], W [I, O], b [O]: the output is [N, O].
func Linear(x, w, b *G.Node) (*G.Node, error) {
	return apply(&linearOp{base: newBase("Linear", 3)}, x, w, b)
}

type linearOp struct {
	base
	out buffer
}

func (op *linearOp) Type() hm.Type { return fnType(2, 2, 1, 2) }

func (op *linearOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	xs, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	ws, err := shapeOf(in, 1)
	if err != nil {
		return nil, err
	}
	bs, err := shapeOf(in, 2)
	if err != nil {
		return nil, err
	}
	if len(xs) != 2 || len(ws) != 2 || xs[1] != ws[0] || bs.TotalSize() != ws[1] {
		return nil, fmt.Errorf("ops: Linear shapes x %v, W %v, b %v do not fit (want [N,I], [I,O], [O])", xs, ws, bs)
	}
	return tensor.Shape{xs[0], ws[1]}, nil
}

func (op *linearOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	xs, ws := vs[0].Shape(), vs[1].Shape()
	if len(xs) != 2 || len(ws) != 2 || xs[1] != ws[0] || vs[2].Shape().TotalSize() != ws[1] {
		// The graph was checked when built (InferShape), so a value whose shape changed since is
		// a fault elsewhere; refuse it rather than index out of range.
		return nil, fmt.Errorf("ops: Linear got x %v, W %v, b %v at run time (want [N,I], [I,O], [O]): a value's shape changed after the graph was built; the run's checkpoint is kept, continue it with -resume", xs, ws, vs[2].Shape())
	}
	out := op.out.get(dt, xs[0], ws[1])
	if dt == tensor.Float32 {
		linearFwd(sl[float32](vs[0]), sl[float32](vs[1]), sl[float32](vs[2]), sl[float32](out), xs[0], xs[1], ws[1])
	} else {
		linearFwd(sl[float64](vs[0]), sl[float64](vs[1]), sl[float64](vs[2]), sl[float64](out), xs[0], xs[1], ws[1])
	}
	return out, nil
}

// linearFwd splits the rows over the workers; each fills its rows with the bias and adds x·W.
// When the product goes to the BLAS variable (the openblas build), whose results can depend on
// the shape of each call, the bias is filled first and the product is one gemm, which cuts it
// the same way on any number of workers.
func linearFwd[F Float](x, w, b, y []F, n, in, o int) {
	if usesBLAS(n, o, in) {
		parallel(n, o, func(_, lo, hi int) {
			for r := lo; r < hi; r++ {
				copy(y[r*o:(r+1)*o], b)
			}
		})
		gemm(false, false, n, o, in, 1, x, in, w, o, 1, y, o)
		return
	}
	parallel(n, 2*in*o, func(_, lo, hi int) {
		if in == 0 {
			for r := lo; r < hi; r++ {
				copy(y[r*o:(r+1)*o], b)
			}
			return
		}
		gemmBias1(hi-lo, o, in, x[lo*in:], in, w, o, b, y[lo*o:], o)
	})
}

// gemmBias1 computes C = A·B + bias (row-major; A m×k, B k×n, k ≥ 1; bias[j] added to every
// row's column j) with posformer's kernels on the calling goroutine: the bits of filling C with
// bias rows and adding A·B with beta 1, without the fill's pass over C (gemmSerial adds the bias
// as it stores each tile of the first block of k).
func gemmBias1[F Float](m, n, k int, a []F, lda int, b []F, ldb int, bias []F, c []F, ldc int) {
	if m <= 0 || n <= 0 {
		return
	}
	switch a := any(a).(type) {
	case []float32:
		kern := kernel32
		if useWide(false, m, n, k, 1) {
			kern = kernel32wide
		}
		gemmSerial(kern, false, false, m, n, k, 1, a, lda, any(b).([]float32), ldb, any(c).([]float32), ldc, false, nil, any(bias).([]float32))
	case []float64:
		gemmSerial(kernel64, false, false, m, n, k, 1, a, lda, any(b).([]float64), ldb, any(c).([]float64), ldc, false, nil, any(bias).([]float64))
	}
}

func (op *linearOp) DiffWRT(int) []bool { return []bool{true, true, true} }

func (op *linearOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	dx, err := apply(&matmulOp{base: newBase("LinearGradX", 2), tB: true}, grad, in[1]) // g·Wᵀ [N, I]
	if err != nil {
		return nil, err
	}
	dw, err := apply(&matmulOp{base: newBase("LinearGradW", 2), tA: true}, in[0], grad) // xᵀ·g [I, O]
	if err != nil {
		return nil, err
	}
	db, err := ColSum(grad) // [O]
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx, dw, db}, nil
}

// matmulOp is op(A)·op(B) for 2-D operands; it only serves as a gradient, so it has no gradient itself.
type matmulOp struct {
	base
	tA, tB bool
	out    buffer
}

func (op *matmulOp) Type() hm.Type { return fnType(2, 2, 2) }

func (op *matmulOp) dims(a, b tensor.Shape) (m, n, k int, err error) {
	if len(a) != 2 || len(b) != 2 {
		return 0, 0, 0, fmt.Errorf("ops: %s wants 2-D operands, got %v and %v", op.name, a, b)
	}
	m, k = a[0], a[1]
	if op.tA {
		m, k = k, m
	}
	k2, n := b[0], b[1]
	if op.tB {
		k2, n = n, k2
	}
	if k != k2 {
		return 0, 0, 0, fmt.Errorf("ops: %s inner dimensions differ: %v and %v", op.name, a, b)
	}
	return m, n, k, nil
}

func (op *matmulOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	a, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	b, err := shapeOf(in, 1)
	if err != nil {
		return nil, err
	}
	m, n, _, err := op.dims(a, b)
	return tensor.Shape{m, n}, err
}

func (op *matmulOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	a, b := vs[0].Shape(), vs[1].Shape()
	m, n, k, err := op.dims(a, b)
	if err != nil {
		return nil, err
	}
	out := op.out.get(dt, m, n)
	if dt == tensor.Float32 {
		gemm(op.tA, op.tB, m, n, k, 1, sl[float32](vs[0]), a[1], sl[float32](vs[1]), b[1], 0, sl[float32](out), n)
	} else {
		gemm(op.tA, op.tB, m, n, k, 1, sl[float64](vs[0]), a[1], sl[float64](vs[1]), b[1], 0, sl[float64](out), n)
	}
	return out, nil
}

func (op *matmulOp) DiffWRT(int) []bool { return []bool{false, false} }
func (op *matmulOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: %s is a gradient and has no gradient of its own", op.name)
}

// ColSum sums a [N, D] matrix over its rows: the result is [D]. Used as the gradient of a bias.
func ColSum(x *G.Node) (*G.Node, error) {
	return apply(&colSumOp{base: newBase("ColSum", 1)}, x)
}

type colSumOp struct {
	base
	out buffer
}

func (op *colSumOp) Type() hm.Type { return fnType(2, 1) }
func (op *colSumOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	if len(s) != 2 {
		return nil, fmt.Errorf("ops: ColSum wants a 2-D input, got %v", s)
	}
	return tensor.Shape{s[1]}, nil
}

func (op *colSumOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	s := vs[0].Shape()
	out := op.out.get(dt, s[1])
	if dt == tensor.Float32 {
		colSum(sl[float32](vs[0]), sl[float32](out), s[0], s[1])
	} else {
		colSum(sl[float64](vs[0]), sl[float64](out), s[0], s[1])
	}
	return out, nil
}

// colSum splits the columns over the workers, so every sum runs over the rows in order.
func colSum[F Float](x, y []F, n, d int) {
	parallel(d, n, func(_, lo, hi int) {
		yy := y[lo:hi]
		j := 0
		if y32, ok := any(yy).([]float32); ok && useKernels && n > 0 {
			colSum8(y32, any(x[lo:]).([]float32)[:(n-1)*d+hi-lo], n, d)
			j = (hi - lo) &^ 7
		}
		yy = yy[j:]
		clear(yy)
		for r := 0; r < n; r++ {
			row := x[r*d+lo+j : r*d+hi]
			for c, v := range row {
				yy[c] += v
			}
		}
	})
}

func (op *colSumOp) DiffWRT(int) []bool { return []bool{false} }
func (op *colSumOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: ColSum is a gradient and has no gradient of its own")
}
