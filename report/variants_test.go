package report

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/setup"
	"go.yaml.in/yaml/v3"
)

// tinyGrid trains a grid config into dir (as `train -config` would, grid.yaml included) and
// loads it.
func tinyGrid(t *testing.T, dir, src string) *grid.Grid {
	t.Helper()
	cfg, _, err := config.Read([]byte(src), "grid.yaml", []string{"out=" + dir})
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
	if _, err := grid.TrainCells(context.Background(), checked, grid.CellOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	b, _ := yaml.Marshal(cfg)
	gdir := config.GridDir(cfg)
	if err := os.WriteFile(filepath.Join(gdir, config.GridFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := grid.Load(gdir)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

const tinyGridSrc = `name: g
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
train: {steps: 20, batch_size: 4}
eval:
  lengths: "1..8"
  examples: 8
  variants:
    - {name: interp, when: [position.kind=rope], rope_scaling: interpolate}
sweep:
  position.kind: [rope, alibi]
  seed: [1, 2]
`

// TestReportEvalVariants: an eval variant is its own group in the report ("eval=<name>"), over
// the same seeds as its run, for the schemes it applies to only.
func TestReportEvalVariants(t *testing.T) {
	g := tinyGrid(t, t.TempDir(), tinyGridSrc)
	if len(g.Missing) != 0 || len(g.Cells) != 6 {
		t.Fatalf("%d cells, missing %v; want 4 runs and 2 variant results", len(g.Cells), g.Missing)
	}
	rep, err := Write(g)
	if err != nil {
		t.Fatal(err)
	}
	var groups []config.Group
	for _, s := range rep.Summaries {
		groups = append(groups, s.Group)
		if s.Seeds != 2 {
			t.Errorf("%v: %d seeds, want 2", s.Group, s.Seeds)
		}
	}
	want := []config.Group{{Task: "copy", Scheme: "rope"}, {Task: "copy", Scheme: "rope", Variant: "eval=interp"}, {Task: "copy", Scheme: "alibi"}}
	if len(groups) != len(want) {
		t.Fatalf("groups %v, want %v", groups, want)
	}
	for i := range want {
		if groups[i] != want[i] {
			t.Errorf("group %d: %v, want %v", i, groups[i], want[i])
		}
	}
}
