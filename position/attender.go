package position

import (
	"github.com/posformer/posformer/internal/ops"
	G "gorgonia.org/gorgonia"
)

// Attender computes the attention of every layer itself, in place of ops.Attention: the hook of
// a scheme whose position term depends on the attention's own logits (CoPE's gates count the
// keys by their content; stick-breaking replaces the softmax) or on the layer's input (FoX's
// forget gates), which neither a bias nor relative keys can express. The layer calls Attend
// (c.Layer its index) with the projected q, k, v [Batch·Len, d_model] and gets the heads'
// outputs, merged back into rows, [Batch·Len, d_model].
type Attender interface {
	Attend(c Ctx, q, k, v *G.Node, a AttendConfig) (*G.Node, error)
}

// AttendConfig is what the attention layer tells an Attender.
type AttendConfig struct {
	Heads            int
	Causal, Unscaled bool
	Capture          *ops.AttentionCapture // nil but in inspection graphs
	// Input is the layer's input, the normalised x [Batch·Len, d_model] the projections read
	// (FoX computes its forget gates from it).
	Input *G.Node
}
