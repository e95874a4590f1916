package position

import (
	"fmt"
	"math"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register(Def[XPosOptions, *XPos]{
		Kind: "xpos",
		Doc:  "xPos: rope with an exponential decay, q scaled by ζᵢ^(n/γ) and k by ζᵢ^(−m/γ) (Sun et al. 2023); causal only",
		New: func(o XPosOptions, d Dims) (*XPos, error) {
			if err := checkBase(o.Base); err != nil {
				return nil, err
			}
			if !(o.ScaleBase > 0) || math.IsInf(o.ScaleBase, 0) {
				return nil, fielderr.New("position.scale_base", "xPos's γ must be a finite positive number, got %g", o.ScaleBase)
			}
			if d.Bidirectional {
				return nil, fielderr.New("position.kind", "xpos is defined for causal attention (a key after the query, m > n, would weigh ζ^((n − m)/γ) > 1, growing without bound with the distance; Sun et al. 2023 §3.3) but model.bidirectional is set; use rope for an encoder, or remove model.bidirectional")
			}
			dh := d.DModel / d.Heads
			if dh%2 != 0 {
				return nil, fielderr.New("model.d_model", "xpos rotates pairs, so the head dimension d_model/heads = %d must be even; change model.d_model or model.heads", dh)
			}
			ls, err := newLogScale(o.LogScaling, d)
			if err != nil {
				return nil, err
			}
			return &XPos{RoPE: RoPE{Base: o.Base, Heads: d.Heads, HeadDim: dh, Rot: dh, LogScale: ls}, ScaleBase: o.ScaleBase}, nil
		},
	})
}

// XPosOptions are xpos's options.
type XPosOptions struct {
	// Base sets the rotation's frequencies θᵢ = base^(−2i/d_head); above 1.
	Base float64 `yaml:"base" default:"10000" doc:"frequency base of the rotation: θᵢ = base^(−2i/d_head); above 1"`
	// ScaleBase is γ: the decay of pair i over a distance δ is ζᵢ^(δ/γ).
	ScaleBase float64 `yaml:"scale_base" default:"512" doc:"γ: q at position n is scaled by ζᵢ^(n/γ) and k at m by ζᵢ^(−m/γ), ζᵢ = (2i/d_head + 0.4)/1.4, so q·k decays as ζᵢ^((n − m)/γ); positive; the paper's 512"`
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// The hooks XPos claims, checked at compile time.
var (
	_ QKRotator = (*XPos)(nil)
	_ Tabler    = (*XPos)(nil)
)

// XPos is xPos (Sun et al. 2023, "A Length-Extrapolatable Transformer"): rope whose pair i is
// also scaled, in the query at position n by ζᵢ^(n/γ) and in the key at position m by
// ζᵢ^(−m/γ), ζᵢ = (2i/d_head + 0.4)/1.4 ∈ [0.29, 1), so that pair i's part of q_n·k_m decays
// with the distance as ζᵢ^((n − m)/γ), the slowest-turning pairs the least. As in the authors'
// code (microsoft/torchscale at 776b070, torchscale/component/xpos_relative_position.py, XPOS:
// the rotation by positions 0..T−1, the decay by positions counted from −⌈T/2⌉, keys with
// downscale, 1/ζ), the decay's positions are centred, n − ⌈T/2⌉ in a graph of T tokens, which
// leaves every q·k unchanged (ζ^((n − c)/γ)·ζ^(−(m − c)/γ) = ζ^((n − m)/γ)) and halves the
// exponents' range. Causal only: a key after the query would be scaled up without bound.
type XPos struct {
	RoPE
	ScaleBase float64
}

func (x *XPos) Name() string { return "xpos" }

// Zeta returns ζᵢ = (2i/d_head + 0.4)/1.4 for each pair.
func (x *XPos) Zeta() []float64 {
	z := make([]float64, x.Rot/2)
	for i := range z {
		z[i] = (2*float64(i)/float64(x.HeadDim) + 0.4) / 1.4
	}
	return z
}

// Config is the rotation and decay of the queries (key false) or the keys (key true) of a graph
// of n tokens: the decay's positions are centred on ⌈n/2⌉.
func (x *XPos) Config(n int, key bool) ops.XPosConfig {
	return ops.XPosConfig{Heads: x.Heads, Rot: x.Rot, Theta: x.Theta(), Zeta: x.Zeta(), ScaleBase: x.ScaleBase, Center: float64((n + 1) / 2), Key: key}
}

// RotateQK rotates q and k by rope's angles and scales them by the decay (ops.XPos).
func (x *XPos) RotateQK(c Ctx, q, k *G.Node) (*G.Node, *G.Node, error) {
	qr, err := ops.XPos(q, c.Pos, x.Config(c.Len, false))
	if err != nil {
		return nil, nil, err
	}
	kr, err := ops.XPos(k, c.Pos, x.Config(c.Len, true))
	if err != nil {
		return nil, nil, err
	}
	return qr, kr, nil
}

// Table is the rotation angles p·θᵢ and the query's decay ζᵢ^(p/γ) (uncentred) for positions
// 0..n-1, one column each per pair.
func (x *XPos) Table(n int) (Table, error) {
	th, z := x.Theta(), x.Zeta()
	t := Table{}
	for i := range th {
		t.Columns = append(t.Columns, fmt.Sprintf("pair%d", i))
	}
	for i := range z {
		t.Columns = append(t.Columns, fmt.Sprintf("decay%d", i))
	}
	for p := range n {
		row := make([]float64, 0, len(th)+len(z))
		for _, w := range th {
			row = append(row, float64(p)*w)
		}
		for _, zi := range z {
			row = append(row, pmath.Pow(zi, float64(p)/x.ScaleBase))
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}
