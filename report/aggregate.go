package report

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/internal/table"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/train"
)

// statFields are the statistic's mean, std, min and max as CSV fields (CSVFloat).
func statFields(s stats.Stat) []string {
	return []string{table.CSVFloat(s.Mean), table.CSVFloat(s.Std), table.CSVFloat(s.Min), table.CSVFloat(s.Max)}
}

// LengthStat is one (group, length) row: per metric of the group's task (package metric), the
// statistic over seeds.
type LengthStat struct {
	config.Group
	Length  int
	InRange bool
	Scores  map[string]stats.Stat
	// results are the runs' results at the length, in the grid's order (Curves pairs them by seed).
	results []train.LengthResult
}

// GroupSummary is one (group) row: per metric, the in-range and beyond-range score over seeds;
// which metric is the group's headline, and how far the group extrapolates.
type GroupSummary struct {
	config.Group
	MinLen, MaxLen int
	Seeds          int
	// Diverged counts the seeds whose training diverged (train.Result.Diverged): they have no scores,
	// so the statistics are over the others.
	Diverged int
	// Metric is the group's headline score, the one its protocol reports (metric.Headline).
	Metric string
	// In and Beyond are, per metric, the statistic over seeds of each seed's mean over the
	// in-range lengths and over the lengths > MaxLen.
	In, Beyond map[string]stats.Stat
	// ExtrapLength is how far the group extrapolates, by the rule the claims engine uses too
	// (stats.ExtrapolatesTo): the longest tested length up to which the headline metric stays clearly
	// above the task's chance level at every tested length (0 if it is not at the first).
	ExtrapLength int
	// ExtrapRatio is ExtrapLength / MaxLen.
	ExtrapRatio float64
	// evaluated counts the seeds with per-length results (the others diverged), first is the
	// cell index of the first of them: the order of the curves (Curves).
	evaluated, first int
}

// Headline is the group's in-range and beyond-range statistic in its headline metric.
func (s GroupSummary) Headline() (inRange, beyond stats.Stat) {
	return s.In[s.Metric], s.Beyond[s.Metric]
}

// Aggregate groups finished runs (nil results are skipped) and summarises them over seeds, in
// every metric of their task's kind. Groups come in the order of their first cell; lengths
// ascending.
func Aggregate(cells []config.Cell, results []*train.Result) ([]GroupSummary, []LengthStat, error) {
	type acc struct {
		g              config.Group
		cfg            config.Config // the first cell's: the task, for its chance level
		minLen, maxLen int
		runs           []*train.Result
		first          int // the cell index of the first run with per-length results; -1: none
	}
	var order []config.Group
	groups := map[config.Group]*acc{}
	for i, c := range cells {
		r := results[i]
		if r == nil {
			continue
		}
		g := config.GroupOf(c)
		a, ok := groups[g]
		if !ok {
			a = &acc{g: g, cfg: c.Config, minLen: r.MinLen, maxLen: r.MaxLen, first: -1}
			groups[g] = a
			order = append(order, g)
		}
		if r.MinLen != a.minLen || r.MaxLen != a.maxLen {
			return nil, nil, fmt.Errorf("aggregate: %v mixes training ranges %d..%d and %d..%d", g, a.minLen, a.maxLen, r.MinLen, r.MaxLen)
		}
		a.runs = append(a.runs, r)
		if a.first < 0 && len(r.Lengths) > 0 {
			a.first = i
		}
	}
	var sums []GroupSummary
	var rows []LengthStat
	for _, g := range order {
		a := groups[g]
		metrics := metric.For(a.cfg.Task.Name)
		headline := metric.Headline(a.cfg.Task.Name, a.cfg.Task.Format)
		s := GroupSummary{Group: g, MinLen: a.minLen, MaxLen: a.maxLen, Seeds: len(a.runs), Metric: headline.Name,
			In: map[string]stats.Stat{}, Beyond: map[string]stats.Stat{}, first: a.first}
		byLen := map[int][]train.LengthResult{}
		for _, r := range a.runs {
			for _, l := range r.Lengths {
				byLen[l.Length] = append(byLen[l.Length], l)
			}
			if r.Diverged != nil {
				s.Diverged++
			}
			if len(r.Lengths) > 0 {
				s.evaluated++
			}
		}
		for _, m := range metrics {
			var in, beyond []float64
			for _, r := range a.runs {
				i, b := r.Summary(m.Name)
				if !math.IsNaN(i) {
					in = append(in, i)
				}
				if !math.IsNaN(b) {
					beyond = append(beyond, b)
				}
			}
			s.In[m.Name], s.Beyond[m.Name] = stats.NewStat(in), stats.NewStat(beyond)
		}
		lengths := slices.Sorted(maps.Keys(byLen))
		scores := func(L int, name string) []float64 {
			var xs []float64
			for _, l := range byLen[L] {
				xs = append(xs, l.Score(name))
			}
			return xs
		}
		for _, L := range lengths {
			row := LengthStat{Group: g, Length: L, InRange: L >= a.minLen && L <= a.maxLen, Scores: map[string]stats.Stat{}, results: byLen[L]}
			for _, m := range metrics {
				row.Scores[m.Name] = stats.NewStat(scores(L, m.Name))
			}
			rows = append(rows, row)
		}
		if headline.Chance != nil {
			s.ExtrapLength = stats.ExtrapolatesTo(lengths, func(L int) ([]float64, []float64, float64) {
				exact, token := metric.Chance(a.cfg.Task.Name, a.cfg.TaskOptions(), L)
				var floors []float64
				for _, l := range byLen[L] {
					floors = append(floors, metric.RunFloor(headline.Name, a.cfg.Task.Name, L, l.N, l.Score(headline.Name)))
				}
				return scores(L, headline.Name), floors, headline.Chance(metric.Guess{Exact: exact, Token: token})
			})
		}
		s.ExtrapRatio = float64(s.ExtrapLength) / float64(a.maxLen)
		sums = append(sums, s)
	}
	return sums, rows, nil
}
