package train

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/posformer/posformer/export"
)

// finishedRun trains testutil.Minimal for a few steps into dir and returns the run directory.
func finishedRun(t *testing.T, dir string) string {
	t.Helper()
	cfg := tinyConfig(t, dir, "train.steps=3", "train.val_every=-1", "eval.lengths=1..2", "eval.examples=2")
	if _, err := Run(context.Background(), cfg, Options{}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, cfg.Name)
}

// exportTo writes the export of the finished run in dir to out, as `train export dir -o out`
// does (export.Check, LoadModel, export.Write), and returns its path.
func exportTo(dir, out string) (string, error) {
	path, err := export.Check(dir, out, false)
	if err != nil {
		return "", err
	}
	m, cfg, err := LoadModel(dir)
	if err != nil {
		return "", err
	}
	return path, export.Write(path, m, cfg)
}
