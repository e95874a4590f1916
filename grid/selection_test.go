package grid

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/setup"
	"github.com/posformer/posformer/train"
)

// lastMetric is the last line of a run's metrics.jsonl.
func lastMetric(t *testing.T, path string) train.Metric {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	var m train.Metric
	if err := json.Unmarshal(lines[len(lines)-1], &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

func TestBestIndexTies(t *testing.T) {
	for _, c := range []struct {
		s    []float64
		d    []bool
		want int
	}{{[]float64{0.2, 0.5, 0.5}, nil, 1}, {[]float64{0.7, 0.7}, nil, 0}, {[]float64{0, 0, 0.1}, nil, 2},
		// A diverged candidate loses, whatever its score; none left: -1.
		{[]float64{0.2, 0.9, 0.5}, []bool{false, true, false}, 2}, {[]float64{0, 0}, []bool{true, false}, 1}, {[]float64{1, 1}, []bool{true, true}, -1}} {
		if got := bestIndex(c.s, c.d); got != c.want {
			t.Errorf("bestIndex(%v) = %d, want %d", c.s, got, c.want)
		}
	}
}

const selectGrid = `name: g
task: {name: copy, min_len: 1, max_len: 4}
model: {d_model: 16, heads: 2, layers: 1, d_ff: 32}
train: {steps: 60, batch_size: 8, log_every: 10, val_every: 30}
eval: {lengths: "1..8", examples: 8}
select:
  field: train.lr
  values: [0.0001, 0.02]
  seeds: [1, 2]
sweep:
  position.kind: [rope, alibi]
  seed: [1, 2, 3]
`

// TestSelection: the tuning runs are every group × candidate × tuning seed; each run's
// validation score (ValidationScore) is the last validation its training logged; each group's choice is the candidate with the highest mean score; the
// grid's cells take it.
func TestSelection(t *testing.T) {
	out := t.TempDir()
	cfg, _, err := config.Read([]byte(selectGrid), "g.yaml", []string{"out=" + out})
	if err != nil {
		t.Fatal(err)
	}
	tuning, err := config.SelectCells(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(tuning) != 2*2*2 {
		t.Fatalf("%d tuning cells, want 8", len(tuning))
	}
	if d := filepath.Dir(filepath.Join(tuning[0].Config.Out, tuning[0].Name)); d != filepath.Join(out, "g", config.SelectDir) {
		t.Fatalf("tuning runs in %s", d)
	}
	checked, err := setup.CheckCells(tuning, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TrainCells(context.Background(), checked, CellOptions{Jobs: 2}); err != nil {
		t.Fatal(err)
	}
	mean := map[string][]float64{} // kind → per candidate
	for _, c := range tuning {
		dir := filepath.Join(c.Config.Out, c.Name)
		got, err := train.ValidationScore(dir, "exact_match")
		if err != nil {
			t.Fatal(err)
		}
		if last := lastMetric(t, filepath.Join(dir, "metrics.jsonl")); last.ValExact == nil || *last.ValExact != got {
			t.Fatalf("%s: ValidationScore %v, last logged validation %v", c.Name, got, last.ValExact)
		}
		k := c.Config.Position.Kind
		if mean[k] == nil {
			mean[k] = make([]float64, 2)
		}
		i := 0
		if c.Config.Train.LR == 0.02 {
			i = 1
		}
		mean[k][i] += got / 2
	}
	sel, err := Choose(cfg, tuning)
	if err != nil {
		t.Fatal(err)
	}
	if len(sel.Groups) != 2 {
		t.Fatalf("groups %+v", sel.Groups)
	}
	for _, g := range sel.Groups {
		k := g.Values["position.kind"]
		want := []float64{0.0001, 0.02}[bestIndex(mean[k], nil)]
		if g.Chosen != want || g.Scores[0] != mean[k][0] || g.Scores[1] != mean[k][1] {
			t.Errorf("%s: chose %g with scores %v; the means are %v", k, g.Chosen, g.Scores, mean[k])
		}
	}
	if err := WriteSelection(filepath.Join(out, "g"), sel); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSelection(filepath.Join(out, "g"))
	if err != nil {
		t.Fatal(err)
	}
	cells, err := ExpandSelected(cfg, back)
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 6 {
		t.Fatalf("%d cells", len(cells))
	}
	for _, c := range cells {
		for _, g := range sel.Groups {
			if g.Values["position.kind"] == c.Config.Position.Kind && c.Config.Train.LR != g.Chosen {
				t.Errorf("%s trains at lr %g, chosen %g", c.Name, c.Config.Train.LR, g.Chosen)
			}
		}
		if c.Config.Select.On() {
			t.Errorf("%s keeps the select: section", c.Name)
		}
	}
	t.Logf("scores: %v; chosen %s %g, %s %g", mean, sel.Groups[0].Values["position.kind"], sel.Groups[0].Chosen, sel.Groups[1].Values["position.kind"], sel.Groups[1].Chosen)
}
