package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/grid"
)

// TestEditedGridYAMLRefused: a grid.yaml edited by hand after its grid trained (train.steps
// 4 → 3000, model.d_model 16 → 64) is refused by report, naming the run, the changed fields and
// grid.yaml, rather than reported as the set-up that trained; through the loader (grid.Load),
// the CLI and a real process.
func TestEditedGridYAMLRefused(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "g.yaml"), "name: g\n"+strings.Replace(tinyConfig, "steps: 20", "steps: 4", 1)+"sweep:\n  seed: [1, 2]\n")
	out := filepath.Join(base, "out")
	if err := runCaught("-config", cfg, "-out", out, "-jobs", "1"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(out, "g")
	path := filepath.Join(dir, config.GridFile)
	orig, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, edit := range [][2]string{{"steps: 4", "steps: 3000"}, {"d_model: 16", "d_model: 64"}} {
		if !strings.Contains(string(orig), edit[0]) {
			t.Fatalf("grid.yaml has no %q:\n%s", edit[0], orig)
		}
		writeFile(t, path, strings.Replace(string(orig), edit[0], edit[1], 1))
		field := strings.TrimSuffix(edit[0], ":"+strings.SplitN(edit[0], ":", 2)[1])
		if _, err := grid.Load(dir); err == nil || !strings.Contains(err.Error(), field) || !strings.Contains(err.Error(), "grid.yaml was changed after training") {
			t.Errorf("grid.Load after %s → %s: %v", edit[0], edit[1], err)
		}
		if err := runCaught("report", dir); err == nil || !strings.Contains(err.Error(), "is not what the grid's cell seed-1 trains") {
			t.Errorf("report after %s → %s: %v", edit[0], edit[1], err)
		}
		_, stderr, code := runChild(t, "report", dir)
		oneLineError(t, "report after editing grid.yaml", stderr, code, "config.yaml is not what the grid's cell", field, "grid.yaml was changed after training")
	}
	writeFile(t, path, string(orig))
	if err := runCaught("report", dir); err != nil {
		t.Errorf("report of the grid as it trained: %v", err)
	}
}
