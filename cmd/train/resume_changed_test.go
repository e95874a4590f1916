package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGridResumedAfterChange: a grid resumed (-resume) after its config changed is refused with
// one line naming what changed, each swept field and each other field with its old and new
// value (testdata/resume/changed.golden, a line a change), through the CLI and a real process;
// nothing is trained and grid.yaml is kept.
func TestGridResumedAfterChange(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "g.yaml"), "name: g\n"+tinyConfig+"sweep:\n  seed: [1]\n")
	out := filepath.Join(base, "runs")
	if err := runCaught("-config", cfg, "-out", out, "-jobs", "1"); err != nil {
		t.Fatal(err)
	}
	grid := filepath.Join(out, "g")
	kept, err := os.ReadFile(filepath.Join(grid, "grid.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "resume", "changed.golden"))
	if err != nil {
		t.Fatal(err)
	}
	wants := strings.Split(strings.TrimSuffix(strings.ReplaceAll(string(golden), "GRID", grid), "\n"), "\n")
	for i, c := range []struct {
		sweep string
		sets  []string
	}{{"[1, 2]", nil}, {"[1]", []string{"train.steps=30", "eval.examples=4"}}} {
		writeFile(t, cfg, "name: g\n"+tinyConfig+"sweep:\n  seed: "+c.sweep+"\n")
		sets := c.sets
		args := append([]string{"-config", cfg, "-out", out, "-jobs", "1", "-resume"}, setArgs(sets)...)
		if err := runCaught(args...); err == nil || err.Error() != wants[i] {
			t.Errorf("-resume %v:\n got: %v\nwant: %s", sets, err, wants[i])
		}
		_, stderr, code := runChild(t, args...)
		oneLineError(t, "-resume after a change", stderr, code, "train: "+wants[i])
		if now, _ := os.ReadFile(filepath.Join(grid, "grid.yaml")); string(now) != string(kept) {
			t.Errorf("-resume %v rewrote grid.yaml", sets)
		}
	}
}

// setArgs is -set before each override.
func setArgs(sets []string) []string {
	var args []string
	for _, s := range sets {
		args = append(args, "-set", s)
	}
	return args
}
