package position

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register(Def[CoPEOptions, *CoPE]{
		Kind: "cope",
		Doc:  "CoPE: contextual positions p_ij = Σ_{t=j..i} σ(q_i·k_t), the logit adding q_i·e[p_ij] interpolated, e learned per layer (Golovneva et al. 2024); causal only",
		New: func(o CoPEOptions, d Dims) (*CoPE, error) {
			if o.NPos < 2 || o.NPos > 1<<16 {
				return nil, fielderr.New("position.npos", "CoPE needs at least 2 position embeddings (positions are clamped to npos − 1) and at most 65536, got %d", o.NPos)
			}
			if o.Form != CoPEPaper && o.Form != CoPERAM {
				return nil, fielderr.New("position.form", "must be %s (the paper's listing, q·k/√d + q·e[p]) or %s (facebookresearch/RAM's default, (q·k + q·e[p])/√d), got %q", CoPEPaper, CoPERAM, o.Form)
			}
			if !(o.InitStd >= 0) || o.InitStd > 1e3 {
				return nil, fielderr.New("position.init_std", "must be in [0, 1000], got %g", o.InitStd)
			}
			if d.Bidirectional {
				return nil, fielderr.New("position.kind", "cope is defined for causal attention (a position counts the keys from j up to the query, Golovneva et al. 2024 §3) but model.bidirectional is set; use rope, alibi or t5 for an encoder, or remove model.bidirectional")
			}
			dh := d.DModel / d.Heads
			ls, err := newLogScale(o.LogScaling, d)
			if err != nil {
				return nil, err
			}
			c := &CoPE{NPos: o.NPos, HeadDim: dh, Form: o.Form, LogScale: ls}
			rng := rand.New(rand.NewPCG(d.Seed, 0x636f7065)) // "cope"
			for l := range max(d.Layers, 1) {
				c.e = append(c.e, nn.Param{Name: fmt.Sprintf("pos.cope.e.%d", l), Value: nn.Normal(d.Dtype, rng, o.InitStd, o.NPos, dh)})
			}
			return c, nil
		},
		Params: func(o CoPEOptions, d Dims) int { return max(d.Layers, 1) * o.NPos * (d.DModel / d.Heads) },
	})
}

// CoPEOptions are cope's options.
type CoPEOptions struct {
	// NPos is the number of position embeddings; contextual positions are clamped to NPos − 1.
	NPos int `yaml:"npos" default:"64" doc:"position embeddings per layer (npos_max in the reference): contextual positions are clamped to npos − 1; at least 2"`
	// InitStd is the standard deviation of the embeddings' initial values (0: zeros, the
	// reference's).
	InitStd float64 `yaml:"init_std" default:"0" doc:"standard deviation of the embeddings' initial values; 0 starts them at zero, as the reference code does"`
	// Form is where the position term meets the 1/√d_h scale: CoPEPaper or CoPERAM.
	Form string `yaml:"form" default:"paper" doc:"paper: the logit is q·k/√d_h + q·e[p], the paper's listing (Golovneva et al. 2024, §3); ram: (q·k + q·e[p])/√d_h, what facebookresearch/RAM's ContextPosSelfAttn computes by default (cope_nodiv false); the two are equal with model.unscaled_logits"`
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// CoPE's forms (CoPEOptions.Form).
const (
	CoPEPaper = "paper" // q·k/√d_h + q·e[p]
	CoPERAM   = "ram"   // (q·k + q·e[p])/√d_h
)

// The hooks CoPE claims, checked at compile time.
var (
	_ Attender      = (*CoPE)(nil)
	_ Parameterized = (*CoPE)(nil)
)

// CoPE is contextual position encoding (Golovneva et al. 2024, "Contextual Position Encoding:
// Learning to Count What's Important"), as facebookresearch/RAM's
// projects/cope/src/cope/context_position.py computes it (ContextPosSelfAttn.forward, CoPE.forward):
// the gate of query i and key j ≤ i is σ of their scaled, masked logit, g_ij = σ(q_i·k_j/√d_h);
// the key's position counts the gates from it up to the query, p_ij = Σ_{t=j..i} g_it, clamped to
// npos − 1; the logit adds q_i·e[p_ij], interpolated between the embeddings of ⌊p_ij⌋ and
// ⌈p_ij⌉: unscaled in the paper's form (the paper's listing, q_i·k_j/√d_h + q_i·e[p_ij]), scaled
// with q·k in the reference code's default ("ram": (q_i·k_j + q_i·e[p_ij])/√d_h). The
// embeddings e [npos, d_head] are learned per layer and shared by the heads (the reference folds
// heads into the batch), starting at zero as there (init_std 0). The whole attention is
// ops.CoPEAttention.
type CoPE struct {
	NPos, HeadDim int
	Form          string     // CoPEPaper or CoPERAM
	e             []nn.Param // per layer, [npos, d_head]
	LogScale
}

func (c *CoPE) Name() string { return "cope" }

// Params returns the embeddings of every layer, in layer order.
func (c *CoPE) Params() []nn.Param { return c.e }

// Attend is the layer's attention with contextual positions.
func (c *CoPE) Attend(ctx Ctx, q, k, v *G.Node, a AttendConfig) (*G.Node, error) {
	if !a.Causal {
		return nil, errors.New("position: cope needs causal attention")
	}
	if ctx.Layer < 0 || ctx.Layer >= len(c.e) {
		return nil, fmt.Errorf("position: cope has embeddings for %d layers, asked for layer %d", len(c.e), ctx.Layer)
	}
	e, err := ctx.B.Param(c.e[ctx.Layer])
	if err != nil {
		return nil, err
	}
	return ops.CoPEAttention(q, k, v, e, ops.CoPEConfig{Batch: ctx.Batch, Len: ctx.Len, Heads: a.Heads, NPos: c.NPos, Unscaled: a.Unscaled, ScalePos: c.Form == CoPERAM, Capture: a.Capture})
}
