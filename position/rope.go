package position

import (
	"fmt"
	"math"

	"github.com/posformer/posformer/internal/ops"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register("rope", func(s Spec, d Dims) (Scheme, error) {
		if !(s.RotaryFraction > 0 && s.RotaryFraction <= 1) {
			return nil, fmt.Errorf("position.rotary_fraction: must be in (0, 1], got %g", s.RotaryFraction)
		}
		dh := d.DModel / d.Heads
		rot := int(math.Round(float64(dh) * s.RotaryFraction))
		if rot%2 != 0 || rot == 0 {
			return nil, fmt.Errorf("position.rotary_fraction: rope rotates pairs, so the rotated dimension (d_head %d × rotary_fraction %g = %d) must be even and positive; change model.d_model, model.heads or position.rotary_fraction", dh, s.RotaryFraction, rot)
		}
		return &RoPE{Base: s.Base, Heads: d.Heads, HeadDim: dh, Rot: rot}, nil
	})
}

// RoPE is the rotary encoding of Su et al. (RoFormer): in every layer, after the q/k projections,
// each head's pairs (2i, 2i+1), i < Rot/2, are rotated by the angle p·θᵢ with θᵢ = Base^(−2i/Rot).
// With the default rotary fraction Rot = HeadDim. Angles are computed in float64.
type RoPE struct {
	Base    float64
	Heads   int
	HeadDim int
	Rot     int // rotated dimensions per head
}

func (r *RoPE) Name() string { return "rope" }

func (r *RoPE) config() ops.RopeConfig {
	return ops.RopeConfig{Heads: r.Heads, Rot: r.Rot, Base: r.Base, Scale: 1}
}

// RotateQK rotates q and k by their rows' positions.
func (r *RoPE) RotateQK(c Ctx, q, k *G.Node) (*G.Node, *G.Node, error) {
	qr, err := ops.Rope(q, c.Pos, r.config())
	if err != nil {
		return nil, nil, err
	}
	kr, err := ops.Rope(k, c.Pos, r.config())
	if err != nil {
		return nil, nil, err
	}
	return qr, kr, nil
}

// Theta returns θᵢ for each rotated pair.
func (r *RoPE) Theta() []float64 { return ops.Theta(r.Base, r.Rot) }

// Table is the rotation angles p·θᵢ for positions 0..n-1, one column per pair.
func (r *RoPE) Table(n int) (Table, error) {
	th := r.Theta()
	t := Table{Columns: make([]string, len(th))}
	for i := range th {
		t.Columns[i] = fmt.Sprintf("pair%d", i)
	}
	for p := 0; p < n; p++ {
		row := make([]float64, len(th))
		for i, w := range th {
			row[i] = float64(p) * w
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// Rotate applies R(p) to one head vector x (len ≥ Rot) in float64: the rotation RotateQK applies.
func (r *RoPE) Rotate(x []float64, p float64) []float64 {
	y := append([]float64(nil), x...)
	for i, w := range r.Theta() {
		s, c := math.Sincos(p * w)
		y[2*i], y[2*i+1] = x[2*i]*c-x[2*i+1]*s, x[2*i]*s+x[2*i+1]*c
	}
	return y
}
