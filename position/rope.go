package position

import (
	"fmt"
	"math"

	"github.com/posformer/posformer/internal/ops"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register(Def[RoPEOptions]{
		Kind: "rope",
		Doc:  "rotary encoding of q and k (Su et al. 2021, RoFormer)",
		New: func(o RoPEOptions, d Dims) (Scheme, error) {
			if err := checkBase(o.Base); err != nil {
				return nil, err
			}
			if !(o.RotaryFraction > 0 && o.RotaryFraction <= 1) {
				return nil, fmt.Errorf("position.rotary_fraction: must be in (0, 1], got %g", o.RotaryFraction)
			}
			dh := d.DModel / d.Heads
			rot := int(math.Round(float64(dh) * o.RotaryFraction))
			if rot%2 != 0 || rot == 0 {
				return nil, fmt.Errorf("position.rotary_fraction: rope rotates pairs, so the rotated dimension (d_head %d × rotary_fraction %g = %d) must be even and positive; change model.d_model, model.heads or position.rotary_fraction", dh, o.RotaryFraction, rot)
			}
			switch o.RopeScaling {
			case "", "none", "interpolate":
			case "ntk":
				if rot <= 2 {
					return nil, fmt.Errorf("position.rope_scaling: ntk scales the base by s^(d/(d−2)), which needs more than 2 rotated dimensions per head, got %d; use interpolate or rotate more dimensions", rot)
				}
			default:
				return nil, fmt.Errorf("position.rope_scaling: must be none, interpolate or ntk, got %q", o.RopeScaling)
			}
			scaling := o.RopeScaling
			if scaling == "none" {
				scaling = ""
			}
			if scaling != "" && d.Randomized {
				return nil, fmt.Errorf("position.rope_scaling: %s cannot be combined with position.randomized (randomized positions already cover [0, max_random)); remove one of them", scaling)
			}
			return &RoPE{Base: o.Base, Heads: d.Heads, HeadDim: dh, Rot: rot, Scaling: scaling}, nil
		},
		Randomizable: true,
	})
}

// RoPEOptions are rope's options.
type RoPEOptions struct {
	// Base sets the frequencies θᵢ = base^(−2i/d_rot); above 1.
	Base float64 `yaml:"base" default:"10000" doc:"frequency base: θᵢ = base^(−2i/d_rot); above 1"`
	// RotaryFraction is the fraction of each head's dimensions rotated (the first ones, in
	// pairs); the rest pass through. In (0, 1].
	RotaryFraction float64 `yaml:"rotary_fraction" default:"1" doc:"fraction of each head's dimensions rotated, in (0, 1]; d_rot = d_head × fraction must be even"`
	// RopeScaling is what rope does at evaluation lengths beyond training (see RoPE.ScaledFor):
	// none (or empty), interpolate or ntk.
	RopeScaling string `yaml:"rope_scaling,omitempty" doc:"at evaluation lengths beyond training only (L_eval > L_train, in tokens): none; interpolate multiplies positions by L_train/L_eval (Chen et al. 2023); ntk uses the base base·s^(d_rot/(d_rot−2)), s = L_eval/L_train (needs d_rot > 2); not with randomized"`
}

// The hooks RoPE claims, checked at compile time.
var (
	_ QKRotator     = (*RoPE)(nil)
	_ Tabler        = (*RoPE)(nil)
	_ Sampler       = (*RoPE)(nil)
	_ LengthChecker = (*RoPE)(nil)
)

// RoPE is the rotary encoding of Su et al. (RoFormer): in every layer, after the q/k projections,
// each head's pairs (2i, 2i+1), i < Rot/2, are rotated by the angle p·θᵢ with θᵢ = Base^(−2i/Rot).
// With the default rotary fraction Rot = HeadDim. Angles are computed in float64.
//
// Scaling ("", "interpolate" or "ntk") changes the rotation of graphs longer than the training
// sequences (Ctx.Len > Ctx.TrainLen > 0), see ScaledFor.
type RoPE struct {
	Base    float64
	Heads   int
	HeadDim int
	Rot     int    // rotated dimensions per head
	Scaling string // "" (none), "interpolate" or "ntk"
	Randomizer
}

// CheckPositions refuses sequences longer than max_random when the positions are randomized.
func (r *RoPE) CheckPositions(n int) error { return r.checkRandom(n) }

func (r *RoPE) Name() string { return "rope" }

// ScaledFor returns the rotation's base and position scale for a sequence of evalLen tokens when
// the longest training sequence has trainLen tokens. Within the training lengths (evalLen ≤
// trainLen, or trainLen unknown = 0) and without Scaling it is (Base, 1). Beyond them, with
// s = evalLen/trainLen:
//   - interpolate (Chen et al. 2023): positions are multiplied by 1/s = trainLen/evalLen, so the
//     largest angle stays within the range seen in training: (Base, 1/s);
//   - ntk ("NTK-aware" scaling): base' = Base·s^(d/(d−2)) with d = Rot, which leaves the fastest
//     pair's frequency unchanged and slows the slowest pair by exactly 1/s: (base', 1).
func (r *RoPE) ScaledFor(evalLen, trainLen int) (base, scale float64) {
	if r.Scaling == "" || trainLen <= 0 || evalLen <= trainLen {
		return r.Base, 1
	}
	s := float64(evalLen) / float64(trainLen)
	switch r.Scaling {
	case "interpolate":
		return r.Base, 1 / s
	case "ntk":
		d := float64(r.Rot)
		return r.Base * math.Pow(s, d/(d-2)), 1
	}
	return r.Base, 1
}

func (r *RoPE) config(c Ctx) ops.RopeConfig {
	base, scale := r.ScaledFor(c.Len, c.TrainLen)
	return ops.RopeConfig{Heads: r.Heads, Rot: r.Rot, Base: base, Scale: scale}
}

// RotateQK rotates q and k by their rows' positions.
func (r *RoPE) RotateQK(c Ctx, q, k *G.Node) (*G.Node, *G.Node, error) {
	qr, err := ops.Rope(q, c.Pos, r.config(c))
	if err != nil {
		return nil, nil, err
	}
	kr, err := ops.Rope(k, c.Pos, r.config(c))
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
