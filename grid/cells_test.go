package grid

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/setup"
	"github.com/posformer/posformer/train"
)

// encoderGrid is a small Protocol B grid (configs/ruoss2023.yaml): an encoder filling blank
// output slots, parity and reverse, early stopping on validation token accuracy, graphs of many
// lengths.
const encoderGrid = `name: enc
task: {min_len: 1, max_len: 12, format: slots}
model: {d_model: 16, heads: 2, layers: 2, d_ff: 64, bidirectional: true}
train: {steps: 200, batch_size: 8, val_every: 50, val_examples: 4, early_stop: {patience: 4, min_delta: 0.005, target: 1.0, metric: token_accuracy}}
eval: {lengths: "6..24:6", examples: 8}
sweep:
  task:
    - {name: parity}
    - {name: reverse, symbols: 2}
  position:
    - {kind: sinusoidal}
    - {kind: rope, randomized: true, max_random: 64}
  seed: [1]
`

// TestEncoderRunsConcurrently: the encoder grid's runs trained two at a time in one process
// (-jobs 2) end with the checkpoints, best checkpoints and results of the same runs trained one at
// a time, byte for byte. (The ruoss2023 grid at -jobs 2 crashed at step 376 of its first runs:
// two runs interleave the ops' serial numbers, which changed the graphs' hash codes into a
// collision that Gorgonia's compiler took for one node; model.Build now rebuilds such graphs,
// TestBuildRebuildsOnHashCollision.)
func TestEncoderRunsConcurrently(t *testing.T) {
	base := t.TempDir()
	var dirs [2]string
	var cells []config.Cell
	for i, jobs := range []int{1, 2} {
		cfg, _, err := config.Read([]byte(encoderGrid), "enc.yaml", []string{"out=" + filepath.Join(base, []string{"one", "two"}[i])})
		if err != nil {
			t.Fatal(err)
		}
		if cells, err = config.Expand(cfg); err != nil {
			t.Fatal(err)
		}
		checked, err := setup.CheckCells(cells, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := TrainCells(context.Background(), checked, CellOptions{Jobs: jobs}); err != nil {
			t.Fatalf("-jobs %d: %v", jobs, err)
		}
		dirs[i] = cells[0].Config.Out
	}
	if len(cells) != 4 {
		t.Fatalf("%d cells, want 4", len(cells))
	}
	for _, c := range cells {
		for _, f := range []string{"checkpoint.bin", rundir.BestCheckpoint, "results.csv", "results.json"} {
			a, err1 := os.ReadFile(filepath.Join(dirs[0], c.Name, f))
			b, err2 := os.ReadFile(filepath.Join(dirs[1], c.Name, f))
			if err1 != nil || err2 != nil {
				t.Fatalf("%s/%s: %v, %v", c.Name, f, err1, err2)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s/%s differs between -jobs 1 and -jobs 2", c.Name, f)
			}
		}
	}
}

// TestCellsInterruptedNameStage: a grid whose context is cancelled (a signal) before or as its
// runs start ends with train.ErrInterrupted saying where it stopped, never "context canceled".
func TestCellsInterruptedNameStage(t *testing.T) {
	cfg, _, err := config.Read([]byte(encoderGrid), "enc.yaml", []string{"out=" + t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cells, err := config.Expand(cfg)
	if err != nil {
		t.Fatal(err)
	}
	checked, err := setup.CheckCells(cells, false)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = TrainCells(ctx, checked, CellOptions{Jobs: 2})
	if !errors.Is(err, train.ErrInterrupted) || strings.Contains(err.Error(), "context canceled") || !strings.Contains(err.Error(), "-resume") {
		t.Errorf("a cancelled grid: %v; want train.ErrInterrupted naming where, and -resume", err)
	}
}
