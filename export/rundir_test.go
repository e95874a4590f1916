package export_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/export"
	"github.com/posformer/posformer/internal/testutil"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/train"
)

var update = flag.Bool("update", false, "rewrite the golden error messages in testdata/*.golden")

// finishedRun trains testutil.Minimal for a few steps into dir and returns the run directory.
func finishedRun(t *testing.T, dir string) string {
	t.Helper()
	cfg := testutil.TinyConfig(t, config.Read, dir, "train.steps=3", "train.val_every=-1", "eval.lengths=1..2", "eval.examples=2")
	if _, err := train.Run(context.Background(), cfg, train.Options{}); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, cfg.Name)
}

// exportRun is `train export DIR [-o out] [-force]`: Check, then the model train.LoadModel
// rebuilds, written by Write.
func exportRun(dir, out string, force bool) (string, error) {
	path, err := export.Check(dir, out, force)
	if err != nil {
		return "", err
	}
	m, cfg, err := train.LoadModel(dir)
	if err != nil {
		return "", err
	}
	return path, export.Write(path, m, cfg)
}

// TestExport: the default output is RUN_DIR/model.safetensors, holding the checkpoint's weights
// and config (the model and config train.LoadModel rebuilds, encoded as TestSafetensorsFormat
// checks); a second export needs -force; -force replaces it.
func TestExport(t *testing.T) {
	run := finishedRun(t, t.TempDir())
	path, err := exportRun(run, "", false)
	if err != nil || path != filepath.Join(run, rundir.ExportName) {
		t.Fatalf("Export: %q, %v", path, err)
	}
	b, _ := os.ReadFile(path)
	m, cfg, err := train.LoadModel(run)
	if err != nil {
		t.Fatal(err)
	}
	if want, err := export.Safetensors(m, cfg); err != nil || !bytes.Equal(b, want) {
		t.Fatalf("the export is not the checkpoint's model and config.yaml encoded (%v)", err)
	}
	if _, err := exportRun(run, "", false); err == nil || !strings.Contains(err.Error(), "-force") {
		t.Fatalf("a second export without force: %v", err)
	}
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := exportRun(run, "", true); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, b) {
		t.Fatal("-force did not write the same export again")
	}
}

// ExportCase is one line of testdata/export/cases.txt: a bad use of `train export`.
type exportCase struct {
	name string
	args []string // after `export`, with $TMP
}

// exportCases reads testdata/cases.txt.
func exportCases(t *testing.T) []exportCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "cases.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var cs []exportCase
	for _, line := range strings.Split(string(b), "\n") {
		name, args, ok := strings.Cut(line, "\t")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		cs = append(cs, exportCase{name, strings.Fields(args)})
	}
	if len(cs) < 10 {
		t.Fatalf("only %d export cases", len(cs))
	}
	return cs
}

// exportFixture fills tmp with the directories cases.txt names.
func exportFixture(t *testing.T, tmp string) {
	t.Helper()
	run := finishedRun(t, filepath.Join(tmp, "out"))
	if err := os.Rename(run, filepath.Join(tmp, "run")); err != nil {
		t.Fatal(err)
	}
	for dir, drop := range map[string]string{"nockpt": "checkpoint.bin", "unfinished": "results.json"} {
		if err := os.CopyFS(filepath.Join(tmp, dir), os.DirFS(filepath.Join(tmp, "run"))); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(tmp, dir, drop))
	}
	for _, d := range []string{"grid", "empty", "run/eval-ntk"} { // run/eval-ntk: an evaluation variant's directory
		os.Mkdir(filepath.Join(tmp, d), 0o755)
	}
	for _, f := range []string{"grid/grid.yaml", "file", "existing.safetensors"} {
		if err := os.WriteFile(filepath.Join(tmp, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestExportErrors runs every bad use of cases.txt through Check and Write (exportRun): one line, matching its
// golden file, and nothing written (the existing files keep their contents).
func TestExportErrors(t *testing.T) {
	tmp := t.TempDir()
	exportFixture(t, tmp)
	for _, c := range exportCases(t) {
		t.Run(c.name, func(t *testing.T) {
			var dir, out string
			force := false
			for i := 0; i < len(c.args); i++ {
				switch a := strings.ReplaceAll(c.args[i], "$TMP", tmp); a {
				case "-force":
					force = true
				case "-o":
					i++
					out = strings.ReplaceAll(c.args[i], "$TMP", tmp)
				default:
					dir = a
				}
			}
			_, err := exportRun(dir, out, force)
			if err == nil {
				t.Fatal("accepted")
			}
			msg := strings.ReplaceAll(err.Error(), tmp, "$TMP")
			golden := filepath.Join("testdata", c.name+".golden")
			if *update {
				os.WriteFile(golden, []byte(msg+"\n"), 0o644)
			}
			want, _ := os.ReadFile(golden)
			if strings.Contains(msg, "\n") || msg+"\n" != string(want) {
				t.Errorf("got:  %s\nwant: %s", msg, want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(tmp, "existing.safetensors")); string(b) != "x\n" {
		t.Error("an existing export was overwritten without -force")
	}
	if _, err := os.Stat(filepath.Join(tmp, "run", rundir.ExportName)); err == nil {
		t.Error("a refused export wrote the run's model.safetensors")
	}
	if _, _, err := config.ReadWritten(filepath.Join(tmp, "run", "config.yaml")); err != nil {
		t.Errorf("the run's config.yaml was damaged: %v", err)
	}
}
