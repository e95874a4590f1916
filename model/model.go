// Package model is posformer's decoder-only transformer, pre-LayerNorm, with a pluggable
// position scheme:
//
//	x = Embed(tokens) [+ position hook]              // [B·T, D]
//	for each block:
//	    x = x + Attention(LayerNorm(x))              // hooks: rotate q/k, logit bias
//	    x = x + W₂·GELU(W₁·LayerNorm(x) + b₁) + b₂
//	logits = Head(LayerNorm(x))                      // [B·T, V]
//
// Activations stay 2-D ([B·T, D], one row per token) from end to end. The weights are plain
// tensors (nn.Param) shared by the graph of every (batch, length) shape, so a model trained at one
// length is evaluated at any other with the same weights.
package model

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"

	"github.com/posformer/posformer/attention"
	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/position"
	"gorgonia.org/tensor"
)

// Config is a model's sizes and options: the `model:` section of a YAML config, as package
// config decodes it (with a record of the keys written) and the model takes it. Each field's doc
// says its default and whether 0 is legal.
type Config struct {
	// Vocab is the vocabulary size. Default: the task's vocabulary (filled by the config for its
	// task). 0: refused.
	Vocab int `yaml:"vocab,omitempty" json:"vocab,omitempty"`
	// DModel is the width of every token's vector. Default: 64. 0: refused.
	DModel int `yaml:"d_model" json:"d_model"`
	// Heads is the number of attention heads; it must divide DModel. Default: 4. 0: refused.
	Heads int `yaml:"heads" json:"heads"`
	// Layers is the number of transformer blocks. Default: 2. 0: refused.
	Layers int `yaml:"layers" json:"layers"`
	// DFF is the hidden width of each block's MLP. Default: 4·DModel. 0: refused.
	DFF int `yaml:"d_ff" json:"d_ff"`
	// Dtype is float32 or float64. Default: float32. Empty: refused.
	Dtype string `yaml:"dtype" json:"dtype"`
	// Bidirectional turns off the causal mask (an encoder); alibi and t5 then bias keys on both
	// sides of the query. Default: false (causal).
	Bidirectional bool `yaml:"bidirectional,omitempty" json:"bidirectional,omitempty"`
	// UnscaledLogits leaves the 1/√d_head scale of the attention logits out and initialises W_q
	// √d_head times smaller, so the initial logits are the same (T5's convention;
	// attention.Config.Unscaled). Default: false (scaled, Vaswani et al. 2017).
	UnscaledLogits bool `yaml:"unscaled_logits,omitempty" json:"unscaled_logits,omitempty"`
	// Seed initialises the weights. Default: the run's seed (filled by the config). 0 is legal.
	Seed uint64 `yaml:"init_seed" json:"init_seed"`
	// Digit0 is the task's token of digit 0 (position.Dims.Digit0), filled by the config for
	// its task; never written in a config.
	Digit0 int `yaml:"-" json:"-"`

	// Written records the keys written below model: ("d_model", ...; package internal/presence):
	// WithDefaults keeps what was written, 0 included, for Validate to judge.
	Written presence.Keys `yaml:"-" json:"-"`
}

// WithDefaults fills the fields that were not written (and hold zero) with their defaults; a
// written value, 0 included, is kept for Validate to judge.
func (c Config) WithDefaults() Config {
	w := c.Written
	presence.Fill(w, "d_model", &c.DModel, 64)
	presence.Fill(w, "heads", &c.Heads, 4)
	presence.Fill(w, "layers", &c.Layers, 2)
	presence.Fill(w, "d_ff", &c.DFF, 4*c.DModel)
	presence.Fill(w, "dtype", &c.Dtype, "float32")
	return c
}

// Validate checks the config, naming the field and the fix.
func (c Config) Validate() error {
	switch {
	case c.Vocab < 2:
		return fielderr.New("model.vocab", "must be at least 2, got %d", c.Vocab)
	case c.DModel < 1:
		return fielderr.New("model.d_model", "must be positive, got %d", c.DModel)
	case c.Heads < 1:
		return fielderr.New("model.heads", "must be positive, got %d", c.Heads)
	case c.DModel%c.Heads != 0:
		return fielderr.New("model.heads", "%d heads do not divide model.d_model %d; pick heads among the divisors of d_model", c.Heads, c.DModel)
	case c.Layers < 1:
		return fielderr.New("model.layers", "must be positive, got %d", c.Layers)
	case c.DFF < 1:
		return fielderr.New("model.d_ff", "must be positive, got %d", c.DFF)
	}
	if _, err := nn.Dtype(c.Dtype); err != nil || c.Dtype == "" {
		return fielderr.New("model.dtype", "must be float32 or float64, got %q", c.Dtype)
	}
	return nil
}

// SchemeDims are the dimensions a model of config c (defaults filled) builds its position scheme
// for: a config's checks build the scheme alone with them, without the model's weights.
func (c Config) SchemeDims() position.Dims {
	dt, _ := nn.Dtype(c.Dtype)
	return position.Dims{DModel: c.DModel, Heads: c.Heads, Layers: c.Layers, Dtype: dt, Seed: c.Seed, Bidirectional: c.Bidirectional, Digit0: c.Digit0}
}

// builds counts the models New has built, for the tests that check a run, a resume and a grid
// cell each build their model once.
var builds atomic.Int64

// Builds is how many models New has built in this process.
func Builds() int64 { return builds.Load() }

// Model is the transformer's weights and its position scheme.
type Model struct {
	Cfg    Config
	Scheme position.Scheme
	Dtype  tensor.Dtype
	// TrainLen is the longest sequence (in tokens) the model is trained on; 0 when unknown. The
	// trainer sets it. Graphs longer than it are evaluations beyond training (position.Ctx).
	TrainLen int

	tokEmb nn.Param
	blocks []block
	lnfG   nn.Param
	lnfB   nn.Param
	headW  nn.Param
	headB  nn.Param
}

type block struct {
	ln1G, ln1B nn.Param
	attn       *attention.Layer
	ln2G, ln2B nn.Param
	w1, b1     nn.Param
	w2, b2     nn.Param
}

// New builds and initialises a model with the given position scheme spec. Initialisation
// (deterministic in cfg.Seed): token embeddings N(0, 1) as PyTorch's nn.Embedding; every weight
// matrix N(0, 1/(3·fan_in)) (the variance of PyTorch's default uniform init), the output
// projections of attention and MLP scaled down by √(2·layers) (and W_q by √d_head with
// cfg.UnscaledLogits); biases 0; LayerNorm γ = 1, β = 0.
func New(cfg Config, spec position.Spec) (*Model, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	scheme, err := position.New(spec, cfg.SchemeDims())
	if err != nil {
		return nil, err
	}
	builds.Add(1)
	dt, _ := nn.Dtype(cfg.Dtype)
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x90f0))
	D, F, V := cfg.DModel, cfg.DFF, cfg.Vocab
	std := func(fanIn int) float64 { return 1 / math.Sqrt(3*float64(fanIn)) }
	resid := math.Sqrt(2 * float64(cfg.Layers))
	p := func(name string, t *tensor.Dense) nn.Param { return nn.Param{Name: name, Value: t} }
	m := &Model{Cfg: cfg, Scheme: scheme, Dtype: dt}
	m.tokEmb = p("tok_emb", nn.Normal(dt, rng, 1, V, D))
	for i := 0; i < cfg.Layers; i++ {
		pre := fmt.Sprintf("block%d", i)
		attn, err := attention.New(pre+".attn", attention.Config{DModel: D, Heads: cfg.Heads, Bidirectional: cfg.Bidirectional, Unscaled: cfg.UnscaledLogits}, dt, rng, std(D), std(D)/resid)
		if err != nil {
			return nil, err
		}
		m.blocks = append(m.blocks, block{
			ln1G: p(pre+".ln1.gamma", nn.Full(dt, 1, D)), ln1B: p(pre+".ln1.beta", nn.Full(dt, 0, D)),
			attn: attn,
			ln2G: p(pre+".ln2.gamma", nn.Full(dt, 1, D)), ln2B: p(pre+".ln2.beta", nn.Full(dt, 0, D)),
			w1: p(pre+".mlp.w1", nn.Normal(dt, rng, std(D), D, F)), b1: p(pre+".mlp.b1", nn.Full(dt, 0, F)),
			w2: p(pre+".mlp.w2", nn.Normal(dt, rng, std(F)/resid, F, D)), b2: p(pre+".mlp.b2", nn.Full(dt, 0, D)),
		})
	}
	m.lnfG, m.lnfB = p("lnf.gamma", nn.Full(dt, 1, D)), p("lnf.beta", nn.Full(dt, 0, D))
	m.headW, m.headB = p("head.w", nn.Normal(dt, rng, std(D), D, V)), p("head.b", nn.Full(dt, 0, V))
	return m, nil
}

// Params lists every trainable tensor, the position scheme's included, in a fixed order.
func (m *Model) Params() []nn.Param {
	ps := []nn.Param{m.tokEmb}
	if pp, ok := m.Scheme.(position.Parameterized); ok {
		ps = append(ps, pp.Params()...)
	}
	if qs, ok := m.Scheme.(position.QueryScaler); ok { // log-length scaling: none when off
		ps = append(ps, qs.ScaleParams()...)
	}
	for _, b := range m.blocks {
		ps = append(ps, b.ln1G, b.ln1B)
		ps = append(ps, b.attn.Params()...)
		ps = append(ps, b.ln2G, b.ln2B, b.w1, b.b1, b.w2, b.b2)
	}
	return append(ps, m.lnfG, m.lnfB, m.headW, m.headB)
}

// NumParams counts the scalar parameters.
func (m *Model) NumParams() int {
	n := 0
	for _, p := range m.Params() {
		n += p.Value.Shape().TotalSize()
	}
	return n
}
