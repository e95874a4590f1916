package report

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/train"
)

// regroupedCurves is the curves as the report once computed them, regrouping the runs itself:
// by group in the order of each group's first run scored in bits per byte, a length kept when
// every such run has it, each seed's change paired with its own score at the training length.
func regroupedCurves(cells []config.Cell, results []*train.Result) []Curve {
	ms := metric.Unbounded()
	var order []config.Group
	runs := map[config.Group][]*train.Result{}
	for i, r := range results {
		if r == nil || len(r.Lengths) == 0 || r.Lengths[0].Score(ms[0].Name) == 0 {
			continue
		}
		k := config.GroupOf(cells[i])
		if _, ok := runs[k]; !ok {
			order = append(order, k)
		}
		runs[k] = append(runs[k], r)
	}
	var out []Curve
	for _, k := range order {
		rs := runs[k]
		c := Curve{Group: k, MaxLen: rs[0].MaxLen, Seeds: len(rs), Stats: make([][]stats.Stat, len(ms)), Change: make([][][]float64, len(ms))}
		at := func(r *train.Result, L int) int {
			return slices.IndexFunc(r.Lengths, func(x train.LengthResult) bool { return x.Length == L })
		}
		for _, l := range rs[0].Lengths {
			xs, ds := make([][]float64, len(ms)), make([][]float64, len(ms))
			for _, r := range rs {
				i, t := at(r, l.Length), at(r, c.MaxLen)
				if i < 0 {
					break
				}
				for m, mm := range ms {
					xs[m] = append(xs[m], r.Lengths[i].Score(mm.Name))
					if t >= 0 {
						ds[m] = append(ds[m], r.Lengths[i].Score(mm.Name)-r.Lengths[t].Score(mm.Name))
					}
				}
			}
			if len(xs[0]) != len(rs) {
				continue
			}
			c.Lengths = append(c.Lengths, l.Length)
			for m := range ms {
				if len(ds[m]) != len(rs) {
					ds[m] = nil
				}
				c.Stats[m], c.Change[m] = append(c.Stats[m], stats.NewStat(xs[m])), append(c.Change[m], ds[m])
			}
		}
		out = append(out, c)
	}
	return out
}

// TestCurvesFromAggregate: over many random grids of language-model and copy runs (seeds that
// diverged, lengths some seeds lack, the training length missing, groups whose first seed
// diverged), the curves read from Aggregate's rows are the curves of the runs regrouped one by
// one.
func TestCurvesFromAggregate(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	groups := [][2]string{{"lm", "alibi"}, {"lm", "rope"}, {"lm", "sinusoidal"}, {"copy", "rope"}}
	nonEmpty := 0
	for trial := 0; trial < 400; trial++ {
		var cells []config.Cell
		var results []*train.Result
		for i := 0; i < 1+r.IntN(9); i++ {
			g := groups[r.IntN(len(groups))]
			var c config.Cell
			c.Config.Task.Name, c.Config.Position.Kind, c.Config.Seed = g[0], g[1], uint64(i+1)
			c.Values = map[string]string{"position.kind": g[1], "task.name": g[0], "seed": "x"}
			res := &train.Result{Task: g[0], Scheme: g[1], MinLen: 1, MaxLen: 64}
			switch {
			case r.IntN(5) == 0:
				res.Diverged = &train.Divergence{Step: 1}
			default:
				for _, L := range []int{16, 32, 64, 128} {
					if r.IntN(8) == 0 {
						continue
					}
					l := train.LengthResult{Length: L, InRange: L <= 64, N: 4, Scores: map[string]float64{}}
					if g[0] == "lm" {
						l.Scores[metric.BitsPerByte], l.Scores[metric.SlidingBitsPerByte] = 1+3*r.Float64(), 1+3*r.Float64()
					} else {
						l.Scores[metric.ExactMatch], l.Scores[metric.TokenAccuracy] = r.Float64(), r.Float64()
					}
					res.Lengths = append(res.Lengths, l)
				}
			}
			cells, results = append(cells, c), append(results, res)
		}
		sums, rows, err := Aggregate(cells, results)
		if err != nil {
			t.Fatal(err)
		}
		got, want := Curves(sums, rows), regroupedCurves(cells, results)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trial %d:\n got %+v\nwant %+v", trial, got, want)
		}
		if len(want) > 0 {
			nonEmpty++
		}
	}
	if nonEmpty < 200 {
		t.Errorf("only %d of 400 grids had curves", nonEmpty)
	}
}
