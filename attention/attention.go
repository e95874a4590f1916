// Package attention is multi-head self-attention whose position handling is delegated to a
// position.Scheme's optional hooks. In order: q, k, v projections; rotate q and k (QKRotator);
// scale q (QueryScaler: log-length scaling, when the scheme's log_scaling is on); the
// query-dependent position term (RelativeKeyer); scale by 1/√d_head (not with
// Config.Unscaled); add the logit bias (LogitBiaser, built once per graph by the model, or in an
// evaluation RowBiaser's, which the fused op evaluates block of rows by block of rows); causal mask; softmax; weighted values;
// merge heads; output projection. A scheme that computes the attention itself (Attender, CoPE's)
// replaces the middle steps. The middle steps run in one fused op (internal/ops.Attention)
// that reads each head in place, so no tensor is reshaped.
package attention

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/position"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Config describes one attention layer.
type Config struct {
	DModel, Heads int
	// Bidirectional lets every query attend to every key; by default attention is causal.
	Bidirectional bool
	// Unscaled leaves the 1/√d_head scale of the logits out and initialises W_q √d_head times
	// smaller instead, so the initial logits are the same: T5's convention (Mesh TensorFlow; the
	// T5 models of Kazemnejad et al. 2023). Only training differs: Adam moves W_q by steps of
	// the same size, which are now √d_head times larger relative to its values.
	Unscaled bool
}

// Layer holds one attention layer's weights: W [d_model, d_model] (input × output) and b [d_model]
// for each of q, k, v and the output projection.
type Layer struct {
	cfg            Config
	wq, wk, wv, wo nn.Param
	bq, bk, bv, bo nn.Param
}

// New initialises a layer: weights N(0, std²) (outStd for the output projection; W_q with
// std/√d_head when cfg.Unscaled), biases 0.
func New(prefix string, cfg Config, dt tensor.Dtype, rng *rand.Rand, std, outStd float64) (*Layer, error) {
	if cfg.Heads < 1 || cfg.DModel < 1 || cfg.DModel%cfg.Heads != 0 {
		return nil, fielderr.New("model.heads", "%d heads do not divide model.d_model %d", cfg.Heads, cfg.DModel)
	}
	d := cfg.DModel
	w := func(name string, s float64) nn.Param {
		return nn.Param{Name: prefix + "." + name, Value: nn.Normal(dt, rng, s, d, d)}
	}
	b := func(name string) nn.Param { return nn.Param{Name: prefix + "." + name, Value: nn.Full(dt, 0, d)} }
	qStd := std
	if cfg.Unscaled {
		qStd = std / math.Sqrt(float64(d/cfg.Heads))
	}
	return &Layer{cfg: cfg,
		wq: w("wq", qStd), wk: w("wk", std), wv: w("wv", std), wo: w("wo", outStd),
		bq: b("bq"), bk: b("bk"), bv: b("bv"), bo: b("bo"),
	}, nil
}

// Params lists the layer's parameters.
func (l *Layer) Params() []nn.Param {
	return []nn.Param{l.wq, l.bq, l.wk, l.bk, l.wv, l.bv, l.wo, l.bo}
}

func (l *Layer) linear(b *nn.Builder, x *G.Node, w, bias nn.Param) (*G.Node, error) {
	wn, err := b.Param(w)
	if err != nil {
		return nil, err
	}
	bn, err := b.Param(bias)
	if err != nil {
		return nil, err
	}
	return ops.Linear(x, wn, bn)
}

// PerGraph is what the model builds once per graph from the scheme's hooks and hands to every
// layer: the logit bias (position.LogitBiaser, nil for none), or in an evaluation a bias the
// attention evaluates by rows (position.RowBiaser, zero for none), and the table of relative
// keys (position.RelativeKeyer's RelativeTable, nil for none).
type PerGraph struct {
	Bias, RelTable *G.Node
	Rows           ops.RowBias
}

// Build applies the layer to x [Batch·Len, d_model] and returns [Batch·Len, d_model]; c.Layer
// is the layer's index among the blocks.
func (l *Layer) Build(c position.Ctx, scheme position.Scheme, x *G.Node, g PerGraph) (*G.Node, error) {
	return l.BuildCapture(c, scheme, x, g, nil)
}

// BuildCapture is Build with the attention weights handed to capture after every run (nil: none,
// which is Build).
func (l *Layer) BuildCapture(c position.Ctx, scheme position.Scheme, x *G.Node, g PerGraph, capture *ops.AttentionCapture) (*G.Node, error) {
	q, err := l.linear(c.B, x, l.wq, l.bq) // [B·T, D]
	if err != nil {
		return nil, err
	}
	k, err := l.linear(c.B, x, l.wk, l.bk) // [B·T, D]
	if err != nil {
		return nil, err
	}
	v, err := l.linear(c.B, x, l.wv, l.bv) // [B·T, D]
	if err != nil {
		return nil, err
	}
	if r, ok := scheme.(position.QKRotator); ok {
		if q, k, err = r.RotateQK(c, q, k); err != nil {
			return nil, fmt.Errorf("attention: %s rotation: %w", scheme.Name(), err)
		}
	}
	if qs, ok := scheme.(position.QueryScaler); ok {
		if q, err = qs.ScaleQuery(c, q); err != nil { // q·s_h·ln n [B·T, D]; q itself when off
			return nil, fmt.Errorf("attention: %s log_scaling: %w", scheme.Name(), err)
		}
	}
	var rel ops.RelativeKeys
	if r, ok := scheme.(position.RelativeKeyer); ok {
		if q, rel, err = r.RelativeKeys(c, g.RelTable, q); err != nil { // q + u [B·T, D]; q + v [B·T, D], keys [(B·)(2T−1), D]
			return nil, fmt.Errorf("attention: %s relative keys: %w", scheme.Name(), err)
		}
	}
	var y *G.Node // [B·T, D], heads merged
	if a, ok := scheme.(position.Attender); ok {
		y, err = a.Attend(c, q, k, v, position.AttendConfig{Heads: l.cfg.Heads, Causal: !l.cfg.Bidirectional, Unscaled: l.cfg.Unscaled, Capture: capture, Input: x})
	} else {
		y, err = ops.Attention(q, k, v, g.Bias, ops.AttentionConfig{
			Batch: c.Batch, Len: c.Len, Heads: l.cfg.Heads, Causal: !l.cfg.Bidirectional, Unscaled: l.cfg.Unscaled, Capture: capture, Rel: rel, Rows: g.Rows,
		})
	}
	if err != nil {
		return nil, err
	}
	return l.linear(c.B, y, l.wo, l.bo)
}
