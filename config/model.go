package config

import (
	"fmt"

	"github.com/posformer/posformer/internal/presence"
)

// Model is the `model:` section as a config holds it: the model's sizes and options with a record
// of the keys written. WithDefaults fills the fields that were not written; package setup hands
// the model its typed model.Config (setup.ModelConfig).
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

// Defaults of the model: section (model.Config's: setup's tests check they agree).
const (
	DefaultDModel = 64
	DefaultHeads  = 4
	DefaultLayers = 2
	DefaultDtype  = "float32"
)

// WithDefaults fills the fields that were not written (and hold zero) with their defaults; a
// written value, 0 included, is kept for Validate to judge.
func (c Model) WithDefaults() Model {
	w := c.Written
	presence.Fill(w, "d_model", &c.DModel, DefaultDModel)
	presence.Fill(w, "heads", &c.Heads, DefaultHeads)
	presence.Fill(w, "layers", &c.Layers, DefaultLayers)
	presence.Fill(w, "d_ff", &c.DFF, 4*c.DModel)
	presence.Fill(w, "dtype", &c.Dtype, DefaultDtype)
	return c
}

// validate checks each field of the section (defaults filled) on its own; whether the heads
// divide d_model, and the model's size, package setup checks with the model.
func (c Model) validate() error {
	switch {
	case c.DModel < 1:
		return fmt.Errorf("model.d_model: must be positive, got %d", c.DModel)
	case c.Heads < 1:
		return fmt.Errorf("model.heads: must be positive, got %d", c.Heads)
	case c.Layers < 1:
		return fmt.Errorf("model.layers: must be positive, got %d", c.Layers)
	case c.DFF < 1:
		return fmt.Errorf("model.d_ff: must be positive, got %d", c.DFF)
	case c.Dtype != "float32" && c.Dtype != "float64":
		return fmt.Errorf("model.dtype: must be float32 or float64, got %q", c.Dtype)
	}
	return nil
}
