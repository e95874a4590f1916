package rundir_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/export"
	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/inspect"
	"github.com/posformer/posformer/internal/testutil"
	"github.com/posformer/posformer/report"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/train"
)

// TestEveryRunFileIsKnown: every entry that a run of each kind (early stopping with eval
// variants; the lm task, whose lm.csv -force once left behind), and export, inspect and report
// on it, write in its run directory is a name rundir.IsRunFile knows, so -force (rundir.Clear)
// removes all of it and leaves only the lock.
func TestEveryRunFileIsKnown(t *testing.T) {
	out := t.TempDir()
	corpus := filepath.Join("..", "config", "testdata", "corpus", "small.tar.gz")
	kinds := map[string][]string{
		"early": {"train.steps=30", "train.early_stop={patience: 2}",
			"eval.variants=[{name: ntk, rope_scaling: ntk}, {name: interp, rope_scaling: interpolate}]"},
		"lm": {"task={name: lm, min_len: 16, max_len: 16, corpus: " + corpus + ", corpus_sha256: f786e628737f9b003452eaba51b7f77e543e1b788b60e0ddb1f43fe6329ebe3b}",
			"model.d_model=8", "model.d_ff=8", "train.steps=4", "train.batch_size=2", "train.val_every=2", "train.val_examples=2",
			"eval.lengths=[8, 16, 32]", "eval.variants=[{name: yarn, rope_scaling: yarn}]"},
	}
	for kind, sets := range kinds {
		cfg := testutil.TinyConfig(t, config.Read, filepath.Join(out, kind), sets...)
		if _, err := train.Run(context.Background(), cfg, train.Options{}); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		dir := filepath.Join(out, kind, cfg.Name)
		path, err := export.Check(dir, "", false)
		if err != nil {
			t.Fatalf("%s: export: %v", kind, err)
		}
		m, mcfg, err := train.LoadModel(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := export.Write(path, m, mcfg); err != nil {
			t.Fatal(err)
		}
		if kind != "lm" { // inspect refuses lm runs
			in, err := inspect.Show(context.Background(), dir, 6, 4, nil)
			if err != nil {
				t.Fatalf("%s: inspect: %v", kind, err)
			}
			if _, _, err := report.WriteInspection(in); err != nil {
				t.Fatal(err)
			}
		}
		g, err := grid.Load(dir)
		if err != nil {
			t.Fatalf("%s: report: %v", kind, err)
		}
		if _, err := report.Write(g); err != nil {
			t.Fatalf("%s: report: %v", kind, err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var wrote []string
		for _, e := range entries {
			wrote = append(wrote, e.Name())
			if !rundir.IsRunFile(e.Name()) && e.Name() != rundir.LockFile {
				t.Errorf("%s: the run wrote %s, which rundir.IsRunFile does not know (-force would refuse or keep it)", kind, e.Name())
			}
		}
		if len(entries) < 10 {
			t.Errorf("%s: the run directory holds only %v", kind, wrote)
		}
		t.Logf("%s wrote %v", kind, wrote)
		if err := rundir.Clear(dir, entries); err != nil {
			t.Fatal(err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 1 || left[0].Name() != rundir.LockFile {
			t.Errorf("%s: Clear left %v", kind, left)
		}
	}
}
