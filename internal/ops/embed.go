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

// gather copies row idx[r] of the table to row r of out, the rows split over the workers (the
// indices checked first).
func gather[F Float](table, idx, out []F, rows, d int) error {
	for _, v := range idx {
		if _, err := index(v, rows); err != nil {
			return err
		}
	}
	parallel(len(idx), d, func(_, lo, hi int) {
		for r := lo; r < hi; r++ {
			i, _ := index(idx[r], rows)
			copy(out[r*d:(r+1)*d], table[i*d:(i+1)*d])
		}
	})
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

// scatter adds row r of g to row idx[r] of out (cleared first), rows in order: the columns are
// split over the workers in blocks of eight, so every element's sum runs over the rows in order
// on any number of them (each addition one rounding, vectorised or not).
func scatter[F Float](idx, g, out []F, rows, d int) error {
	for _, v := range idx {
		if _, err := index(v, rows); err != nil {
			return err
		}
	}
	clear(out)
	parallel((d+7)/8, 2*len(idx), func(_, blo, bhi int) {
		lo, hi := 8*blo, min(8*bhi, d)
		for r, v := range idx {
			i, _ := index(v, rows)
			dst := out[i*d+lo : i*d+hi]
			addInto(dst, dst, g[r*d+lo:r*d+hi])
		}
	})
	return nil
}

func (op *scatterOp) DiffWRT(int) []bool { return []bool{false, false} }
func (op *scatterOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: EmbedGrad has no gradient of its own")
}
