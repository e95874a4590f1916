package grid

import (
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/train"
)

// TestSelectionLine: the line a grid prints for each group's choice names the group as
// field=value pairs (not a Go map) and every candidate's score beside its value.
func TestSelectionLine(t *testing.T) {
	sel := &Selection{Field: "train.lr", Values: []float64{0.003, 0.01}, Metric: "exact_match"}
	g := SelectionGroup{Values: map[string]string{"task.name": "copy", "position.kind": "rope"}, Scores: []float64{0.640625, 0.71875}, Chosen: 0.01}
	want := "select: position.kind=rope, task.name=copy: train.lr = 0.01 (mean validation exact_match 0.003: 0.641, 0.01: 0.719)"
	if got := selectionLine(sel, g); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := selectionLine(sel, SelectionGroup{Scores: []float64{0.5, 0.25}, Chosen: 0.003}); !strings.HasPrefix(got, "select: all cells: train.lr = 0.003") {
		t.Errorf("a grid with one group: %s", got)
	}
}

// TestScoreLine: a grid's progress lines give a slots-format run's token accuracy (Protocol B's
// metric, which the report headlines), a next-token run's exact match, and an lm run's bits per
// byte at the training length and the longest (never its exact match, which means nothing).
func TestScoreLine(t *testing.T) {
	r := &train.Result{MinLen: 1, MaxLen: 1, Lengths: []train.LengthResult{ // in range: exact 0.25, token 0.875; beyond: 0, 0.5
		{Length: 1, InRange: true, Scores: map[string]float64{metric.ExactMatch: 0.25, metric.TokenAccuracy: 0.875}},
		{Length: 2, Scores: map[string]float64{metric.ExactMatch: 0, metric.TokenAccuracy: 0.5}}}}
	var slots, next config.Config
	slots.Task.Format, next.Task.Format = data.FormatSlots, data.FormatNext
	if got, want := scoreLine(slots, r), "in-range token accuracy 0.875, beyond 0.500"; got != want {
		t.Errorf("slots: got %q, want %q", got, want)
	}
	if got, want := scoreLine(next, r), "in-range exact 0.250, beyond 0.000"; got != want {
		t.Errorf("next: got %q, want %q", got, want)
	}
	var lm config.Config
	lm.Task.Name, lm.Task.Format = "lm", data.FormatNext
	r.MaxLen, r.Lengths = 16, nil
	for _, l := range [][3]float64{{8, 3.1, 3.1}, {16, 2.9, 2.9}, {64, 2.5, 2.4}} {
		r.Lengths = append(r.Lengths, train.LengthResult{Length: int(l[0]), Scores: map[string]float64{metric.BitsPerByte: l[1], metric.SlidingBitsPerByte: l[2]}})
	}
	if got, want := scoreLine(lm, r), "bits per byte 2.900 at 16 (training length), 2.500 at 64 (sliding 2.400)"; got != want {
		t.Errorf("lm: got %q, want %q", got, want)
	}
	r.Lengths = r.Lengths[:2]
	if got, want := scoreLine(lm, r), "bits per byte 2.900 at 16"; got != want {
		t.Errorf("lm evaluated up to its training length: got %q, want %q", got, want)
	}
}
