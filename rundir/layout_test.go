package rundir

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/data"
)

// TestRunFileNames: the names posformer writes in a run directory are run files, eval variants'
// directories too; a user's own names and atomic writes' temporary files are not.
func TestRunFileNames(t *testing.T) {
	for _, n := range []string{"config.yaml", "metrics.jsonl", "results.json", "results.csv", "timing.json", "checkpoint.bin",
		BestCheckpoint, DiagnosticsFile, lmScores, ExportName, "inspect", "report", VariantDir("ntk"), VariantDir("")} {
		if !IsRunFile(n) {
			t.Errorf("IsRunFile(%q) = false", n)
		}
	}
	for _, n := range []string{"notes.txt", "config.yml", "results.json.bak", "evalntk", ".results.json.tmp123", LockFile, "README.md"} {
		if IsRunFile(n) {
			t.Errorf("IsRunFile(%q) = true", n)
		}
	}
	for n, want := range map[string]bool{".results.json.tmp4242": true, ".checkpoint.bin.tmp1": true, ".hidden": false, "x.tmp": false} {
		if IsTemp(n) != want {
			t.Errorf("IsTemp(%q) = %v", n, !want)
		}
	}
	if VariantDir("ntk") != "eval-ntk" {
		t.Errorf("VariantDir(ntk) = %q", VariantDir("ntk"))
	}
}

// makeDir creates dir holding the given entries (a trailing / makes a directory with a file in it).
func makeDir(t *testing.T, dir string, names ...string) []os.DirEntry {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		p := filepath.Join(dir, n)
		if strings.HasSuffix(n, "/") {
			p = filepath.Join(p, "inner")
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestClear: -force's Clear removes what posformer wrote in a run directory (run files, eval
// variants, inspect/report/export views, atomic writes' litter) and keeps the lock and a user's
// own files; a directory with no config.yaml and entries posformer does not write is refused,
// naming them, and left untouched.
func TestClear(t *testing.T) {
	base := t.TempDir()
	run := filepath.Join(base, "run")
	entries := makeDir(t, run, "config.yaml", "metrics.jsonl", "checkpoint.bin", BestCheckpoint, "results.json", "results.csv",
		"timing.json", DiagnosticsFile, lmScores, ExportName, ".results.json.tmp99", LockFile, "notes.txt",
		VariantDir("ntk")+"/", "inspect/", "report/")
	if err := Clear(run, entries); err != nil {
		t.Fatal(err)
	}
	if got := names(t, run); !slices.Equal(got, []string{LockFile, "notes.txt"}) {
		t.Errorf("after Clear the run directory holds %v, want the lock and the user's notes.txt", got)
	}

	// Not a run directory: a user's files, and names posformer writes only beside a config.yaml.
	for _, foreign := range [][]string{{"thesis.tex", "data.csv"}, {ExportName, "report/"}} {
		dir := filepath.Join(base, strings.Join(foreign, "+"))
		all := append([]string{"metrics.jsonl"}, foreign...)
		entries := makeDir(t, dir, all...)
		err := Clear(dir, entries)
		if err == nil || !strings.Contains(err.Error(), "is not a posformer run directory") || !strings.Contains(err.Error(), strings.TrimSuffix(foreign[0], "/")) {
			t.Errorf("Clear of a directory holding %v: %v; want a refusal naming them", all, err)
		}
		if got := names(t, dir); len(got) != len(all) {
			t.Errorf("a refused Clear removed entries: %v left of %v", got, all)
		}
	}

	// A run killed before it wrote config.yaml: its own files alone are cleared.
	dir := filepath.Join(base, "early")
	if err := Clear(dir, makeDir(t, dir, "metrics.jsonl", ".config.yaml.tmp7")); err != nil {
		t.Fatal(err)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("left %v", got)
	}
}

// lmScores is the text tasks' scores file (data.Traits.ScoresFile), a run file.
var lmScores = data.KindTraits(data.KindText).ScoresFile
