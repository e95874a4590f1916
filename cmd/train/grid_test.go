package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/configs"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/position"
)

const jobsGrid = `
name: j
task: {name: copy, min_len: 1, max_len: 3}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
train: {steps: 30, batch_size: 8}
eval: {lengths: "1..6", examples: 16}
sweep:
  position.kind: [sinusoidal, learned, rope, none]
  seed: [1, 2]
`

// TestGridJobsDeterministic: a grid trained one run at a time and two at a time writes the same
// results, checkpoints and report tables, byte for byte; the report has every plot as a PNG that
// decodes and an SVG, and `report DIR` regenerates the same tables without retraining.
func TestGridJobsDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("trains 16 small runs")
	}
	base := t.TempDir()
	cfg := filepath.Join(base, "grid.yaml")
	if err := os.WriteFile(cfg, []byte(jobsGrid), 0o644); err != nil {
		t.Fatal(err)
	}
	var out1 bytes.Buffer
	for _, jobs := range []string{"1", "2"} {
		var out bytes.Buffer
		if err := run(context.Background(), []string{"-config", cfg, "-out", filepath.Join(base, "jobs"+jobs), "-jobs", jobs}, &out, io.Discard); err != nil {
			t.Fatalf("-jobs %s: %v", jobs, err)
		}
		if jobs == "1" {
			out1 = out
		}
	}
	for _, want := range []string{"| copy | sinusoidal |", "| copy | learned |", "| copy | rope |", "| copy | none |", "report.md"} {
		if !strings.Contains(out1.String(), want) {
			t.Errorf("grid output lacks %q:\n%s", want, out1.String())
		}
	}
	one, two := filepath.Join(base, "jobs1", "j"), filepath.Join(base, "jobs2", "j")
	compared := sameResults(t, one, two, "-jobs 1", "-jobs 2")
	if want := 8*3 + 2; compared != want {
		t.Errorf("compared %d files, want %d", compared, want)
	}

	// The report: every plot named in report.md exists as a PNG that decodes and as an SVG.
	repDir := filepath.Join(one, "report")
	md, err := os.ReadFile(filepath.Join(repDir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	plots := 0
	for _, line := range strings.Split(string(md), "\n") {
		if !strings.HasPrefix(line, "![") {
			continue
		}
		name := line[strings.Index(line, "(")+1 : strings.Index(line, ")")]
		f, err := os.Open(filepath.Join(repDir, name))
		if err != nil {
			t.Errorf("report.md shows %s: %v", name, err)
			continue
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Errorf("%s is not a PNG: %v", name, err)
		} else if b := img.Bounds(); b.Dx() < 100 || b.Dy() < 100 {
			t.Errorf("%s is only %v", name, b)
		}
		svg, err := os.ReadFile(filepath.Join(repDir, strings.TrimSuffix(name, ".png")+".svg"))
		if err != nil || !bytes.Contains(svg, []byte("<svg")) {
			t.Errorf("%s has no SVG beside it (%v)", name, err)
		}
		plots++
	}
	// exact match and loss for the task, sinusoidal and learned tables, dot product and RoPE
	// score against offset, the similarity matrix.
	if plots < 7 {
		t.Errorf("report.md shows %d plots, want at least 7:\n%s", plots, md)
	}

	// `report DIR` regenerates the same tables from the run directories alone.
	before, _ := os.ReadFile(filepath.Join(repDir, "summary.csv"))
	if err := os.Remove(filepath.Join(repDir, "summary.csv")); err != nil {
		t.Fatal(err)
	}
	var rep bytes.Buffer
	if err := run(context.Background(), []string{"report", one}, &rep, io.Discard); err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile(filepath.Join(repDir, "summary.csv"))
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("report regenerated a different summary.csv (%v):\n%s\nvs\n%s", err, before, after)
	}
}

// TestDefaultExperimentIsAComparison: the embedded default experiment is a small Protocol A
// (Kazemnejad et al. 2023): a causal decoder on copy with the end token, tested up to twice its
// longest training length, comparing at least one scheme the paper finds degrading gracefully
// past the training length (none, t5, alibi) with one it finds collapsing (rope, sinusoidal).
func TestDefaultExperimentIsAComparison(t *testing.T) {
	src, err := configs.FS.ReadFile(configs.Default)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := config.Read(src, configs.Default, nil)
	if err != nil {
		t.Fatal(err)
	}
	cells, err := config.Expand(cfg)
	if err != nil {
		t.Fatal(err)
	}
	schemes := map[string]bool{}
	for _, c := range cells {
		schemes[c.Config.Position.Kind] = true
		tc := c.Config.Task
		if c.Config.Model.Bidirectional || !tc.EndToken || tc.Format == data.FormatSlots || tc.Name != "copy" {
			t.Errorf("cell %s: want a causal decoder on copy with the end token, got task %+v, bidirectional %v", c.Name, tc, c.Config.Model.Bidirectional)
		}
		if last := c.Config.Eval.Lengths[len(c.Config.Eval.Lengths)-1]; last != 2*tc.MaxLen || c.Config.Eval.Lengths[0] != 1 {
			t.Errorf("cell %s: tests %d..%d, want 1..%d (twice the training maximum, as the paper)", c.Name, c.Config.Eval.Lengths[0], last, 2*tc.MaxLen)
		}
	}
	if !schemes["none"] && !schemes["t5"] && !schemes["alibi"] {
		t.Errorf("the default experiment runs %v: none of none, t5, alibi (graceful in the paper)", schemes)
	}
	if !schemes["rope"] && !schemes["sinusoidal"] {
		t.Errorf("the default experiment runs %v: neither rope nor sinusoidal (collapsing in the paper)", schemes)
	}
}

// sameResults compares the results, checkpoints and report tables under two grid directories
// byte for byte, reporting each difference between what the two names describe, and returns
// how many files it compared.
func sameResults(t *testing.T, a, b, nameA, nameB string) int {
	t.Helper()
	compared := 0
	err := filepath.Walk(a, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		switch info.Name() {
		case "results.json", "results.csv", "checkpoint.bin", "summary.csv", "by_length.csv":
		default:
			return nil
		}
		rel, _ := filepath.Rel(a, path)
		x, _ := os.ReadFile(path)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between %s and %s (%v)", rel, nameA, nameB, err)
		}
		compared++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return compared
}

// TestEveryTaskAndSchemeRunsInAGrid: one YAML grid sweeps every registered task and every
// position scheme (plus randomized positions and rope scaling); every cell trains, is
// evaluated beyond its training lengths, and appears in the report. The tasks that read a corpus
// (lm: its whole test split at every length) are left out: train.TestLMRun runs lm; so are the
// tasks that cannot build length 1 (passkey, flip_flop, mqar: TestEveryLengthRuledTaskRuns).
func TestEveryTaskAndSchemeRunsInAGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("trains one tiny run per task and scheme")
	}
	var names []string
	for _, n := range data.Names() {
		if t, _ := data.New(n, data.Options{}); !data.ReadsCorpus(n) && data.CheckLength(t, 1) == nil {
			names = append(names, n)
		}
	}
	var kinds, digitKinds []string
	for _, k := range position.Kinds() {
		if position.ReadsTokens(k) { // numbers digits: trained on the task with digits below
			digitKinds = append(digitKinds, "{kind: "+k+", "+map[string]string{"abacus": "max_offset: 8", "coupled": "max_position: 16"}[k]+"}")
			continue
		}
		kinds = append(kinds, "{kind: "+k+"}")
	}
	kinds = append(kinds, "{kind: rope, randomized: true, max_random: 32}", "{kind: rope, rope_scaling: interpolate}")
	src := fmt.Sprintf(`
name: all
task: {min_len: 1, max_len: 3}
model: {d_model: 8, heads: 2, layers: 1, d_ff: 8}
position: {max_positions: 32}
train: {steps: 2, batch_size: 2, val_every: 0}
eval: {lengths: "1..5", examples: 2}
sweep:
  task.name: [%s]
  position: [%s]
`, strings.Join(names, ", "), strings.Join(kinds, ", "))
	base := t.TempDir()
	cfg := filepath.Join(base, "all.yaml")
	if err := os.WriteFile(cfg, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-config", cfg, "-out", base, "-jobs", "2"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, task := range names {
		for _, k := range position.Kinds() {
			if row := "| " + task + " | " + k + " |"; !strings.Contains(out.String(), row) && !position.ReadsTokens(k) {
				t.Errorf("the report has no row %q", row)
			}
		}
	}
	if n := len(names) * len(kinds); !strings.Contains(out.String(), fmt.Sprintf("%d runs in", n)) {
		t.Errorf("want %d runs:\n%s", n, out.String())
	}
	digits := fmt.Sprintf(`
name: digits
task: {name: addition, min_len: 1, max_len: 3}
model: {d_model: 8, heads: 2, layers: 1, d_ff: 8}
train: {steps: 2, batch_size: 2, val_every: 0}
eval: {lengths: "1..5", examples: 2}
sweep:
  position: [%s]
`, strings.Join(digitKinds, ", "))
	if err := os.WriteFile(cfg, []byte(digits), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := run(context.Background(), []string{"-config", cfg, "-out", base, "-jobs", "2"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, k := range position.Kinds() {
		if row := "| addition | " + k + " |"; position.ReadsTokens(k) && !strings.Contains(out.String(), row) {
			t.Errorf("the report has no row %q", row)
		}
	}
}

// TestReportUsageErrors: `train report` with an unknown flag, no directory or two fails as a real
// process with one line (exit 1) naming the mistake and the usage, like inspect and export; -h
// prints the usage and exits 0.
func TestReportUsageErrors(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := runChild(t, "report", "-x", dir)
	oneLineError(t, "an unknown flag", stderr, code, "report: flag provided but not defined: -x; usage: train report DIR")
	_, stderr, code = runChild(t, "report", dir, "-x")
	oneLineError(t, "an unknown flag after the directory", stderr, code, "report: flag provided but not defined: -x")
	_, stderr, code = runChild(t, "report")
	oneLineError(t, "no directory", stderr, code, "report: give one directory")
	_, stderr, code = runChild(t, "report", dir, dir)
	oneLineError(t, "two directories", stderr, code, "report: give one directory")
	if _, stderr, code = runChild(t, "report", "-h"); code != 0 || stderr != "usage: train report DIR   (a grid's or a run's directory)\n" {
		t.Errorf("-h: exit %d, stderr %q", code, stderr)
	}
}
