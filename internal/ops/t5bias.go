package ops

import (
	"fmt"
	"slices"

	"github.com/chewxy/hm"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// RelativeBias gathers a per-head attention bias from a table of per-bucket values (T5's
// relative position bias): table is [H, NB]; buckets holds T·T bucket numbers in [0, NB),
// row-major (query i, key j), and the result is [H, T, T] with out[h, i, j] =
// table[h, buckets[i·T+j]]; or buckets holds 2T−1 bucket numbers, one per distance i − j
// (entry i − j + T − 1), and the result is the table by distance [H, 2T−1] that Attention
// takes. Its gradient sums the incoming gradient of every entry into its bucket, in a fixed
// order. (Gorgonia's ByIndices cannot do this: its gradient is wrong on axes other than 0.)
func RelativeBias(table *G.Node, buckets []int, T int) (*G.Node, error) {
	s := table.Shape()
	if len(s) != 2 {
		return nil, fmt.Errorf("ops: RelativeBias wants a 2-D table [heads, buckets], got %v", s)
	}
	if T < 1 || (len(buckets) != T*T && len(buckets) != 2*T-1) {
		return nil, fmt.Errorf("ops: RelativeBias: %d bucket numbers for length %d, want %d (per pair) or %d (per distance)", len(buckets), T, T*T, 2*T-1)
	}
	for _, b := range buckets {
		if b < 0 || b >= s[1] {
			return nil, fmt.Errorf("ops: RelativeBias: bucket %d is outside the table's %d buckets", b, s[1])
		}
	}
	op := &relBiasOp{base: newBase("RelativeBias", 1), heads: s[0], nb: s[1], t: T, buckets: slices.Clone(buckets)}
	return apply(op, table)
}

type relBiasOp struct {
	base
	heads, nb, t int
	buckets      []int // T·T, read-only
	out          buffer
}

// byDistance: the buckets are one per distance (the result is [H, 2T−1]).
func (op *relBiasOp) byDistance() bool { return len(op.buckets) != op.t*op.t || op.t == 1 }

func (op *relBiasOp) shape() tensor.Shape {
	if op.byDistance() {
		return tensor.Shape{op.heads, len(op.buckets)}
	}
	return tensor.Shape{op.heads, op.t, op.t}
}

func (op *relBiasOp) Type() hm.Type { return fnType(2, len(op.shape())) }

func (op *relBiasOp) InferShape(...G.DimSizer) (tensor.Shape, error) { return op.shape(), nil }

func (op *relBiasOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	if s := vs[0].Shape(); len(s) != 2 || s[0] != op.heads || s[1] != op.nb {
		return nil, fmt.Errorf("ops: RelativeBias: table is %v, want [%d %d]", s, op.heads, op.nb)
	}
	out := op.out.get(dt, op.shape()...)
	if dt == tensor.Float32 {
		relGather(sl[float32](vs[0]), sl[float32](out), op.buckets, op.heads, op.nb)
	} else {
		relGather(sl[float64](vs[0]), sl[float64](out), op.buckets, op.heads, op.nb)
	}
	return out, nil
}

func relGather[F Float](table, out []F, buckets []int, heads, nb int) {
	tt := len(buckets)
	for h := 0; h < heads; h++ {
		row, dst := table[h*nb:(h+1)*nb], out[h*tt:(h+1)*tt]
		for k, b := range buckets {
			dst[k] = row[b]
		}
	}
}

func (op *relBiasOp) DiffWRT(int) []bool { return []bool{true} }

func (op *relBiasOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	g, err := apply(&relBiasGradOp{base: newBase("RelativeBiasGrad", 1), fwd: op}, grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{g}, nil
}

// relBiasGradOp is RelativeBias's gradient: [H, T, T] ↦ [H, NB], summing into buckets.
type relBiasGradOp struct {
	base
	fwd *relBiasOp
	out buffer
}

func (op *relBiasGradOp) Type() hm.Type { return fnType(len(op.fwd.shape()), 2) }

func (op *relBiasGradOp) InferShape(...G.DimSizer) (tensor.Shape, error) {
	return tensor.Shape{op.fwd.heads, op.fwd.nb}, nil
}

func (op *relBiasGradOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	f := op.fwd
	out := op.out.get(dt, f.heads, f.nb)
	if dt == tensor.Float32 {
		relScatter(sl[float32](vs[0]), sl[float32](out), f.buckets, f.heads, f.nb)
	} else {
		relScatter(sl[float64](vs[0]), sl[float64](out), f.buckets, f.heads, f.nb)
	}
	return out, nil
}

func relScatter[F Float](g, out []F, buckets []int, heads, nb int) {
	clear(out)
	tt := len(buckets)
	for h := 0; h < heads; h++ {
		dst, src := out[h*nb:(h+1)*nb], g[h*tt:(h+1)*tt]
		for k, b := range buckets {
			dst[b] += src[k]
		}
	}
}

func (op *relBiasGradOp) DiffWRT(int) []bool { return []bool{false} }
func (op *relBiasGradOp) SymDiff(G.Nodes, *G.Node, *G.Node) (G.Nodes, error) {
	return nil, fmt.Errorf("ops: RelativeBiasGrad has no gradient of its own")
}
