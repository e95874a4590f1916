package ops

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Embed gathers rows of table [R, D] at the integer indices idx [N] (held as floats): the
// result is [N, D]. An index outside [0, R) is a run-time error naming it. Its gradient
// scatter-adds into the table, so repeated indices accumulate.
func Embed(table, idx *G.Node) (*G.Node, error) {
	s := table.Shape()
	if len(s) != 2 {
		return nil, fmt.Errorf("ops: Embed wants a 2-D table, got %v", s)
	}
	return apply(&embedOp{base: newBase("Embed", 2), rows: s[0]}, table, idx)
}

type embedOp struct {
	base
	rows int
	out  buffer
}

func (op *embedOp) Type() hm.Type { return fnType(2, 1, 2) }

func (op *embedOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	ts, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	is, err := shapeOf(in, 1)
	if err != nil {
		return nil, err
	}
	return tensor.Shape{is.TotalSize(), ts[1]}, nil
}

// index converts a float index and checks it.
func index[F Float](v F, rows int) (int, error) {
	i := int(v)
	if F(i) != v || i < 0 || i >= rows || math.IsNaN(float64(v)) {
		return 0, fmt.Errorf("ops: index %v is outside the table's %d rows", v, rows)
	}
	return i, nil
}

func (op *embedOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	d := vs[0].Shape()[1]
	n := vs[1].Shape().TotalSize()
	out := op.out.get(dt, n, d)
	if dt == tensor.Float32 {
		err = gather(sl[float32](vs[0]), sl[float32](vs[1]), sl[float32](out), op.rows, d)
	} else {
		err = gather(sl[float64](vs[0]), sl[float64](vs[1]), sl[float64](out), op.rows, d)
	}
	return out, err
}

func gather[F Float](table, idx, out []F, rows, d int) error {
	for r, v := range idx {
		i, err := index(v, rows)
		if err != nil {
			return err
		}
		copy(out[r*d:(r+1)*d], table[i*d:(i+1)*d])
	}
	return nil
}

func (op *embedOp) DiffWRT(int) []bool { return []bool{true, false} }

func (op *embedOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	dt, err := apply(&scatterOp{base: newBase("EmbedGrad", 2), rows: op.rows}, in[1], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dt, nil}, nil
}

// scatterOp is Embed's gradient: (idx [N], g [N, D]) ↦ [R, D] with row idx[n] += g[n].
type scatterOp struct {
	base
	rows int
	out  buffer
}

func (op *scatterOp) Type() hm.Type { return fnType(1, 2, 2) }

func (op *scatterOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	gs, err := shapeOf(in, 1)
	if err != nil {
		return nil, err
	}
	return tensor.Shape{op.rows, gs[1]}, nil
}

func (op *scatterOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	d := vs[1].Shape()[1]
	out := op.out.get(dt, op.rows, d)
	if dt == tensor.Float32 {
		err = scatter(sl[float32](vs[0]), sl[float32](vs[1]), sl[float32](out), op.rows, d)
	} else {
		err = scatter(sl[float64](vs[0]), sl[float64](vs[1]), sl[float64](out), op.rows, d)
	}
	return out, err
}

func scatter[F Float](idx, g, out []F, rows, d int) error {
	clear(out)
	for r, v := range idx {
		i, err := index(v, rows)
		if err != nil {
			return err
		}
		dst, src := out[i*d:(i+1)*d], g[r*d:(r+1)*d]
		for j, x := range src {
			dst[j] += x
		}
	}
	return nil
}

func (op *scatterOp) DiffWRT(int) []bool { return []bool{false, false} }
func (op *scatterOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: EmbedGrad has no gradient of its own")
}
