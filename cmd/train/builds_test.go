package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/posformer/posformer/model"
)

const buildsRun = `
task: {name: copy, min_len: 1, max_len: 3}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
position: {kind: learned, max_positions: 16}
train: {steps: 10, batch_size: 4, checkpoint_every: 5}
eval: {lengths: "1..4", examples: 4}
`

const buildsGrid = `
name: b
task: {name: copy, min_len: 1, max_len: 3}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
train: {steps: 10, batch_size: 4, val_every: 5}
eval: {lengths: "1..4", examples: 4}
select: {field: train.lr, values: [0.001, 0.003], seeds: [1]}
sweep:
  position.kind: [rope, t5]
  seed: [1, 2]
`

// TestModelBuiltOnce counts the models the CLI builds (model.Builds): a run builds its model
// once (reading and checking its config builds none), a resume once, and a grid with select:
// once per run it trains, however often its config is read, expanded and checked: 4 tuning runs
// and the 2 cells of seed 2; the choice scores the tuning runs from the validation they logged,
// and the 2 cells of seed 1 are copied from their tuning runs, without a model.
func TestModelBuiltOnce(t *testing.T) {
	base := t.TempDir()
	builds := func(what string, want int64, args ...string) {
		t.Helper()
		before := model.Builds()
		if err := run(context.Background(), args, io.Discard, io.Discard); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := model.Builds() - before; got != want {
			t.Errorf("%s built %d models, want %d", what, got, want)
		}
	}
	cfg := writeFile(t, filepath.Join(base, "run.yaml"), buildsRun)
	builds("a run", 1, "-config", cfg, "-out", base)
	// An interrupted run: its last checkpoint is there, its results are not.
	dir := filepath.Join(base, "copy_learned_s1")
	if err := os.Remove(filepath.Join(dir, "results.json")); err != nil {
		t.Fatal(err)
	}
	builds("a resume", 1, "-config", cfg, "-out", base, "-resume")
	if _, err := os.Stat(filepath.Join(dir, "results.json")); err != nil {
		t.Fatalf("the resume did not finish the run: %v", err)
	}
	grid := writeFile(t, filepath.Join(base, "grid.yaml"), buildsGrid)
	builds("a grid with select:", 6, "-config", grid, "-out", base, "-jobs", "2")
}
