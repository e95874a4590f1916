package train

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/posformer/posformer/position"
)

// TestConformanceResume: for every registered scheme (position.Kinds()), a run interrupted
// half-way and resumed from its checkpoint ends bit-identical to an uninterrupted one
// (checkpoint.bin, results.json, results.csv), so a scheme's state lives in its parameters and
// nothing of it is lost in a checkpoint.
func TestConformanceResume(t *testing.T) {
	for _, kind := range position.Kinds() {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			sets := []string{"position.kind=" + kind, "train.log_every=5", "train.val_every=10", "train.checkpoint_every=-1", "eval.lengths=1..6"}
			if position.ReadsTokens(kind) { // a scheme that numbers digits, on the task with digits
				sets = append(sets, "task.name=addition")
			}
			full := tinyConfig(t, filepath.Join(dir, "full"), sets...)
			if _, err := Run(context.Background(), full, Options{}); err != nil {
				t.Fatal(err)
			}
			cut := tinyConfig(t, filepath.Join(dir, "cut"), sets...)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if _, err := Run(ctx, cut, Options{Progress: &cancelAt{marker: "10/20", cancel: cancel}}); !errors.Is(err, ErrInterrupted) {
				t.Fatalf("the interrupted run: %v, want ErrInterrupted", err)
			}
			if _, err := Run(context.Background(), cut, Options{Resume: true}); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"checkpoint.bin", "results.csv", "results.json"} {
				a, _ := os.ReadFile(filepath.Join(dir, "full", full.Name, f))
				b, _ := os.ReadFile(filepath.Join(dir, "cut", cut.Name, f))
				if len(a) == 0 || !bytes.Equal(a, b) {
					t.Errorf("%s: the resumed run differs from the uninterrupted one", f)
				}
			}
		})
	}
}
