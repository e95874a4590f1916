package report_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/claims"
	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/report"
	"github.com/posformer/posformer/setup"
)

const depthGrid = `name: depths
task: {name: passkey, min_len: 241, max_len: 241}
model: {d_model: 8, heads: 2, layers: 1, d_ff: 8}
train: {steps: 3, batch_size: 2, val_examples: 2}
eval:
  lengths: [241, 300]
  examples: 4
  variants:
    - {name: depth0, depth: 0}
    - {name: depth100, depth: 1}
    - {name: yarn_depth0, when: [position.kind=rope], rope_scaling: yarn, depth: 0}
sweep:
  position.kind: [rope, none]
  seed: [1, 2]
`

const splitGrid = `name: splits
task: {name: flip_flop, min_len: 8, max_len: 8}
model: {d_model: 8, heads: 2, layers: 1, d_ff: 8}
train: {steps: 3, batch_size: 2, val_examples: 2}
eval:
  lengths: [8, 16]
  examples: 64
  variants:
    - {name: dense, ignore_prob: 0.1}
    - {name: sparse, ignore_prob: 0.98}
sweep:
  seed: [1, 2]
`

// trainGrid trains a grid config in dir and returns its per-seed table.
func trainGrid(t *testing.T, dir, name, src string) []byte {
	t.Helper()
	path := filepath.Join(dir, name+".yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, cells, err := config.Read(nil, path, []string{"out=" + filepath.Join(dir, "runs")})
	if err != nil {
		t.Fatal(err)
	}
	checked, err := setup.CheckGrid(cfg, cells)
	if err != nil {
		t.Fatal(err)
	}
	ran, err := grid.Train(context.Background(), checked, grid.Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	g, err := grid.Load(ran.Dir)
	if err != nil || len(g.Missing) > 0 {
		t.Fatalf("the report loads the grid with its task-option variants: %v, missing %v", err, g.Missing)
	}
	table, err := claims.Export(filepath.Join(dir, "runs"), claims.Table{Name: name, Grid: path})
	if err != nil {
		t.Fatal(err)
	}
	return table
}

// TestTaskOptionVariants: eval variants that change the task's options (passkey's depth,
// flip_flop's ignore probability) train nothing again, load in the report against their training
// cell, export as rows of their own, and the depth heatmap finds every panel, length and depth.
func TestTaskOptionVariants(t *testing.T) {
	if testing.Short() {
		t.Skip("trains two tiny grids")
	}
	dir := t.TempDir()
	table := trainGrid(t, dir, "depths", depthGrid)
	panels, cells, err := report.DepthGrid(table, "exact_match")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(panels, "|") != "rope|rope + yarn|none" && strings.Join(panels, "|") != "none|rope|rope + yarn" {
		t.Fatalf("panels %q", panels)
	}
	for p, n := range map[string]int{"rope": 4, "rope + yarn": 2, "none": 4} {
		if len(cells[p]) != n {
			t.Errorf("%s: %d cells %v, want %d", p, len(cells[p]), cells[p], n)
		}
		for _, c := range cells[p] {
			if c.Seeds != 2 {
				t.Errorf("%s: %+v, want 2 seeds", p, c)
			}
		}
	}
	table = trainGrid(t, dir, "splits", splitGrid)
	rows := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(string(table)), "\n")[1:] {
		f := strings.Split(line, ",")
		rows[f[2]]++
	}
	if rows[""] != 4 || rows["eval=dense"] != 4 || rows["eval=sparse"] != 4 {
		t.Errorf("rows by variant %v, want 4 of each split (2 seeds x 2 lengths)", rows)
	}
	// The claims engine judges the splits against each other: each row's chance columns are the
	// guess of its own split (dense strings hold more reads), which the engine checks.
	csvPath, claimsPath := filepath.Join(dir, "splits.csv"), filepath.Join(dir, "splits_claims.yaml")
	os.WriteFile(csvPath, table, 0o644)
	os.WriteFile(claimsPath, []byte(`title: splits
tables:
  - {name: splits, csv: `+csvPath+`, grid: `+filepath.Join(dir, "splits.yaml")+`}
statistic: {metric: token_accuracy, in_range: true, learned: 0}
claims:
  - {id: r, kind: ranking, a: {task: flip_flop, scheme: sinusoidal, variant: eval=dense}, b: {task: flip_flop, scheme: sinusoidal, variant: eval=sparse}}
`), 0o644)
	f, err := claims.Load(claimsPath)
	if err != nil {
		t.Fatal(err)
	}
	j, err := claims.Judge(f, nil)
	if err != nil {
		t.Fatalf("the splits' chance columns: %v", err)
	}
	if row := j.Claims[0].Rows[0]; row.Verdict == "" || row.Ours == "" {
		t.Errorf("dense against sparse: %+v", row)
	}
}
