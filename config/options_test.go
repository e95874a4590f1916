package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/internal/testutil"
	"github.com/posformer/posformer/position"
	"go.yaml.in/yaml/v3"
)

// TestGridBaseCarriesOptionsOfSweptSchemes: a grid's base may hold the options of every scheme
// its sweep selects, each cell keeping its own scheme's; an option of a scheme no cell selects,
// or one a cell's own value gives to a scheme without it, is refused naming it.
func TestGridBaseCarriesOptionsOfSweptSchemes(t *testing.T) {
	c, _, err := Read([]byte(testutil.Minimal), "grid.yaml", []string{"position.max_positions=64", "sweep={position.kind: [sinusoidal, learned]}"})
	if err != nil {
		t.Fatal(err)
	}
	cells, err := Expand(c)
	if err != nil || len(cells) != 2 {
		t.Fatalf("%d cells, %v", len(cells), err)
	}
	if _, ok := cells[0].Config.Position.Option("max_positions"); ok || len(cells[0].Config.Position.OptionKeys()) != 0 {
		t.Errorf("the sinusoidal cell keeps learned's option: %v", cells[0].Config.Position.OptionKeys())
	}
	if v, _ := cells[1].Config.Position.Option("max_positions"); v != 64 {
		t.Errorf("the learned cell's max_positions is %v, want 64", v)
	}
	for _, bad := range []struct{ sets []string }{
		{[]string{"position.num_buckets=8", "sweep={position.kind: [sinusoidal, learned]}"}},
		{[]string{"sweep={position: [{kind: sinusoidal, num_buckets: 3}, {kind: t5}]}"}},
	} {
		_, _, err := Read([]byte(testutil.Minimal), "grid.yaml", bad.sets)
		if err == nil || !strings.Contains(err.Error(), "position.num_buckets: not an option of") {
			t.Errorf("%v: %v, want num_buckets refused", bad.sets, err)
		}
	}
}

// oldRunConfig is a run's config.yaml as an earlier posformer wrote it: every scheme's options
// whatever the kind.
const oldRunConfig = `name: copy_rope_s1
seed: 1
out: runs
task:
    name: copy
    min_len: 1
    max_len: 4
    symbols: 8
model:
    d_model: 16
    heads: 2
    layers: 1
    d_ff: 32
    dtype: float32
    init_seed: 1
position:
    kind: rope
    base: 500
    max_positions: 256
    init_std: 0.02
    rotary_fraction: 1
train:
    steps: 10
    batch_size: 4
    lr: 0.001
    warmup_steps: 0
    min_lr_ratio: 0.1
    beta1: 0.9
    beta2: 0.999
    eps: 1e-08
    weight_decay: 0
    grad_clip: 1
    log_every: 10
    val_every: 2
    val_examples: 64
    checkpoint_every: 500
eval:
    lengths: 1..8
    examples: 8
    batch_size: 128
    seed: 1001
`

// TestLoadOlderRunConfig: a run directory an earlier posformer wrote still loads (report, resume)
// and reads as the config a person's file with the same values resolves to, while a person's
// file with another scheme's option is refused.
func TestLoadOlderRunConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(oldRunConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, err := ReadWritten(path)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := c.Position.Option("base"); b != 500.0 || len(c.Position.OptionKeys()) != 2 {
		t.Fatalf("options %v, base %v", c.Position.OptionKeys(), b)
	}
	now, err := yaml.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(now), "max_positions") {
		t.Errorf("resolved again:\n%s", now)
	}
	if _, _, err := Read(nil, path, nil); err == nil || !strings.Contains(err.Error(), "not an option of rope") {
		t.Errorf("Read: %v", err)
	}
}

// TestOptionsTyped: the options written under position: reach the scheme as its own options
// struct, typed (the defaults of the keys not written filled), resolved for the kind the section
// holds: another kind's options struct for a changed kind, an error naming the key that kind
// does not have; a value of the wrong type given in code is refused by Validate, naming the key.
func TestOptionsTyped(t *testing.T) {
	c, _, err := Read([]byte(testutil.Minimal), "min.yaml", []string{"position.base=500", "position.rotary_fraction=0.5"})
	if err != nil {
		t.Fatal(err)
	}
	o, err := c.Position.Options()
	if err != nil {
		t.Fatal(err)
	}
	want := position.RoPEOptions{Base: 500, RotaryFraction: 0.5}
	if got, ok := o.(position.RoPEOptions); !ok || got != want {
		t.Errorf("options %#v, want %#v", o, want)
	}
	p := c.Position
	p.Kind = "sinusoidal"
	p = p.Without("rotary_fraction")
	if o, err := p.Options(); err != nil || o != (position.SinusoidalOptions{Base: 500}) {
		t.Errorf("sinusoidal with base 500: %#v, %v", o, err)
	}
	p.Kind = "t5"
	if _, err := p.Options(); err == nil || !strings.HasPrefix(err.Error(), "position.base: not an option of t5") {
		t.Errorf("t5 with base: %v, want base refused", err)
	}
	bad := Position{Spec: position.Spec{Kind: "rope"}}.With("base", "large").WithDefaults()
	if err := bad.Validate(); err == nil || !strings.HasPrefix(err.Error(), "position.base: want a float64") {
		t.Errorf("base: \"large\" in code: %v, want it refused", err)
	}
}
