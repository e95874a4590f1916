package position

import (
	"math"

	"github.com/posformer/posformer/internal/fielderr"
)

func init() {
	Register(Def[PRoPEOptions, *PRoPE]{
		Kind: "p_rope",
		Doc:  "p-RoPE: rope on the highest-frequency fraction p of the pairs, the others not rotated (Barbero et al. 2024)",
		New: func(o PRoPEOptions, d Dims) (*PRoPE, error) {
			if err := checkBase(o.Base); err != nil {
				return nil, err
			}
			dh := d.DModel / d.Heads
			if dh%2 != 0 {
				return nil, fielderr.New("model.d_model", "p_rope rotates pairs, so the head dimension d_model/heads = %d must be even; change model.d_model or model.heads", dh)
			}
			kept := int(math.Floor(o.P * float64(dh) / 2)) // Barbero et al.'s int(p·d // 2)
			if !(o.P > 0 && o.P <= 1) || kept < 1 {
				return nil, fielderr.New("position.p", "p-RoPE rotates ⌊p·d_head/2⌋ of the %d pairs, which must be at least 1, so p must be in [%g, 1], got %g; for no rotation at all use position.kind: none", dh/2, 2/float64(dh), o.P)
			}
			ls, err := newLogScale(o.LogScaling, d)
			if err != nil {
				return nil, err
			}
			return &PRoPE{RoPE{Base: o.Base, Heads: d.Heads, HeadDim: dh, Rot: dh, Kept: kept, LogScale: ls}}, nil
		},
		Randomizable: true,
	})
}

// PRoPEOptions are p_rope's options.
type PRoPEOptions struct {
	// Base sets the frequencies θᵢ = base^(−2i/d_head); above 1.
	Base float64 `yaml:"base" default:"10000" doc:"frequency base: θᵢ = base^(−2i/d_head), the frequencies of rope's pairs; above 1"`
	// P is the fraction of the pairs that rotate: the first ⌊p·d_head/2⌋, the highest
	// frequencies.
	P float64 `yaml:"p" default:"0.75" doc:"fraction of each head's pairs that rotate: the first ⌊p·d_head/2⌋, the highest frequencies, at their own θᵢ; the others are not rotated (unlike rope's rotary_fraction, which spreads every frequency over fewer dimensions); in (0, 1] with at least one pair; 1 is rope; 0.75: Barbero et al.'s Gemma runs"`
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// The hooks PRoPE claims, checked at compile time.
var (
	_ QKRotator     = (*PRoPE)(nil)
	_ Tabler        = (*PRoPE)(nil)
	_ Sampler       = (*PRoPE)(nil)
	_ LengthChecker = (*PRoPE)(nil)
)

// PRoPE is p-RoPE (Barbero et al. 2024, "Round and round we go! What makes Rotary Positional
// Encodings useful?", §6): rope whose lowest frequencies are removed. Of each head's d_head/2
// pairs (2i, 2i+1), the first Kept = ⌊p·d_head/2⌋ (the highest frequencies θᵢ =
// base^(−2i/d_head)) rotate by p·θᵢ as in rope, the rest are left as they are (NoPE on those
// dimensions: frequency 0). Their reference's timescales, base^(2i/d_head) for the kept pairs
// padded with +∞ for the others, are these frequencies' inverses. It is rope with RoPE.Kept set,
// so its rotation, table and randomized positions are rope's.
type PRoPE struct{ RoPE }

func (r *PRoPE) Name() string { return "p_rope" }
