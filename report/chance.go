package report

import (
	"math"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/metric"
)

// The constants of the chance rule, shared by the run report (Aggregate, report.md) and the
// verdicts of the claims engine (package claims), whose rules.go states them once.
const (
	// Level is the confidence level of every interval over seeds.
	Level = 0.95
	// ChanceMargin is how far above chance a score must be to count as above it.
	ChanceMargin = 0.05
)

// Chance is what guessing scores at input length L: the task's baseline where its answers are
// padded or skewed (data.BaselineOf: the best constant answer, its END slot included), else per
// token 1/k, k the values an output token takes (the task's data.OutputClasses, else its
// task.symbols); exact match (1/k)^n for an answer of n tokens. A task whose headline metric
// has no chance level (metric.Bounded: a language model's bits per byte) has no answer to guess:
// NaN for both.
func Chance(c config.Config, L int) (exact, token float64) {
	if !metric.Headline(c.Task.Name, c.Task.Format).Bounded() {
		return math.NaN(), math.NaN()
	}
	if t, err := c.NewTask(); err == nil {
		if b, ok := data.BaselineOf(t, L); ok {
			return b.Exact, b.Token
		}
	}
	k, n := c.Task.Symbols, L
	if t, err := data.New(c.Task.Name, data.Options{Symbols: c.Task.Symbols}); err == nil {
		if classes, ok := data.OutputClasses(t); ok {
			k = classes
		}
		n = t.OutputLen(L)
	}
	if k < 1 {
		return math.NaN(), math.NaN()
	}
	token = 1 / float64(k)
	return math.Pow(token, float64(n)), token
}

// AboveChance: the lower end of the Level interval of the mean over runs exceeds chance +
// ChanceMargin (with one run, the score itself does). floors are the runs' sampling variances
// (RunFloor; nil: none): a side's variance is at least their mean (stats.MeanIntervalFloor), so
// runs that score alike never give a zero-width interval; the interval stays within [0, 1].
func AboveChance(xs, floors []float64, chance float64) bool {
	_, lo, _ := meanInterval(xs, floors)
	return lo > chance+ChanceMargin
}

// AtChance: the upper end of the Level interval of the mean over runs (as AboveChance's) is at
// most chance + ChanceMargin (with one run, the score itself is): within noise of guessing.
func AtChance(xs, floors []float64, chance float64) bool {
	_, _, hi := meanInterval(xs, floors)
	return hi <= chance+ChanceMargin
}

// meanInterval is the interval of AboveChance and AtChance: with one run its score, else the t
// interval with the runs' mean floor, within [0, 1].
func meanInterval(xs, floors []float64) (m, lo, hi float64) {
	if len(xs) < 2 {
		m, _ = stats.MeanVar(xs)
		return m, m, m
	}
	var f float64
	for _, v := range floors {
		f += v / float64(len(floors))
	}
	m, lo, hi = stats.MeanIntervalFloor(xs, f, 0, 1, Level)
	if math.IsNaN(hi) {
		hi = m
	}
	return m, lo, hi
}

// RunFloor is one run's sampling variance at a length: its score there is a fraction of n
// examples' answers in the metric (metric.AnswersPer), stats.BinomialVar of it; 0 without examples.
func RunFloor(name, task string, L, n int, score float64) float64 {
	if n < 1 {
		return 0
	}
	return stats.BinomialVar(score, n*metric.AnswersPer(name, task, L))
}

// ExtrapolatesTo is the rule of "extrapolates to", the one the run report and the claims engine
// both use: the longest of the tested lengths (ascending) up to which the score stays clearly
// above chance (AboveChance) at every tested length; 0 when it is not at the shortest. A length
// whose chance is within ChanceMargin of 1, where no score can clear it (binary_addition's
// lengths 1 to 3, whose answer is fixed), tells nothing and is skipped. at gives, at a length,
// the per-run scores (one per seed), their sampling floors (RunFloor) and the chance level, all
// in the metric being reported.
func ExtrapolatesTo(lengths []int, at func(L int) (scores, floors []float64, chance float64)) int {
	best := 0
	for _, L := range lengths {
		s, fl, ch := at(L)
		if ch+ChanceMargin >= 1 {
			continue
		}
		if !AboveChance(s, fl, ch) {
			break
		}
		best = L
	}
	return best
}
