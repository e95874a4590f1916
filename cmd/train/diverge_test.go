package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/setup"
	"github.com/posformer/posformer/train"
)

// divergeGrid has a healthy cell (lr 0.003), one whose loss explodes (lr 1000, the hostile
// tester's) and one that reaches NaN (lr 1e30).
const divergeGrid = `name: g
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
position: {kind: rope}
train: {steps: 20, batch_size: 4, checkpoint_every: 5}
eval: {lengths: "1..6", examples: 8}
sweep:
  train.lr: [0.003, 1000, 1e30]
`

// TestDivergenceIsAResult: in a grid, a cell whose loss explodes (lr 1000) and one that reaches
// NaN (lr 1e30) are results, recorded as diverged with the step in results.json; the healthy
// cell runs, the grid exits 0, and its tables show the diverged cells as diverged, never as
// numbers; -resume trains nothing again and leaves the healthy sibling as it was. Through the
// library (grid.TrainCells), the CLI and a real process.
func TestDivergenceIsAResult(t *testing.T) {
	base := t.TempDir()
	cfgFile := writeFile(t, filepath.Join(base, "g.yaml"), divergeGrid)
	cfg, _, err := config.Read(nil, cfgFile, []string{"out=" + filepath.Join(base, "lib")})
	if err != nil {
		t.Fatal(err)
	}
	cells, err := config.Expand(cfg)
	if err != nil {
		t.Fatal(err)
	}
	checked, err := setup.CheckCells(cells, false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := grid.TrainCells(context.Background(), checked, grid.CellOptions{Jobs: 1})
	if err != nil || len(res) != 3 {
		t.Fatalf("RunGrid: %v (%d results); want every cell run", err, len(res))
	}
	for i, r := range res {
		if r == nil || (r.Diverged != nil) != (i > 0) {
			t.Errorf("cell %s: %+v; want diverged only for lr 1000 and 1e30", cells[i].Name, r)
		}
	}
	if d := res[1].Diverged; d == nil || !strings.Contains(d.Reason, "exploded") || !strings.Contains(d.Fix, "lower train.lr") {
		t.Errorf("lr 1000: %+v; want the explosion rule", d)
	}

	var stdout, stderr bytes.Buffer
	out := filepath.Join(base, "cli")
	if err := run(context.Background(), []string{"-config", cfgFile, "-out", out, "-jobs", "1"}, &stdout, &stderr); err != nil {
		t.Fatalf("a grid with diverging cells failed: %v\n%s", err, stderr.String())
	}
	grid := filepath.Join(out, "g")
	for _, lr := range []string{"1000", "1e30"} {
		dir := filepath.Join(grid, "train.lr-"+lr)
		b, err := os.ReadFile(filepath.Join(dir, "results.json"))
		var raw struct {
			Diverged *train.Divergence `json:"diverged"`
			Lengths  []train.LengthResult
		}
		if err != nil || json.Unmarshal(b, &raw) != nil || raw.Diverged == nil || raw.Diverged.Step < 1 || len(raw.Lengths) != 0 {
			t.Errorf("%s/results.json does not record the divergence with its step (%v):\n%s", dir, err, b)
		}
		if !strings.Contains(stderr.String(), "train.lr-"+lr+": diverged at step ") {
			t.Errorf("the progress does not say lr %s diverged:\n%s", lr, stderr.String())
		}
	}
	table := stdout.String()
	if strings.Count(table, "| diverged | diverged |") != 2 || !strings.Contains(table, "1 (1 diverged)") {
		t.Errorf("the summary does not show the two diverged cells as diverged:\n%s", table)
	}
	md, _ := os.ReadFile(filepath.Join(grid, "report", "report.md"))
	if !strings.Contains(string(md), "| diverged | diverged |") {
		t.Errorf("report.md does not show the diverged cells:\n%s", md)
	}
	healthy := filepath.Join(grid, "train.lr-0.003", "results.json")
	before, _ := os.ReadFile(healthy)
	stderr.Reset()
	if err := run(context.Background(), []string{"-config", cfgFile, "-out", out, "-jobs", "2", "-resume"}, &stdout, &stderr); err != nil {
		t.Fatalf("-resume of a grid with diverged cells: %v\n%s", err, stderr.String())
	}
	if after, _ := os.ReadFile(healthy); !bytes.Equal(before, after) || len(before) == 0 {
		t.Error("-resume changed the healthy sibling's results")
	}
	if strings.Contains(stderr.String(), "failed") || strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("-resume cancelled or failed a cell:\n%s", stderr.String())
	}

	code := 0
	o, e, code := runChild(t, "-config", cfgFile, "-out", filepath.Join(base, "child"), "-jobs", "2")
	if code != 0 || strings.Count(o, "| diverged | diverged |") != 2 || !strings.Contains(e, ": diverged at step ") {
		t.Errorf("a real process: exit %d\nstdout:\n%s\nstderr:\n%s", code, o, e)
	}
}

// TestSelectDivergedLoses: in select:, a candidate rate that diverges (1e30) loses and the grid
// trains at the other, rather than the whole selection failing; selection.json marks it.
func TestSelectDivergedLoses(t *testing.T) {
	dir := t.TempDir()
	cfgFile := writeFile(t, filepath.Join(dir, "g.yaml"), `name: g
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
position: {kind: rope}
train: {steps: 20, batch_size: 8, log_every: 10, val_every: 20}
eval: {lengths: "1..6", examples: 8}
select: {field: train.lr, values: [1e30, 0.003]}
sweep:
  seed: [1, 2]
`)
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"-config", cfgFile, "-out", dir, "-jobs", "1"}, &stdout, &stderr); err != nil {
		t.Fatalf("a selection with a diverging candidate failed: %v\n%s", err, stderr.String())
	}
	sel, err := grid.ReadSelection(filepath.Join(dir, "g"))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range sel.Groups {
		if g.Chosen != 0.003 || len(g.Diverged) != 2 || !g.Diverged[0] || g.Diverged[1] {
			t.Errorf("group %v: chose %g, diverged %v; want 0.003, the 1e30 candidate marked", g.Values, g.Chosen, g.Diverged)
		}
	}
	if !strings.Contains(stderr.String(), "1e+30: diverged") || !strings.Contains(stderr.String(), "(the value loses)") {
		t.Errorf("the selection does not say the candidate diverged:\n%s", stderr.String())
	}
	// A hand-edited selection.json is checked against the grid's select: before anything trains:
	// a chosen rate not among the candidates, or the one that diverged, is one line naming it.
	path := filepath.Join(dir, "g", grid.SelectionFile)
	orig, _ := os.ReadFile(path)
	cfg, _, err := config.Read(nil, cfgFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	for edit, want := range map[string]string{`"chosen": 0.5`: "the chosen train.lr = 0.5 is not among the candidates [1e+30 0.003]", `"chosen": 1e30`: "the chosen train.lr = 1e+30 diverged"} {
		writeFile(t, path, strings.Replace(string(orig), `"chosen": 0.003`, edit, 1))
		edited, err := grid.ReadSelection(filepath.Join(dir, "g"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := grid.ExpandSelected(cfg, edited); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ExpandSelected with %s: %v", edit, err)
		}
		if err := runCaught("-config", cfgFile, "-out", dir, "-resume"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("-resume with %s: %v", edit, err)
		}
		_, e, code := runChild(t, "-config", cfgFile, "-out", dir, "-resume")
		oneLineError(t, "selection.json with "+edit, e, code, "selection.json: group all cells: "+want, "remove it to select again")
	}
}

// TestDivergenceBlamesTheField: a NaN caused by train.weight_decay or by a scheme's
// initialisation (FIRE's init_c, T5's init_std) at 1e300 is blamed on that field, not on
// train.lr and grad_clip; through the library (train.Run's DivergedError), the CLI and a process.
func TestDivergenceBlamesTheField(t *testing.T) {
	base := t.TempDir()
	cfgFile := writeFile(t, filepath.Join(base, "cfg.yaml"), tinyConfig)
	for i, c := range []struct {
		sets []string
		want string
	}{
		{[]string{"train.weight_decay=1e300"}, "lower train.weight_decay"},
		{[]string{"position.kind=fire", "position.init_c=1e300"}, "before any update, so train.lr is not the cause: check the scheme's options (position.init_c)"},
		{[]string{"position.kind=t5", "position.init_std=1e300"}, "before any update, so train.lr is not the cause: check the scheme's options (position.init_std)"},
	} {
		out := filepath.Join(base, strconv.Itoa(i))
		cfg, _, err := config.Read(nil, cfgFile, append([]string{"out=" + out + "-lib"}, c.sets...))
		if err != nil {
			t.Fatal(err)
		}
		_, err = train.Run(context.Background(), cfg, train.Options{})
		var d *train.DivergedError
		if !errors.As(err, &d) || !strings.Contains(d.Fix, c.want) || strings.Contains(d.Fix, "train.lr or") {
			t.Errorf("%v: %v; want the fix %q", c.sets, err, c.want)
		}
		args := []string{"-config", cfgFile, "-out", out}
		for _, s := range c.sets {
			args = append(args, "-set", s)
		}
		if err := runCaught(args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CLI %v: %v", c.sets, err)
		}
		args[3] += "-child"
		_, e, code := runChild(t, args...)
		lines := strings.Split(strings.TrimSpace(e), "\n")
		if last := lines[len(lines)-1]; code != 1 || !strings.HasPrefix(last, "train: step 1") && !strings.HasPrefix(last, "train: step 2") || !strings.Contains(last, c.want) {
			t.Errorf("process %v: exit %d, stderr:\n%s", c.sets, code, e)
		}
	}
}
