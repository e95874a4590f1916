package position

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	G "gorgonia.org/gorgonia"
)

func init() {
	Register(Def[FoXOptions, *FoX]{
		Kind: "fox",
		Doc:  "Forgetting Transformer: logits biased by Σ_{l=j+1..i} log f_l, a forget gate f_t = σ(w·x_t + b) per layer, head and token (Lin et al. 2025); causal only",
		New: func(o FoXOptions, d Dims) (*FoX, error) {
			switch {
			case math.IsNaN(o.BiasInit) || math.Abs(o.BiasInit) > 100:
				return nil, fielderr.New("position.bias_init", "the forget gate's initial bias must be in [−100, 100] (σ(b) is the starting gate; the reference's 0, x-transformers' 5), got %g", o.BiasInit)
			case !(o.InitStd >= 0) || o.InitStd > 1e3:
				return nil, fielderr.New("position.init_std", "must be in [0, 1000], got %g", o.InitStd)
			case d.Bidirectional:
				return nil, fielderr.New("position.kind", "fox is defined for causal attention (a gate forgets the keys before the query, Lin et al. 2025) but model.bidirectional is set; use alibi, kerple, t5 or dpb for an encoder, or remove model.bidirectional")
			}
			ls, err := newLogScale(o.LogScaling, d)
			if err != nil {
				return nil, err
			}
			f := &FoX{Heads: d.Heads, LogScale: ls}
			// The reference's gate (zhixuan-lin/forgetting-transformer at 883f260,
			// modeling_forgetting_transformer.py, ForgettingAttentionLayer: fgate_proj =
			// nn.Linear(hidden_size, num_heads, bias=True), weights N(0, initializer_range = 0.02²),
			// bias 0) per layer.
			rng := rand.New(rand.NewPCG(d.Seed, 0x666f78)) // "fox"
			for l := range max(d.Layers, 1) {
				f.w = append(f.w, nn.Param{Name: fmt.Sprintf("pos.fox.w.%d", l), Value: nn.Normal(d.Dtype, rng, o.InitStd, d.DModel, d.Heads)})
				f.b = append(f.b, nn.Param{Name: fmt.Sprintf("pos.fox.b.%d", l), Value: nn.Full(d.Dtype, o.BiasInit, d.Heads)})
			}
			return f, nil
		},
		Params: func(o FoXOptions, d Dims) int { return max(d.Layers, 1) * (d.DModel + 1) * d.Heads },
	})
}

// FoXOptions are fox's options.
type FoXOptions struct {
	// BiasInit is the forget gate's initial bias b (every head): the gate starts at σ(b) for an
	// input orthogonal to w.
	BiasInit float64 `yaml:"bias_init" default:"0" doc:"initial bias b of the forget gate σ(w·x + b), every layer and head: 0 as the reference's nn.Linear (gates start near 0.5), x-transformers' data-dependent ALiBi starts at 5 (gates near 0.993)"`
	// InitStd is the standard deviation of the gate's initial weights w.
	InitStd float64 `yaml:"init_std" default:"0.02" doc:"standard deviation of the forget gate's initial weights w [d_model, heads] per layer; the reference's initializer_range 0.02"`
	// LogScaling is SSMax's initial s (log-length attention scaling, LogScale); 0: off.
	LogScaling float64 `yaml:"log_scaling,omitempty" doc:"log-length attention scaling (SSMax, Nakanishi 2025): queries times s_h·ln n, n the keys a query sees; s learned per layer and head from this value; 0 (default): off"`
}

// The hooks FoX claims, checked at compile time.
var (
	_ Attender      = (*FoX)(nil)
	_ Parameterized = (*FoX)(nil)
)

// FoX is the Forgetting Transformer's forgetting attention (Lin, Nikishin, He, Courville 2025,
// "Forgetting Transformer: Softmax Attention with a Forget Gate", ICLR), as
// zhixuan-lin/forgetting-transformer computes it (modeling_forgetting_transformer.py,
// ForgettingAttentionLayer.forward, with fgate_type "full", the default): per layer, head h and
// token t a forget gate f_t = σ(w_h·x_t + b_h) read from the layer's input x (after the layer
// norm, what q, k and v are projected from), and the logit of query i and key j ≤ i, after the
// 1/√d_head scale, biased by
//
//	D_ij = Σ_{l=j+1..i} log f_l = c_i − c_j,  c_t = Σ_{l≤t} log f_l
//
// then the softmax as usual. It is ALiBi with a slope learned per token (a gate of 1 forgets
// nothing; x-transformers calls it data-dependent ALiBi). No position is read: the gates count
// the tokens between key and query by their content. w [d_model, heads] and b [heads] are
// learned per layer; the whole attention is ops.ForgetAttention (the hook Attender, given the
// layer's input). Causal only. The paper's FoX (Pro) adds output gates, QK-norm and a key/value
// shift, and uses no rope (its configs set use_rope: false; rope is the baseline Transformer's).
type FoX struct {
	Heads int
	w, b  []nn.Param // per layer: the gate's weights [d_model, heads] and bias [heads]
	LogScale
}

func (f *FoX) Name() string { return "fox" }

// Params returns the gates' weights and biases of every layer, in layer order.
func (f *FoX) Params() []nn.Param {
	var ps []nn.Param
	for l := range f.w {
		ps = append(ps, f.w[l], f.b[l])
	}
	return ps
}

// Attend is the layer's forgetting attention: the gates' logits w·x + b [Batch·Len, heads] from
// the layer's input, then ops.ForgetAttention.
func (f *FoX) Attend(c Ctx, q, k, v *G.Node, a AttendConfig) (*G.Node, error) {
	if !a.Causal {
		return nil, errors.New("position: fox needs causal attention")
	}
	if a.Input == nil {
		return nil, errors.New("position: fox reads its forget gates from the layer's input, which the attention did not give")
	}
	if c.Layer < 0 || c.Layer >= len(f.w) {
		return nil, fmt.Errorf("position: fox has forget gates for %d layers, asked for layer %d", len(f.w), c.Layer)
	}
	w, err := c.B.Param(f.w[c.Layer])
	if err != nil {
		return nil, err
	}
	b, err := c.B.Param(f.b[c.Layer])
	if err != nil {
		return nil, err
	}
	g, err := ops.Linear(a.Input, w, b) // the gates' logits [B·T, H]
	if err != nil {
		return nil, err
	}
	return ops.ForgetAttention(q, k, v, g, ops.ForgetConfig{Batch: c.Batch, Len: c.Len, Heads: a.Heads, Unscaled: a.Unscaled, Capture: a.Capture})
}
