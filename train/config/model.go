package config

import (
	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/model"
)

// Model is the `model:` section as a config holds it: the model's sizes and options with a record
// of the keys written. WithDefaults fills the fields that were not written; Config hands the model
// its typed model.Config.
type Model struct {
	// Vocab is the vocabulary size. Default: the task's vocabulary (filled by train). 0:
	// refused.
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
	// Seed initialises the weights. Default: the run's seed (filled by train). 0 is legal.
	Seed uint64 `yaml:"init_seed" json:"init_seed"`

	// Written records the keys written below model: ("d_model", ...): WithDefaults keeps what
	// was written, 0 included, for Validate to judge.
	Written presence.Keys `yaml:"-" json:"-"`
}

// WithDefaults fills the fields that were not written (and hold zero) with their defaults; a
// written value, 0 included, is kept for Validate to judge.
func (c Model) WithDefaults() Model {
	w := c.Written
	presence.Fill(w, "d_model", &c.DModel, model.DefaultDModel)
	presence.Fill(w, "heads", &c.Heads, model.DefaultHeads)
	presence.Fill(w, "layers", &c.Layers, model.DefaultLayers)
	presence.Fill(w, "d_ff", &c.DFF, 4*c.DModel)
	presence.Fill(w, "dtype", &c.Dtype, model.DefaultDtype)
	return c
}

// Config is the section as the model takes it, typed (defaults filled as WithDefaults fills them).
func (c Model) Config() model.Config {
	c = c.WithDefaults()
	return model.Config{Vocab: c.Vocab, DModel: c.DModel, Heads: c.Heads, Layers: c.Layers, DFF: c.DFF, Dtype: c.Dtype,
		Bidirectional: c.Bidirectional, UnscaledLogits: c.UnscaledLogits, Seed: c.Seed}
}
