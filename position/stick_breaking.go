package position

import (
	"errors"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/ops"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register(Def[StickBreakingOptions, *StickBreaking]{
		Kind: "stick_breaking",
		Doc:  "stick-breaking attention: no softmax, A_ij = β_ij·Π_{j<k<i}(1 − β_ik), β = σ(q·k/√d_h), the nearest keys first (Tan et al. 2025); causal only",
		New: func(o StickBreakingOptions, d Dims) (*StickBreaking, error) {
			if d.Bidirectional {
				return nil, fielderr.New("position.kind", "stick_breaking is defined for causal attention (each key takes a share of what the keys between it and the query leave, Tan et al. 2025) but model.bidirectional is set; use alibi, kerple, t5 or dpb for an encoder, or remove model.bidirectional")
			}
			ls, err := newLogScale(o.LogScaling, d)
			if err != nil {
				return nil, err
			}
			return &StickBreaking{AttendCurrent: o.AttendCurrent, Remainder: o.Remainder, LogScale: ls}, nil
		},
	})
}

// StickBreakingOptions are stick_breaking's options.
type StickBreakingOptions struct {
	// AttendCurrent lets a query break the stick at its own token too (keys j ≤ i).
	AttendCurrent bool `yaml:"attend_current,omitempty" doc:"the query's own token is a key too, the nearest (A_ij over j ≤ i, the product over j < k ≤ i); false (the reference's default): keys j < i"`
	// Remainder gives the weight the keys leave, 1 − Σ_j A_ij, to the query's own value.
	Remainder bool `yaml:"remainder" default:"true" doc:"the weight the keys leave, 1 − Σ_j A_ij, goes to the query's own value (the reference's o + rem·v), so every row's weights sum to 1; false drops it"`
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// The hook StickBreaking claims, checked at compile time.
var _ Attender = (*StickBreaking)(nil)

// StickBreaking is stick-breaking attention (Tan, Shen, Yang, Courville, Panda 2025, "Scaling
// Stick-Breaking Attention: An Efficient Implementation and In-depth Study", ICLR), as
// shawntan/stickbreaking-attention's reference (stickbreaking_attention/sb_ref.py with its
// tests' o + rem·v) computes it. No softmax and no position encoding: with z_ij the scaled logit
// and β_ij = σ(z_ij), query i's keys are taken nearest first, each breaking off the share β of
// the stick the nearer keys left,
//
//	A_ij = β_ij·Π_{j<k<i} (1 − β_ik)   for the keys j < i (j ≤ i and k ≤ i with attend_current)
//	y_i  = Σ_j A_ij·v_j + (1 − Σ_j A_ij)·v_i   (the last term with remainder, the default)
//
// computed in log space (log β = −softplus(−z), log(1 − β) = −softplus(z), summed in float64),
// so a far key's weight never underflows through a product. The order of the keys is the
// position information. The whole attention is ops.StickBreakingAttention (the hook Attender).
// Causal only; no trainable parameters.
type StickBreaking struct {
	AttendCurrent, Remainder bool
	LogScale
}

func (s *StickBreaking) Name() string { return "stick_breaking" }

// Attend is the layer's stick-breaking attention.
func (s *StickBreaking) Attend(c Ctx, q, k, v *G.Node, a AttendConfig) (*G.Node, error) {
	if !a.Causal {
		return nil, errors.New("position: stick_breaking needs causal attention")
	}
	return ops.StickBreakingAttention(q, k, v, ops.StickBreakingConfig{Batch: c.Batch, Len: c.Len, Heads: a.Heads,
		AttendCurrent: s.AttendCurrent, Remainder: s.Remainder, Unscaled: a.Unscaled, Capture: a.Capture})
}
