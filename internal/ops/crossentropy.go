package ops

import (
	"fmt"

	"github.com/chewxy/hm"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// CrossEntropy is the weighted mean negative log-likelihood Σₙ wₙ·(−log softmax(logitsₙ)[targetₙ]) / Σₙ wₙ
// for logits [N, V], integer targets [N] (held as floats) and weights [N]. Rows with weight 0 (the
// input half of a task's stream, padding) cost nothing; if every weight is 0 the loss is 0.
// The softmax subtracts each row's own maximum, so large logits never overflow.
func CrossEntropy(logits, targets, weights *G.Node) (*G.Node, error) {
	return apply(&crossEntropyOp{base: newBase("CrossEntropy", 3)}, logits, targets, weights)
}

type crossEntropyOp struct {
	base
	grad bool // the gradient op: (logits, targets, weights, g) ↦ dlogits
	out  buffer
}

func (op *crossEntropyOp) Type() hm.Type {
	if op.grad {
		return fnType(2, 1, 1, 0, 2)
	}
	return fnType(2, 1, 1, 0)
}

func (op *crossEntropyOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	ls, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	ts, err := shapeOf(in, 1)
	if err != nil {
		return nil, err
	}
	if len(ls) != 2 || ts.TotalSize() != ls[0] {
		return nil, fmt.Errorf("ops: CrossEntropy shapes logits %v, targets %v do not fit (want [N,V], [N])", ls, ts)
	}
	if op.grad {
		return ls.Clone(), nil
	}
	return tensor.ScalarShape(), nil
}

func (op *crossEntropyOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs[:3]...)
	if err != nil {
		return nil, err
	}
	s := vs[0].Shape()
	g := 0.0
	var out *tensor.Dense
	if op.grad {
		if g, err = scalar(vs[3]); err != nil {
			return nil, err
		}
		out = op.out.get(dt, s...)
	}
	var loss float64
	if dt == tensor.Float32 {
		var o []float32
		if out != nil {
			o = sl[float32](out)
		}
		loss, err = crossEntropy(sl[float32](vs[0]), sl[float32](vs[1]), sl[float32](vs[2]), o, float32(g), s[0], s[1])
	} else {
		var o []float64
		if out != nil {
			o = sl[float64](out)
		}
		loss, err = crossEntropy(sl[float64](vs[0]), sl[float64](vs[1]), sl[float64](vs[2]), o, g, s[0], s[1])
	}
	if err != nil {
		return nil, err
	}
	if op.grad {
		return out, nil
	}
	return scalarValue(dt, loss)
}

// crossEntropy returns the loss; when dl is not nil it also writes g·dloss/dlogits there.
func crossEntropy[F Float](logits, targets, w, dl []F, g F, n, v int) (float64, error) {
	var wsum float64
	for _, x := range w {
		wsum += float64(x)
	}
	if dl != nil {
		clear(dl)
	}
	if wsum == 0 {
		return 0, nil
	}
	// Rows over the workers; each row's loss is kept and the sum runs over the rows in order.
	rowLoss := make([]float64, n)
	nw := workers()
	errs := make([]error, nw)
	parallelW(nw, n, 8*v, func(worker, lo, hi int) {
		e := make([]float64, v) // one row's exponentials
		for r := lo; r < hi; r++ {
			if w[r] == 0 {
				continue
			}
			t, err := index(targets[r], v)
			if err != nil {
				errs[worker] = fmt.Errorf("ops: CrossEntropy target: %w", err)
				return
			}
			row := logits[r*v : (r+1)*v]
			mx := row[0]
			for _, x := range row[1:] {
				mx = max(mx, x)
			}
			for j, x := range row {
				e[j] = float64(x - mx)
			}
			expRow[F](e)
			var z float64
			for _, x := range e {
				z += x
			}
			lse := float64(mx) + pmath.Log(z) // amd64's bits on every CPU
			rowLoss[r] = float64(w[r]) * (lse - float64(row[t]))
			if dl != nil {
				scale := F(g * F(float64(w[r])/wsum)) // F(): d[t] -= scale does not fuse on arm64
				d := dl[r*v : (r+1)*v]
				for j, x := range row {
					e[j] = float64(x) - lse
				}
				expRow[F](e)
				for j, x := range e {
					d[j] = scale * F(x)
				}
				d[t] -= scale
			}
		}
	})
	for _, err := range errs {
		if err != nil {
			return 0, err
		}
	}
	var loss float64
	for _, l := range rowLoss {
		loss += l
	}
	return loss / wsum, nil
}

// expRow replaces every y[i] (≤ 0) by exp(y[i]): math.Exp in float64 graphs, the cheaper
// expFast (relative error below 1e-12) in float32 ones, eight at a time on CPUs with AVX-512 DQ
// (expFast8), four with AVX2 (expFast4): the same bits as expFast.
func expRow[F Float](y []float64) {
	var z F
	if _, ok := any(z).(float32); !ok {
		for i, v := range y {
			y[i] = pmath.Exp(v)
		}
		return
	}
	i := 0
	switch {
	case useKernels && haveAVX512DQ:
		expFast8(y)
		i = len(y) &^ 7
	case useKernels && haveKernels:
		expFast4(y)
		i = len(y) &^ 3
	}
	for ; i < len(y); i++ {
		y[i] = expFast(y[i])
	}
}

func (op *crossEntropyOp) DiffWRT(int) []bool {
	if op.grad {
		return []bool{false, false, false, false}
	}
	return []bool{true, false, false}
}

func (op *crossEntropyOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("ops: CrossEntropyGrad has no gradient of its own")
	}
	d, err := apply(&crossEntropyOp{base: newBase("CrossEntropyGrad", 4), grad: true}, in[0], in[1], in[2], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{d, nil, nil}, nil
}
