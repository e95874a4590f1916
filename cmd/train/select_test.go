package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/train"
)

// TestGridSelect: a grid with select: trains the tuning runs, writes selection.json, trains the
// grid's cells at their group's chosen rate (and only those are in the report, which shows the
// choice); -resume reuses the choice and retrains nothing.
func TestGridSelect(t *testing.T) {
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "g.yaml")
	os.WriteFile(cfgFile, []byte(`name: g
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
train: {steps: 30, batch_size: 8, log_every: 10, val_every: 30}
eval: {lengths: "1..6", examples: 8}
select: {field: train.lr, values: [0.0001, 0.02]}
sweep:
  position.kind: [rope, alibi]
  seed: [1, 2]
`), 0o644)
	var out, errOut bytes.Buffer
	if err := run(context.Background(), []string{"-config", cfgFile, "-out", dir, "-jobs", "2"}, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	sel, err := grid.ReadSelection(filepath.Join(dir, "g"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "4 runs in") {
		t.Errorf("the grid did not train its 4 cells after the selection:\n%s", out.String())
	}
	for _, g := range sel.Groups {
		kind := g.Values["position.kind"]
		for _, seed := range []string{"1", "2"} {
			cfg, _, err := config.ReadWritten(filepath.Join(dir, "g", "position.kind-"+kind+"__seed-"+seed, "config.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Train.LR != g.Chosen {
				t.Errorf("%s seed %s trained at lr %g, chosen %g", kind, seed, cfg.Train.LR, g.Chosen)
			}
		}
	}
	// The seed-1 cells are the tuning runs at the chosen rate: copied, and what training them
	// would give, bit for bit.
	if !strings.Contains(errOut.String(), "2 of them are tuning runs at the chosen train.lr") {
		t.Errorf("the grid did not say it copies the 2 tuning runs:\n%s", errOut.String())
	}
	if n := strings.Count(errOut.String(), "(copied from select/position.kind-"); n != 2 {
		t.Errorf("%d progress lines say a run was copied, want 2:\n%s", n, errOut.String())
	}
	for _, g := range sel.Groups {
		name := "position.kind-" + g.Values["position.kind"] + "__seed-1"
		cellDir := filepath.Join(dir, "g", name)
		copied, err := train.ReadResult(cellDir)
		if err != nil {
			t.Fatal(err)
		}
		if copied.Name != name {
			t.Errorf("%s: results.json names %q", name, copied.Name)
		}
		cfg, _, err := config.ReadWritten(filepath.Join(cellDir, "config.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Out = filepath.Join(dir, "fresh")
		fresh, err := train.Run(context.Background(), cfg, train.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if copied.FinalLoss != fresh.FinalLoss || !reflect.DeepEqual(copied.Lengths, fresh.Lengths) || len(copied.Lengths) != len(fresh.Lengths) {
			t.Fatalf("%s: the copied run differs from training it: loss %v vs %v", name, copied.FinalLoss, fresh.FinalLoss)
		}
		for i := range fresh.Lengths {
			if !reflect.DeepEqual(copied.Lengths[i], fresh.Lengths[i]) {
				t.Errorf("%s length %d: copied %+v, trained %+v", name, fresh.Lengths[i].Length, copied.Lengths[i], fresh.Lengths[i])
			}
		}
		for _, f := range []string{"results.json", "results.csv", "checkpoint.bin", "metrics.jsonl"} {
			a, _ := os.ReadFile(filepath.Join(cellDir, f))
			b, _ := os.ReadFile(filepath.Join(dir, "fresh", name, f))
			if f == "metrics.jsonl" { // wall-clock fields differ; the steps and losses do not
				a, b = dropTiming(a), dropTiming(b)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s/%s: the copy differs from a trained run's file", name, f)
			}
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "g", "report", "report.md"))
	if !strings.Contains(string(md), "## Selection of train.lr") || !strings.Contains(string(md), "4 of 4 runs finished") {
		t.Errorf("report.md:\n%s", md)
	}
	errOut.Reset()
	if err := run(context.Background(), []string{"-config", cfgFile, "-out", dir, "-jobs", "2", "-resume"}, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errOut.String(), "select: using the choice") {
		t.Errorf("-resume did not reuse selection.json:\n%s", errOut.String())
	}
}

// dropTiming keeps metrics.jsonl's steps, losses and rates, dropping its wall-clock fields.
func dropTiming(b []byte) []byte {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		var keep []string
		for _, f := range strings.Split(l, ",") {
			if !strings.Contains(f, "tokens_per_second") && !strings.Contains(f, "elapsed_seconds") {
				keep = append(keep, f)
			}
		}
		out = append(out, strings.Join(keep, ","))
	}
	return []byte(strings.Join(out, "\n"))
}
