package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMQARQueriesTrains (hostile F8): a config writing task.queries, as configs/README.md
// documents it, trains as a real process, and its run's config.yaml keeps the value (the loader
// refused the key as unknown); config's TestTaskQueriesReachesTheTask checks that it reaches
// the task, and the bad-config goldens mqar_queries_zero, mqar_queries_too_many and
// queries_not_mqar its refusals.
func TestMQARQueriesTrains(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir := t.TempDir()
	cfg := writeFile(t, filepath.Join(dir, "mqar.yaml"), `task: {name: mqar, symbols: 20, min_len: 8, max_len: 12, queries: 2}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
position: {kind: rope}
train: {steps: 2, batch_size: 4, val_every: 0}
eval: {lengths: "8..16", examples: 4}
`)
	out := filepath.Join(dir, "out")
	if _, stderr, code := runChild(t, "-config", cfg, "-out", out); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	written, err := os.ReadFile(filepath.Join(out, "mqar_rope_s1", "config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(written), "queries: 2") {
		t.Errorf("the run's config.yaml lost task.queries:\n%s", written)
	}
}
