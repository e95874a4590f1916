package config

import (
	"testing"
)

// TestGroupOfSweptMapping: a swept position mapping groups by its kind, with the mapping's other
// fields as the variant.
func TestGroupOfSweptMapping(t *testing.T) {
	cfg, _, err := Read([]byte(`
name: g
sweep:
  position:
    - {kind: rope}
    - {kind: rope, randomized: true, max_random: 128}
    - {kind: rope, rope_scaling: ntk}
    - kind: rope
      rope_scaling: interpolate
`), "g.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := Expand(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []Group{
		{Task: "copy", Scheme: "rope"},
		{Task: "copy", Scheme: "rope", Variant: "randomized=true,max_random=128"},
		{Task: "copy", Scheme: "rope", Variant: "rope_scaling=ntk"},
		{Task: "copy", Scheme: "rope", Variant: "rope_scaling=interpolate"},
	}
	for i, c := range cells {
		if g := GroupOf(c); g != want[i] {
			t.Errorf("cell %s: group %+v, want %+v", c.Name, g, want[i])
		}
	}
}

// TestGroupOfSweptTask: a swept task mapping groups by the task's name, with its other fields as
// the variant, and overlays the base's task section (the base's max_len and format stay).
func TestGroupOfSweptTask(t *testing.T) {
	cfg, _, err := Read([]byte(`
name: g
task: {max_len: 6, format: slots}
model: {bidirectional: true}
eval: {lengths: "1..8"}
sweep:
  task:
    - {name: reverse, symbols: 2}
    - {name: parity}
`), "g.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := Expand(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []Group{{Task: "reverse", Scheme: "sinusoidal", Variant: "symbols=2"}, {Task: "parity", Scheme: "sinusoidal"}}
	for i, c := range cells {
		if g := GroupOf(c); g != want[i] {
			t.Errorf("cell %s: group %+v, want %+v", c.Name, g, want[i])
		}
		if c.Config.Task.MaxLen != 6 || c.Config.Task.Format != "slots" {
			t.Errorf("cell %s: task %+v lost the base's max_len or format", c.Name, c.Config.Task)
		}
	}
}
