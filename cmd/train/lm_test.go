package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/inspect"
	"github.com/posformer/posformer/rundir"
)

// smallCorpus is a committed corpus of 40 short documents (about 4.7 kB of training stream) and
// its hash, for lm runs in tests; the path is relative to this package's directory.
var smallCorpus = filepath.Join("..", "..", "config", "testdata", "corpus", "small.tar.gz")

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
    - {name: yarn, when: [position.kind=rope], rope_scaling: yarn}
`

// trainedLM trains lmTinyConfig and returns its config file, -out and run directory.
func trainedLM(t *testing.T) (cfg, out, dir string) {
	t.Helper()
	base := t.TempDir()
	cfg = writeFile(t, filepath.Join(base, "lm.yaml"), lmTinyConfig)
	out = filepath.Join(base, "out")
	if err := runCaught("-config", cfg, "-out", out); err != nil {
		t.Fatal(err)
	}
	return cfg, out, filepath.Join(out, "lm_rope_s1")
}

// TestReportLMRun: train report on an lm run evaluated at contexts shorter than task.min_len
// (in range for lm: every context up to the training windows') reports it; it was refused as
// 'length 8 (...) is out of range'.
func TestReportLMRun(t *testing.T) {
	_, _, dir := trainedLM(t)
	if err := runCaught("report", dir); err != nil {
		t.Fatalf("report: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "report", "report.md")); err != nil {
		t.Error(err)
	}
}

// TestForceRemovesEveryLMRunFile: every entry an lm run (and export and report on it) writes in
// its run directory is removed by -force; checked with a -force run that diverges at once, so it
// writes no scores of its own and nothing of the old run may be left beside it (an old lm.csv
// was).
func TestForceRemovesEveryLMRunFile(t *testing.T) {
	cfg, out, dir := trainedLM(t)
	for _, args := range [][]string{{"export", dir}, {"report", dir}} {
		if err := runCaught(args...); err != nil {
			t.Fatalf("%s: %v", args[0], err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Each old entry is held open, so that its inode cannot be reused by a new file of the
	// -force run (os.SameFile below tells an old entry from a new one).
	old := map[string]os.FileInfo{}
	for _, e := range entries {
		f, err := os.Open(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		old[e.Name()], _ = f.Stat()
	}
	for _, want := range []string{data.TraitsOf("lm").ScoresFile, rundir.VariantDir("yarn"), rundir.ExportName, "report", "results.json"} {
		if old[want] == nil {
			t.Fatalf("the lm run wrote no %s (it wrote %v)", want, entries)
		}
	}
	if err := runCaught("-config", cfg, "-out", out, "-force", "-set", "train.lr=1e30"); err == nil {
		t.Fatal("a learning rate of 1e30 did not diverge")
	}
	for name, fi := range old {
		if name == rundir.LockFile {
			continue // the lock -force holds while it clears
		}
		if now, err := os.Stat(filepath.Join(dir, name)); err == nil && os.SameFile(fi, now) {
			t.Errorf("-force left the old run's %s", name)
		}
	}
}

// TestInspectRefusesLM: inspect on an lm run (or one of its eval variants) is refused with one
// line pointing to lm.csv and train report, through inspect.Show, the CLI and a process, and
// writes nothing; it printed exact match and empty answers of training-stream windows.
func TestInspectRefusesLM(t *testing.T) {
	_, _, run := trainedLM(t)
	for _, dir := range []string{run, filepath.Join(run, rundir.VariantDir("yarn"))} {
		want := "inspect: " + dir + " is a language-model run (task lm): inspect shows the answers of sequence tasks, and it has none; its scores per context length are " +
			filepath.Join(run, data.TraitsOf("lm").ScoresFile) + ", and `train report " + run + "` tables and plots its bits per byte"
		if _, err := inspect.Show(context.Background(), dir, 16, 2, nil); err == nil || err.Error() != want {
			t.Errorf("inspect.Show(%s): %v\nwant %s", dir, err, want)
		}
		if err := runCaught("inspect", dir, "-length", "16", "-examples", "2"); err == nil || err.Error() != want {
			t.Errorf("inspect %s: %v\nwant %s", dir, err, want)
		}
		stdout, stderr, code := runChild(t, "inspect", dir, "-length", "16", "-examples", "2")
		if code != 1 || stdout != "" || stderr != "train: "+want+"\n" {
			t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
		}
		if _, err := os.Stat(filepath.Join(dir, "inspect")); err == nil {
			t.Errorf("a refused inspect wrote %s/inspect", dir)
		}
	}
}

// TestLMGridHeadline: an lm grid prints bits per byte against context length as its headline
// (and report.md's Summary) and in its progress lines, not exact match, which means nothing for lm.
func TestLMGridHeadline(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "lmgrid.yaml"), "name: lmgrid\n"+lmTinyConfig+"sweep:\n  position: [{kind: alibi}, {kind: rope}]\n")
	var out, progress bytes.Buffer
	if err := run(context.Background(), []string{"-config", cfg, "-out", base}, &out, &progress); err != nil {
		t.Fatal(err)
	}
	if p := progress.String(); !strings.Contains(p, "bits per byte") || strings.Contains(p, "exact") {
		t.Errorf("the progress lines give no bits per byte, or exact match:\n%s", p)
	}
	md, err := os.ReadFile(filepath.Join(base, "lmgrid", "report", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"stdout": out.String(), "report.md": string(md)} {
		if !strings.Contains(text, "| scheme | seeds | 8 | 16 | 32 |\n") || !strings.Contains(text, "| alibi | 1 |") {
			t.Errorf("%s has no bits-per-byte table:\n%s", what, text)
		}
		if strings.Contains(text, "exact") || strings.Contains(text, "Exact") {
			t.Errorf("%s shows exact match:\n%s", what, text)
		}
	}
}
