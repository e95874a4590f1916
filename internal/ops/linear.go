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
		// The graph was checked when built (InferShape), so this is a graph that feeds Linear
		// another node's value (model.Build refuses the Gorgonia hash collisions that once did);
		// refuse it rather than index out of range.
		return nil, fmt.Errorf("ops: Linear got x %v, W %v, b %v at run time (want [N,I], [I,O], [O]): the graph fed Linear a value of another shape than it was built for; the run's checkpoint is kept, continue it with -resume", xs, ws, vs[2].Shape())
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
		gemmSerial(kern, false, false, m, n, k, 1, a, lda, any(b).([]float32), ldb, any(c).([]float32), ldc, false, nil, any(bias).([]float32), nil)
	case []float64:
		gemmSerial(kernel64, false, false, m, n, k, 1, a, lda, any(b).([]float64), ldb, any(c).([]float64), ldc, false, nil, any(bias).([]float64), nil)
	}
}

func (op *linearOp) DiffWRT(int) []bool { return []bool{true, true, true} }

func (op *linearOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	dx, err := apply(&matmulOp{base: newBase("LinearGradX", 2), tB: true}, grad, in[1]) // g·Wᵀ [N, I]
	if err != nil {
		return nil, err
	}
	// xᵀ·g [I, O] and the column sums of g [O], packed as [I+1, O]: the sums are taken while the
	// product packs g (gemmTNSums), which saves ColSum's own pass over g.
	dwb, err := apply(&matmulOp{base: newBase("LinearGradWB", 2), tA: true, sums: true}, in[0], grad)
	if err != nil {
		return nil, err
	}
	ws := in[1].Shape()
	dw, err := apply(&pickOp{base: newBase("LinearGradWB.w", 1), shape: ws.Clone()}, dwb) // [I, O]
	if err != nil {
		return nil, err
	}
	db, err := apply(&pickOp{base: newBase("LinearGradWB.b", 1), offset: ws.TotalSize(), shape: in[2].Shape().Clone()}, dwb) // [O]
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx, dw, db}, nil
}

// gemmTNSums computes C = Aᵀ·B (A [k, m], B [k, n], row-major) and sums[j] = Σ_p B[p, j] (rows
// in order, so ColSum's bits), the sums taken while the product packs B. Where the product
// does not go through posformer's kernels (the BLAS variable), or goes as its transpose
// (tnTransposed: gemmTNSumsT), the sums are a separate colSum.
func gemmTNSums[F Float](m, n, k int, a []F, lda int, b []F, ldb int, c []F, ldc int, sums []F) {
	if usesBLAS(m, n, k) || m <= 0 || n <= 0 || k <= 0 || ldb != n {
		gemm(true, false, m, n, k, 1, a, lda, b, ldb, 0, c, ldc)
		colSum(b[:k*n], sums, k, n)
		return
	}
	switch a := any(a).(type) {
	case []float32:
		if tnTransposed(m, n, k) {
			gemmTNSumsT(kernel32, m, n, k, a, lda, any(b).([]float32), ldb, any(c).([]float32), ldc, any(sums).([]float32))
			return
		}
		kern := kernel32
		if useWide(true, m, n, k, 1) {
			kern = kernel32wide
		}
		gemmTNSumsKern(kern, m, n, k, a, lda, any(b).([]float32), ldb, any(c).([]float32), ldc, any(sums).([]float32))
	case []float64:
		gemmTNSumsKern(kernel64, m, n, k, a, lda, any(b).([]float64), ldb, any(c).([]float64), ldc, any(sums).([]float64))
	}
}

// gemmTNSumsT is gemmTNSums computing Cᵀ = Bᵀ·A [n, m] with the kernel kern and transposing it
// into C, the column sums of B taken by colSum. Each element of C is the same chain of fused
// multiply-adds over k as in gemmTNSumsKern (the two factors of each swapped, which changes no
// bit), added by the same blocks of k, and the sums add B's rows in order: the same bits. For a
// C with more rows than columns (the second MLP layer's weight gradient, A [4096, 1024]), B is
// then read in place down its columns and A packed by columns, split over the workers by
// columns of A: no worker packs all of B or transposes blocks of A.
func gemmTNSumsT(kern microKernel[float32], m, n, k int, a []float32, lda int, b []float32, ldb int, c []float32, ldc int, sums []float32) {
	pool := poolOf[float32]()
	ctp := pool.get(n * m)
	defer pool.put(ctp)
	ct := *ctp // Cᵀ [n, m]
	splitGemm(n, m, k, kern.mr, kern.nr, func(i0, i1, j0, j1 int) {
		gemmSerial(kern, true, false, i1-i0, j1-j0, k, 1, b[i0:], ldb, a[j0:], lda, ct[i0*m+j0:], m, false, nil, nil, nil)
	})
	parallel(m, n, func(_, lo, hi int) { transposeRows(c[lo*ldc:], ldc, ct[lo:], m, hi-lo, n) }) // Cᵀ [n, m] -> C [m, n]
	colSum(b[:k*ldb], sums, k, n)
}

// gemmTNSumsKern is gemmTNSums with the kernel kern, split over the workers by rows when C has
// more rows than columns, else by columns (a square C too: then each worker packs only its half
// of B and sums only its columns, where a split by rows has every worker pack all of B and the
// first one sum all of it; AVX2 TN 256×256×4096 1.13x per CPU second). The blocks of C in the
// first row of blocks sum their columns (all of them when the split goes by rows, one range each
// when it goes by columns); which worker computes an element does not change its bits.
func gemmTNSumsKern[F Float](kern microKernel[F], m, n, k int, a []F, lda int, b []F, ldb int, c []F, ldc int, sums []F) {
	splitGemmBy(m > n, m, n, k, kern.mr, kern.nr, func(i0, i1, j0, j1 int) {
		var s []F
		if i0 == 0 {
			s = sums[j0:j1]
		}
		gemmSerial(kern, true, false, i1-i0, j1-j0, k, 1, a[i0:], lda, b[j0:], ldb, c[i0*ldc+j0:], ldc, false, nil, nil, s)
	})
}

// matmulOp is op(A)·op(B) for 2-D operands; it only serves as a gradient, so it has no gradient itself.
type matmulOp struct {
	base
	tA, tB bool
	// sums (with tA, not tB) appends a row to the output: the column sums of the second operand
	// (the bias gradient beside the weight gradient xᵀ·g), so the output is [m+1, n].
	sums bool
	out  buffer
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
	if op.sums {
		m++
	}
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
	if op.sums {
		if !op.tA || op.tB {
			return nil, fmt.Errorf("ops: %s sums the columns of B only for Aᵀ·B", op.name)
		}
		out := op.out.get(dt, m+1, n)
		if dt == tensor.Float32 {
			o := sl[float32](out)
			gemmTNSums(m, n, k, sl[float32](vs[0]), a[1], sl[float32](vs[1]), b[1], o[:m*n], n, o[m*n:])
		} else {
			o := sl[float64](out)
			gemmTNSums(m, n, k, sl[float64](vs[0]), a[1], sl[float64](vs[1]), b[1], o[:m*n], n, o[m*n:])
		}
		return out, nil
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
	parallel(d, n, func(_, lo, hi int) { colSumRows(x[lo:], y[lo:hi], n, d) })
}

// colSumRows writes to y[j] the sum of x[r·ld+j] over the rows r < n, in row order (eight
// columns at a time in assembly, the rest here: the same additions in the same order).
func colSumRows[F Float](x, y []F, n, ld int) {
	j := 0
	if y32, ok := any(y).([]float32); ok && useKernels && n > 0 {
		colSum8(y32, any(x).([]float32)[:(n-1)*ld+len(y)], n, ld)
		j = len(y) &^ 7
	}
	yy := y[j:]
	clear(yy)
	for r := 0; r < n; r++ {
		for c, v := range x[r*ld+j : r*ld+len(y)] {
			yy[c] += v
		}
	}
}

func (op *colSumOp) DiffWRT(int) []bool { return []bool{false} }
func (op *colSumOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: ColSum is a gradient and has no gradient of its own")
}
