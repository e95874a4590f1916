package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDamagedRunFilesCLI: `train report`, `train claims -export`, `train export` and `train inspect` on a
// real grid whose run has a truncated results.json, metrics.jsonl (in its first line), diagnostics.json or
// checkpoint.bin fail with one line: the golden message of train/testdata/damaged (the file and
// what to do) after the command's prefix, through the CLI and a real process (exit 1).
func TestDamagedRunFilesCLI(t *testing.T) {
	base := t.TempDir()
	cfg := writeFile(t, filepath.Join(base, "claims.yaml"), "name: claims\n"+tinyConfig+"sweep:\n  seed: [1]\n")
	out := filepath.Join(base, "runs")
	if err := runCaught("-config", cfg, "-out", out); err != nil {
		t.Fatal(err)
	}
	// claims reads the grid when it exports its table (-export)
	claimsFile := writeFile(t, filepath.Join(base, "mine.yaml"), "title: t\ntables: [{name: t, csv: claims.csv, grid: claims.yaml}]\n"+
		"statistic: {metric: exact_match, past_training: 0, learned: 0}\n")
	claimsArgs := []string{"claims", "-export", "-runs", "RUNS", claimsFile}
	claimsPrefix := "claims: " + claimsFile + ": table t: "
	for _, c := range []struct {
		class, file string
		commands    map[string][]string // the command's error prefix → its arguments
	}{
		{"results_json", "results.json", map[string][]string{"": {"report", "GRID"}, claimsPrefix: claimsArgs, "inspect: ": {"inspect", "RUN", "-length", "3"}}},
		{"metrics_jsonl", "metrics.jsonl", map[string][]string{"": {"report", "GRID"}, claimsPrefix: claimsArgs}},
		{"diagnostics_json", "diagnostics.json", map[string][]string{"": {"report", "GRID"}, claimsPrefix: claimsArgs}},
		{"checkpoint", "checkpoint.bin", map[string][]string{"export: ": {"export", "RUN"}, "inspect: ": {"inspect", "RUN", "-length", "3"}}},
	} {
		runs := filepath.Join(t.TempDir(), "runs")
		if err := os.CopyFS(runs, os.DirFS(out)); err != nil {
			t.Fatal(err)
		}
		run := filepath.Join(runs, "claims", "seed-1")
		path := filepath.Join(run, c.file)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		n := len(b) / 2
		if c.file == "metrics.jsonl" {
			n = strings.IndexByte(string(b), '\n') / 2 // half its first line, whatever the number of lines
		}
		if err := os.Truncate(path, int64(n)); err != nil {
			t.Fatal(err)
		}
		golden, err := os.ReadFile(filepath.Join("..", "..", "train", "testdata", "damaged", c.class+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		msg := strings.ReplaceAll(strings.TrimSuffix(string(golden), "\n"), "RUN", run)
		r := strings.NewReplacer("GRID", filepath.Join(runs, "claims"), "RUNS", runs, "DOCS", t.TempDir(), "RUN", run)
		for prefix, args := range c.commands {
			args = append([]string{}, args...)
			for i := range args {
				args[i] = r.Replace(args[i])
			}
			want := prefix + msg
			if args[0] == "claims" {
				want += "; nothing was written"
			}
			if err := runCaught(args...); err == nil || err.Error() != want {
				t.Errorf("%s with %s truncated:\n got: %v\nwant: %s", args[0], c.file, err, want)
			}
			_, stderr, code := runChild(t, args...)
			oneLineError(t, args[0]+" with "+c.file+" truncated", stderr, code, "train: "+want)
		}
	}
}
