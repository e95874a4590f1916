package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// exportBlameGolden compares a claims -export failure (the process's stderr) with its golden file
// testdata/claims_export/NAME.golden, where DIR stands for the test's directory; -update rewrites
// it.
func exportBlameGolden(t *testing.T, goldens, name, dir, stderr string) {
	t.Helper()
	got := strings.ReplaceAll(stderr, dir, "DIR")
	path := filepath.Join(goldens, name+".golden")
	if *updateInspect {
		writeFile(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s: stderr\n%s\nwant\n%s", name, got, want)
	}
}

// TestClaimsExportBlamesTheRun: when the rows `claims -export` makes from a finished grid are
// refused by the per-seed table's reader, the message names where the rows came from, not the
// table (which is never written, and which exporting again would make the same), and its fix
// works: following it, the export succeeds. Two cases, as real processes: two runs of a grid that
// sweeps train.steps fall in one cell of a table whose variants name only the scheme's options
// (fix: variants: swept); a run's results.json says n 0 beside its scores (fix: delete it and
// evaluate the run again with -resume).
func TestClaimsExportBlamesTheRun(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	goldens, err := filepath.Abs(filepath.Join("testdata", "claims_export"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir) // the messages name paths as the user gave them: relative to here
	train := func(cfg string, extra ...string) {
		t.Helper()
		if err := run(context.Background(), append([]string{"-config", cfg, "-out", "runs", "-jobs", "2"}, extra...), io.Discard, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	exported := func(what, file, csv string) {
		t.Helper()
		if _, stderr, code := runChild(t, "claims", "-export", "-runs", "runs", file); code != 0 {
			t.Fatalf("%s: claims -export exited %d:\n%s", what, code, stderr)
		}
		if _, err := os.Stat(csv); err != nil {
			t.Fatalf("%s: the table was not written: %v", what, err)
		}
	}
	refused := func(name, file, csv string) {
		t.Helper()
		_, stderr, code := runChild(t, "claims", "-export", "-runs", "runs", file)
		oneLineError(t, name, stderr, code, "nothing was written")
		exportBlameGolden(t, goldens, name, dir, stderr)
		if _, err := os.Stat(csv); err == nil {
			t.Errorf("%s: the table %s was written", name, csv)
		}
	}

	// Two runs in one cell.
	writeFile(t, "steps.yaml", strings.NewReplacer("name: mine", "name: steps", "  seed: [1, 2]", "  seed: [1, 2]\n  train.steps: [2, 3]").Replace(claimsGrid))
	train("steps.yaml")
	claimsSteps := strings.Replace(claimsFile, "grid: mygrid.yaml}", "grid: steps.yaml}", 1)
	writeFile(t, "steps-claims.yaml", claimsSteps)
	refused("cell_collision", "steps-claims.yaml", "mine.csv")
	writeFile(t, "steps-claims.yaml", strings.NewReplacer("grid: steps.yaml}", "grid: steps.yaml, variants: swept}",
		"scheme: alibi}", "scheme: alibi, variant: train.steps=3}", "scheme: none}", "scheme: none, variant: train.steps=3}").Replace(claimsSteps))
	exported("variants: swept", "steps-claims.yaml", "mine.csv")

	// A run's results refused.
	os.Remove("mine.csv")
	train(writeFile(t, "mygrid.yaml", claimsGrid))
	writeFile(t, "mine-claims.yaml", claimsFile)
	res := filepath.Join("runs", "mine", "position.kind-none__seed-2", "results.json")
	b, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	r["lengths"].([]any)[2].(map[string]any)["n"] = 0
	b, _ = json.Marshal(r)
	writeFile(t, res, string(b))
	refused("results_refused", "mine-claims.yaml", "mine.csv")
	os.Remove(res)
	train("mygrid.yaml", "-resume")
	exported("the run evaluated again", "mine-claims.yaml", "mine.csv")
}
