package ops

import (
	"fmt"

	"github.com/chewxy/hm"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// AddRow returns x + r with the vector r [D] added to every row of x [N, D] (a learned offset of
// the queries, Transformer-XL's u and v). Its gradient passes the output's gradient to x and
// sums it over the rows for r.
func AddRow(x, r *G.Node) (*G.Node, error) {
	xs, rs := x.Shape(), r.Shape()
	if len(xs) != 2 || len(rs) != 1 || rs[0] != xs[1] {
		return nil, fmt.Errorf("ops: AddRow wants x [N, D] and r [D], got %v and %v", xs, rs)
	}
	return apply(&addRowOp{base: newBase("AddRow", 2)}, x, r)
}

type addRowOp struct {
	base
	out buffer
}

func (op *addRowOp) Type() hm.Type { return fnType(2, 1, 2) }

func (op *addRowOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	return s.Clone(), nil
}

func (op *addRowOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	s := vs[0].Shape()
	out := op.out.get(dt, s...)
	if dt == tensor.Float32 {
		addRow(sl[float32](vs[0]), sl[float32](vs[1]), sl[float32](out), s[1])
	} else {
		addRow(sl[float64](vs[0]), sl[float64](vs[1]), sl[float64](out), s[1])
	}
	return out, nil
}

func addRow[F Float](x, r, y []F, d int) {
	for o := 0; o < len(x); o += d {
		for j, v := range r {
			y[o+j] = x[o+j] + v
		}
	}
}

func (op *addRowOp) DiffWRT(int) []bool { return []bool{true, true} }

func (op *addRowOp) SymDiff(_ G.Nodes, _, grad *G.Node) (G.Nodes, error) {
	dr, err := ColSum(grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{grad, dr}, nil
}

// RelativeSinusoid returns the sinusoidal encodings of the signed distances of every sequence
// of `batch` sequences of T tokens whose positions pos [batch·T] holds (held as floats): row
// d + T − 1 of sequence b, for d ∈ [−(T−1), T−1], encodes δ = sign(d)·(pos[b, |d|] − pos[b, 0])
// as [sin(δ·ω_0), …, sin(δ·ω_{dim/2−1}), cos(δ·ω_0), …, cos(δ·ω_{dim/2−1})], ω_k =
// base^(−2k/dim) (the sines, then the cosines: the layout of Transformer-XL's and Ruoss et al.'s
// tables). With positions 0..T−1, δ = d; with randomized positions 0 < r_1 < … < r_{T−1}, the
// distance d is r_d. The result is [batch·(2T−1), dim], computed in float64 and rounded to the
// graph's dtype; positions are not differentiated.
func RelativeSinusoid(pos *G.Node, batch, T, dim int, base float64) (*G.Node, error) {
	if s := pos.Shape(); s.TotalSize() != batch*T || T < 1 || dim < 2 || dim%2 != 0 {
		return nil, fmt.Errorf("ops: RelativeSinusoid: positions %v for %d × %d, dimension %d (even, ≥ 2)", s, batch, T, dim)
	}
	return apply(&relSinOp{base: newBase("RelativeSinusoid", 1), batch: batch, t: T, dim: dim, omega: SinusoidFreqs(base, dim)}, pos)
}

type relSinOp struct {
	base
	batch, t, dim int
	omega         []float64
	out           buffer
	deltas, row   scratch[float64]
	rows          posRows // by distance δ: the sines and the cosines
}

func (op *relSinOp) Type() hm.Type { return fnType(1, 2) }

func (op *relSinOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.batch * (2*op.t - 1), op.dim}, nil
}

// SinusoidFreqs are ω_k = base^(−2k/dim), k < dim/2.
func SinusoidFreqs(base float64, dim int) []float64 {
	w := make([]float64, dim/2)
	for k := range w {
		w[k] = pmath.Pow(base, -2*float64(k)/float64(dim))
	}
	return w
}

// SinusoidRow writes the encoding of δ into row [2·len(omega)]: the sines, then the cosines
// (see RelativeSinusoid).
func SinusoidRow(row []float64, delta float64, omega []float64) {
	for k, w := range omega {
		row[k], row[len(omega)+k] = pmath.Sincos(delta * w)
	}
}

func (op *relSinOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	pos := float64s(vs[0])
	T, nr, half := op.t, 2*op.t-1, op.dim/2
	deltas := op.deltas.get(op.batch * nr) // [batch, 2T−1]
	for b := 0; b < op.batch; b++ {
		for d := -(T - 1); d < T; d++ {
			deltas[b*nr+d+T-1] = signedDistance(pos, b, T, d)
		}
	}
	cs, sn, idx := op.rows.get(deltas, half, op.fill)
	out := op.out.get(dt, op.batch*nr, op.dim)
	row := op.row.get(op.dim)
	for i, k := range idx {
		copy(row[:half], sn[int(k)*half:])
		copy(row[half:], cs[int(k)*half:(int(k)+1)*half])
		setFrom64(out, i*op.dim, row)
	}
	return out, nil
}

// fill writes the cosines and sines of δ·ω_k into cs and sn: SinusoidRow's values.
func (op *relSinOp) fill(delta float64, cs, sn []float64) {
	for k, w := range op.omega {
		sn[k], cs[k] = pmath.Sincos(delta * w)
	}
}

func (op *relSinOp) DiffWRT(int) []bool { return []bool{false} }
func (op *relSinOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: RelativeSinusoid has no gradient (positions are inputs)")
}

// DistanceFunc is a fixed per-head bias as a function of a signed distance δ = i − j (for
// DistanceTable: ALiBi's with randomized distances).
type DistanceFunc interface {
	Heads() int
	// Bias writes the bias of every head for the distance δ into out (len Heads()).
	Bias(delta float64, out []float64)
}

// DistanceTable returns one bias table by distance per sequence, [batch·H, 2T−1], for Attention:
// entry (b·H + h, d + T − 1) is f's bias of head h for δ = sign(d)·(pos[b, |d|] − pos[b, 0]),
// d ∈ [−(T−1), T−1] (the sequence's randomized distances, as RelativeSinusoid reads them;
// with positions 0..T−1, δ = d). Computed in float64 and rounded to the graph's dtype; the
// table is a constant of the positions, with no gradient.
func DistanceTable(pos *G.Node, batch, T int, f DistanceFunc) (*G.Node, error) {
	if s := pos.Shape(); s.TotalSize() != batch*T || T < 1 || f.Heads() < 1 {
		return nil, fmt.Errorf("ops: DistanceTable: positions %v for %d × %d and %d heads", s, batch, T, f.Heads())
	}
	return apply(&distTableOp{base: newBase("DistanceTable", 1), batch: batch, t: T, f: f}, pos)
}

type distTableOp struct {
	base
	batch, t int
	f        DistanceFunc
	out      buffer
}

func (op *distTableOp) Type() hm.Type { return fnType(1, 2) }

func (op *distTableOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.batch * op.f.Heads(), 2*op.t - 1}, nil
}

// signedDistance is δ of distance d in sequence b (see RelativeSinusoid).
func signedDistance(pos []float64, b, T, d int) float64 {
	a := d
	if a < 0 {
		a = -a
	}
	delta := pos[b*T+a] - pos[b*T]
	if d < 0 {
		delta = -delta
	}
	return delta
}

func (op *distTableOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	pos := float64s(vs[0])
	H, T, nr := op.f.Heads(), op.t, 2*op.t-1
	vals := make([]float64, op.batch*H*nr)
	b1 := make([]float64, H)
	for b := 0; b < op.batch; b++ {
		for d := -(T - 1); d < T; d++ {
			op.f.Bias(signedDistance(pos, b, T, d), b1)
			for h, x := range b1 {
				vals[(b*H+h)*nr+d+T-1] = x
			}
		}
	}
	out := op.out.get(dt, op.batch*H, nr)
	setFrom64(out, 0, vals)
	return out, nil
}

func (op *distTableOp) DiffWRT(int) []bool { return []bool{false} }
func (op *distTableOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: DistanceTable has no gradient (positions are inputs)")
}
