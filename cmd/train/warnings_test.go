package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestT5WarningOnStderr: a t5 config whose training never reaches the test's distance buckets
// is warned about on stderr, at config time, and the grid's report.md repeats the warning.
func TestT5WarningOnStderr(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "t5.yaml")
	os.WriteFile(cfg, []byte(`name: g
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
position: {kind: t5}
train: {steps: 2, batch_size: 4}
eval: {lengths: "1..40:13", examples: 4}
sweep:
  seed: [1]
`), 0o644)
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-config", cfg, "-out", dir}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	const want = "reach 8 of the 29 relative-distance buckets"
	if !strings.Contains(stderr.String(), "train: warning: copy · t5: position: t5: the training sequences (up to 8 tokens) "+want) {
		t.Errorf("stderr lacks the warning:\n%s", stderr.String())
	}
	md, _ := os.ReadFile(filepath.Join(dir, "g", "report", "report.md"))
	if !strings.Contains(string(md), "## Warnings") || !strings.Contains(string(md), want) {
		t.Errorf("report.md lacks the warning:\n%s", md)
	}
}
