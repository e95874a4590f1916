package train

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/rundir"
)

// damagedGolden is the error message of a damaged run file of one class, from
// testdata/damaged/<class>.golden, with the run directory in place of RUN.
func damagedGolden(t *testing.T, class, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "damaged", class+".golden"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(strings.TrimSuffix(string(b), "\n"), "RUN", dir)
}

// truncate cuts a file to half its size, as a copy stopped midway or a full disk leaves it.
func truncate(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, st.Size()/2); err != nil {
		t.Fatal(err)
	}
}

// TestDamagedRunFiles: a real run directory whose results.json, diagnostics.json or checkpoint
// is truncated gives, from the loader, the golden error of testdata/damaged: it names the file
// and says what to do.
func TestDamagedRunFiles(t *testing.T) {
	res, err := Run(context.Background(), tinyConfig(t, t.TempDir()), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		class, file string
		load        func(dir string) error
	}{
		{"results_json", "results.json", func(dir string) error { _, err := ReadResult(dir); return err }},
		{"diagnostics_json", rundir.DiagnosticsFile, func(dir string) error { _, err := ReadDiagnostics(dir); return err }},
		{"checkpoint", "checkpoint.bin", func(dir string) error { _, _, err := LoadModel(dir); return err }},
	} {
		dir := filepath.Join(t.TempDir(), "run")
		if err := os.CopyFS(dir, os.DirFS(res.Dir)); err != nil {
			t.Fatal(err)
		}
		if err := c.load(dir); err != nil {
			t.Fatalf("%s: the undamaged copy: %v", c.class, err)
		}
		truncate(t, filepath.Join(dir, c.file))
		err := c.load(dir)
		if want := damagedGolden(t, c.class, dir); err == nil || err.Error() != want {
			t.Errorf("%s truncated:\n got: %v\nwant: %s", c.file, err, want)
		}
	}
}

// TestResumeReevaluatesDamagedResults: what the damaged results.json's error tells to do works:
// -resume on the run evaluates it again from its checkpoint, without training (its log keeps
// its lines), and writes the results the run first had, bit for bit.
func TestResumeReevaluatesDamagedResults(t *testing.T) {
	cfg := tinyConfig(t, t.TempDir())
	res, err := Run(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(res.Dir, "results.json")
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	metrics, err := os.ReadFile(filepath.Join(res.Dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	truncate(t, path)
	if _, err := ReadResult(res.Dir); err == nil || !strings.Contains(err.Error(), "-resume") {
		t.Fatalf("the damaged results.json: %v, want an error that says -resume", err)
	}
	evaluated := 0
	if _, err := Run(context.Background(), cfg, Options{Resume: true, evaluated: func(string, int) { evaluated++ }}); err != nil {
		t.Fatalf("-resume on a run with a damaged results.json: %v", err)
	}
	if evaluated != len(cfg.Eval.Lengths) {
		t.Errorf("-resume evaluated %d lengths, want all %d", evaluated, len(cfg.Eval.Lengths))
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("results.json after -resume differs from the run's first:\n got: %s\nwant: %s", got, want)
	}
	if after, _ := os.ReadFile(filepath.Join(res.Dir, "metrics.jsonl")); !bytes.Equal(after, metrics) {
		t.Errorf("-resume trained again: metrics.jsonl changed")
	}
}
