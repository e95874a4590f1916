package config

import (
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestSweepAliasWritesReadableGrid: a sweep value written as a YAML alias (*lr of an anchor in
// the base) is written back to the grid's file whole, so the file reads back as the same grid
// (with an alias left in, -resume and report could never read it again).
func TestSweepAliasWritesReadableGrid(t *testing.T) {
	src := `
task: {max_len: 3}
train: {steps: 5, lr: &lr 0.002}
position: &pos {kind: rope}
sweep:
  train.lr: [*lr, 0.003]
  position: [*pos, {kind: none}]
`
	c, _, err := Read([]byte(src), "alias.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := Expand(c)
	if err != nil || len(cells) != 4 || cells[0].Config.Train.LR != 0.002 || cells[0].Config.Position.Kind != "rope" {
		t.Fatalf("cells %v, %v; want 4 with lr 0.002 and rope first", len(cells), err)
	}
	out, err := yaml.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "grid.yaml")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	back, _, err := ReadWritten(path)
	if err != nil {
		t.Fatalf("the written grid does not read back: %v\n%s", err, out)
	}
	again, err := Expand(back)
	if err != nil || len(again) != len(cells) {
		t.Fatalf("the written grid expands to %d cells (%v), not %d", len(again), err, len(cells))
	}
	for i := range cells {
		if again[i].Name != cells[i].Name || again[i].Config.Train.LR != cells[i].Config.Train.LR {
			t.Errorf("cell %d: %s (lr %g) read back as %s (lr %g)", i, cells[i].Name, cells[i].Config.Train.LR, again[i].Name, again[i].Config.Train.LR)
		}
	}
}
