package main

import (
	"os"
	"path/filepath"
	"testing"
)

// smallCorpus is a committed corpus of 40 short documents (about 4.7 kB of training stream) and
// its hash, for lm runs in tests; the path is relative to this package's directory.
var smallCorpus = filepath.Join("..", "..", "train", "config", "testdata", "corpus", "small.tar.gz")

const smallCorpusSHA256 = "f786e628737f9b003452eaba51b7f77e543e1b788b60e0ddb1f43fe6329ebe3b"

// lmTinyConfig is a tiny lm run on smallCorpus, with an evaluation variant.
var lmTinyConfig = `
task: {name: lm, min_len: 16, max_len: 16, corpus: ` + smallCorpus + `, corpus_sha256: ` + smallCorpusSHA256 + `}
model: {d_model: 8, heads: 2, layers: 1, d_ff: 8}
position: {kind: rope}
train: {steps: 4, batch_size: 2, val_every: 2, val_examples: 2, checkpoint_every: 2}
eval:
  lengths: [8, 16, 32]
  variants:
    - {name: yarn, rope_scaling: yarn}
`

// TestReportLMRun: train report on an lm run evaluated at contexts shorter than task.min_len
// (in range for lm: every context up to the training windows') reports it; it was refused as
// 'length 8 (...) is out of range'.
func TestReportLMRun(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "lm.yaml"), lmTinyConfig)
	out := filepath.Join(base, "out")
	if err := runCaught("-config", cfg, "-out", out); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(out, "lm_rope_s1")
	if err := runCaught("report", dir); err != nil {
		t.Fatalf("report: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "report", "report.md")); err != nil {
		t.Error(err)
	}
}
