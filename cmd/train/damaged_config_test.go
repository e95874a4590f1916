package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedRunConfigCLI: a grid's run whose config.yaml is cut short (its eval: section lost)
// is refused by `train report`, `train inspect`, `train export` and the grid's -resume with one
// line naming that file and what to do (config/testdata/damaged/config_yaml.golden), through the
// CLI and a real process: not as a grid.yaml changed after training, a checkpoint of another
// config, or a run of a different config.
func TestDamagedRunConfigCLI(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "g.yaml"), "name: g\n"+tinyConfig+"sweep:\n  seed: [1]\n")
	out := filepath.Join(base, "runs")
	if err := runCaught("-config", cfg, "-out", out); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(out, "g", "seed-1")
	path := filepath.Join(run, "config.yaml")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b[:strings.Index(string(b), "\neval:")+1], 0o644); err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join("..", "..", "config", "testdata", "damaged", "config_yaml.golden"))
	if err != nil {
		t.Fatal(err)
	}
	msg := strings.ReplaceAll(strings.TrimSuffix(string(golden), "\n"), "RUN", run)
	for prefix, args := range map[string][]string{
		"":          {"report", filepath.Join(out, "g")},
		"inspect: ": {"inspect", run, "-length", "3"},
		"export: ":  {"export", run, "-o", filepath.Join(base, "m.safetensors")},
		"run seed-1: cannot resume " + run + ": ": {"-config", cfg, "-out", out, "-resume", "-jobs", "1"},
	} {
		want := prefix + msg
		if err := runCaught(args...); err == nil || err.Error() != want {
			t.Errorf("%s:\n got: %v\nwant: %s", args[0], err, want)
		}
		_, stderr, code := runChild(t, args...)
		oneLineError(t, args[0]+" with config.yaml cut", stderr, code, "train: "+want)
	}
}
