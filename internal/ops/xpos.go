package ops

import (
	"fmt"

	"github.com/chewxy/hm"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// XPosConfig says how XPos rotates and scales each head of a [N, H·Dh] tensor.
type XPosConfig struct {
	Heads int
	Rot   int       // rotated values per head (even, ≤ Dh): pairs (2i, 2i+1), i < Rot/2
	Theta []float64 // the Rot/2 frequencies θᵢ
	Zeta  []float64 // the Rot/2 decay bases ζᵢ
	// ScaleBase is γ, Center c: the row at position p is scaled by ζᵢ^((p − c)/γ), or with Key by
	// ζᵢ^(−(p − c)/γ).
	ScaleBase, Center float64
	Key               bool
}

// XPos rotates each head's pairs (2i, 2i+1) of x [N, D] by pos[n]·θᵢ as Rope does and multiplies
// both values of the pair by ζᵢ^(±(pos[n] − Center)/ScaleBase) (xPos, Sun et al. 2023: + for the
// queries, − for the keys), in float64. The scale is the same for both values of a pair, so it
// commutes with the pair's rotation and the gradient is the inverse rotation with the same scale.
func XPos(x, pos *G.Node, cfg XPosConfig) (*G.Node, error) {
	s := x.Shape()
	if len(s) != 2 || cfg.Heads < 1 || s[1]%cfg.Heads != 0 {
		return nil, fmt.Errorf("ops: XPos: x %v does not split into %d heads", s, cfg.Heads)
	}
	if ps := pos.Shape(); ps.TotalSize() != s[0] {
		return nil, fmt.Errorf("ops: XPos: %d positions for %d rows", ps.TotalSize(), s[0])
	}
	if dh := s[1] / cfg.Heads; cfg.Rot < 0 || cfg.Rot%2 != 0 || cfg.Rot > dh || len(cfg.Theta) != cfg.Rot/2 || len(cfg.Zeta) != cfg.Rot/2 {
		return nil, fmt.Errorf("ops: XPos: rotated dimension %d (even, at most the head dimension %d) with %d frequencies and %d decay bases", cfg.Rot, dh, len(cfg.Theta), len(cfg.Zeta))
	}
	if !(cfg.ScaleBase > 0) {
		return nil, fmt.Errorf("ops: XPos: scale base %g must be positive", cfg.ScaleBase)
	}
	return apply(&xposOp{base: newBase("XPos", 2), cfg: cfg}, x, pos)
}

type xposOp struct {
	base
	cfg     XPosConfig
	inverse bool // rotate by −angle: the gradient
	out     buffer
	pos64   scratch[float64]
	rows    posRows
}

func (op *xposOp) Type() hm.Type { return fnType(2, 1, 2) }

func (op *xposOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	return s.Clone(), nil
}

// fill writes position p's scaled cos and sin, ζᵢ^(±(p − c)/γ)·(cos, sin)(p·θᵢ), into cs and sn.
func (op *xposOp) fill(p float64, cs, sn []float64) {
	e := (p - op.cfg.Center) / op.cfg.ScaleBase
	if op.cfg.Key {
		e = -e
	}
	for i, t := range op.cfg.Theta {
		m := pmath.Pow(op.cfg.Zeta[i], e)
		s, c := pmath.Sincos(p * t)
		sn[i], cs[i] = m*s, m*c
		if op.inverse {
			sn[i] = -sn[i]
		}
	}
}

func (op *xposOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	s := vs[0].Shape()
	out := op.out.get(dt, s...)
	pos := positionsOf(vs[1], op.pos64.get(s[0]))
	_, _, idx := op.rows.get(pos, op.cfg.Rot/2, op.fill)
	rc := RopeConfig{Heads: op.cfg.Heads, Rot: op.cfg.Rot}
	if dt == tensor.Float32 {
		rotate(sl[float32](vs[0]), sl[float32](out), &op.rows, idx, s[1], rc)
	} else {
		rotate(sl[float64](vs[0]), sl[float64](out), &op.rows, idx, s[1], rc)
	}
	return out, nil
}

func (op *xposOp) DiffWRT(int) []bool { return []bool{true, false} }

func (op *xposOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	inv := &xposOp{base: newBase("XPosGrad", 2), cfg: op.cfg, inverse: !op.inverse}
	d, err := apply(inv, grad, in[1])
	if err != nil {
		return nil, err
	}
	return G.Nodes{d, nil}, nil
}
