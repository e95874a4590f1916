package report

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/metric"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/train"
	"go.yaml.in/yaml/v3"
)

// fixtureGrid writes a grid directory as a finished grid run leaves it (grid.yaml, and per cell
// config.yaml, results.json and an empty metrics.jsonl), with the scores score(cell, seed, L)
// gives (the same for exact match and token accuracy), and loads it. Nothing is trained.
func fixtureGrid(t *testing.T, out, src string, score func(c config.Config, L int) float64) *grid.Grid {
	t.Helper()
	cfg, _, err := config.Read([]byte(src), "fixture.yaml", []string{"out=" + out})
	if err != nil {
		t.Fatal(err)
	}
	cells, err := config.Expand(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := config.GridDir(cfg)
	for _, c := range cells {
		rd := filepath.Join(dir, c.Name)
		if err := os.MkdirAll(rd, 0o755); err != nil {
			t.Fatal(err)
		}
		cy, _ := yaml.Marshal(c.Config)
		res := train.Result{Name: c.Name, Task: c.Config.Task.Name, Scheme: c.Config.Position.Kind, Seed: c.Config.Seed,
			MinLen: c.Config.Task.MinLen, MaxLen: c.Config.Task.MaxLen, Steps: c.Config.Train.Steps}
		for _, L := range c.Config.Eval.Lengths {
			x := score(c.Config, L)
			res.Lengths = append(res.Lengths, train.LengthResult{Length: L, InRange: L >= c.Config.Task.MinLen && L <= c.Config.Task.MaxLen,
				Scores: map[string]float64{metric.ExactMatch: x, metric.TokenAccuracy: x}, N: c.Config.Eval.Examples})
		}
		js, _ := json.Marshal(res)
		for name, data := range map[string][]byte{"config.yaml": cy, "results.json": js, "metrics.jsonl": nil} {
			if err := os.WriteFile(filepath.Join(rd, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	gy, _ := yaml.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(dir, config.GridFile), gy, 0o644); err != nil {
		t.Fatal(err)
	}
	g, err := grid.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// rewriteResults edits every run's results.json of a fixture grid and loads the grid again.
func rewriteResults(t *testing.T, g *grid.Grid, edit func(c config.Config, r *train.Result)) *grid.Grid {
	t.Helper()
	for _, c := range g.Cells {
		path := filepath.Join(g.Dir, c.Name, "results.json")
		var r train.Result
		b, err := os.ReadFile(path)
		if err != nil || json.Unmarshal(b, &r) != nil {
			t.Fatalf("%s: %v", path, err)
		}
		edit(c.Config, &r)
		b, _ = json.Marshal(r)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g, err := grid.Load(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	return g
}
