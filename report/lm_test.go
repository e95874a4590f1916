package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/metric"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/train"
)

// TestLMCurves: the lm runs of a grid are gathered by group over seeds (mean, min, max at each
// length, for both evaluations), the other tasks' runs left out; the table shows the sliding
// window's mean after the non-overlapping one's only where they differ; the plot is written.
func TestLMCurves(t *testing.T) {
	cell := func(kind string, seed uint64, task string) config.Cell {
		var c config.Config
		c.Task.Name = task
		c.Position.Kind = kind
		c.Seed = seed
		return config.Cell{Config: c, Values: map[string]string{"position.kind": kind, "seed": "x"}}
	}
	run := func(c config.Cell, bpb ...float64) *grid.Run {
		r := &train.Result{Task: c.Config.Task.Name, Scheme: c.Config.Position.Kind, MaxLen: 64}
		for i, L := range []int{32, 64, 128} {
			r.Lengths = append(r.Lengths, train.LengthResult{Length: L, Scores: map[string]float64{metric.BitsPerByte: bpb[i], metric.SlidingBitsPerByte: bpb[i] + float64(L/128)}})
		}
		if c.Config.Task.Name != "lm" {
			for i := range r.Lengths {
				r.Lengths[i].Scores[metric.BitsPerByte], r.Lengths[i].Scores[metric.SlidingBitsPerByte] = 0, 0
			}
		}
		return &grid.Run{Cell: c, Result: r}
	}
	cells := []config.Cell{cell("alibi", 1, "lm"), cell("alibi", 2, "lm"), cell("sinusoidal", 1, "lm"), cell("sinusoidal", 1, "copy")}
	g := &grid.Grid{Dir: t.TempDir(), Cells: cells, Runs: []*grid.Run{
		run(cells[0], 3, 2, 1.5), run(cells[1], 5, 4, 2.5), run(cells[2], 3, 2, 6), run(cells[3], 1, 1, 1)}}
	sums, rows, err := Aggregate(g.Cells, g.Results())
	if err != nil {
		t.Fatal(err)
	}
	cs := Curves(sums, rows)
	if len(cs) != 2 || cs[0].Group.Scheme != "alibi" || cs[0].Seeds != 2 || cs[1].Seeds != 1 {
		t.Fatalf("curves %+v", cs)
	}
	if w := cs[0].Stats[0][2]; w.Mean != 2 || w.Min != 1.5 || w.Max != 2.5 {
		t.Errorf("alibi at 128: %+v, want mean 2 in [1.5, 2.5]", w)
	}
	if s := cs[0].Stats[1][2]; s.Mean != 3 {
		t.Errorf("alibi sliding at 128: %+v, want mean 3", s)
	}
	table := CurveTable(cs)
	for _, want := range []string{"| scheme | seeds | 32 | 64 | 128 |", "| alibi | 2 | 4.000 | 3.000 | 2.000 / 3.000 |", "| sinusoidal | 1 | 3.000 | 2.000 | 6.000 / 7.000 |"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	ct := CurveChangeTable(cs)
	// alibi's seeds change by 1.5−2 = −0.5 and 2.5−4 = −1.5 at 128: mean −1, t interval ±6.35.
	for _, want := range []string{"| alibi | 2 | 128 | -1.0000 [-7.3531, +5.3531] | +0.0000 [-6.3531, +6.3531] |", "| sinusoidal | 1 | 128 | +4.0000 | +5.0000 |"} {
		if !strings.Contains(ct, want) {
			t.Errorf("change table lacks %q:\n%s", want, ct)
		}
	}
	if strings.Contains(ct, "| 64 |") || strings.Contains(ct, "| 32 |") {
		t.Errorf("change table has lengths within training:\n%s", ct)
	}
	name, err := curvePlot(g.Dir, cs)
	if err != nil || name != "lm_bits_per_byte" {
		t.Fatalf("curvePlot: %q, %v", name, err)
	}
	for _, ext := range []string{".png", ".svg"} {
		if st, err := os.Stat(filepath.Join(g.Dir, name+ext)); err != nil || st.Size() == 0 {
			t.Errorf("%s%s: %v", name, ext, err)
		}
	}
	if name, err := curvePlot(g.Dir, nil); name != "" || err != nil {
		t.Errorf("no lm run: plot %q, %v", name, err)
	}
}
