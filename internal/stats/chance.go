package stats

import "math"

// The constants of the chance rule, shared by the run report (report.Aggregate, report.md) and
// the verdicts of the claims engine (package claims), whose rules.go states them once.
const (
	// Level is the confidence level of every interval over seeds.
	Level = 0.95
	// ChanceMargin is how far above chance a score must be to count as above it.
	ChanceMargin = 0.05
)

// AboveChance: the lower end of the Level interval of the mean over runs exceeds chance +
// ChanceMargin (with one run, the score itself does). floors are the runs' sampling variances
// (metric.RunFloor; nil: none): a side's variance is at least their mean (MeanIntervalFloor), so
// runs that score alike never give a zero-width interval; the interval stays within [0, 1].
func AboveChance(xs, floors []float64, chance float64) bool {
	_, lo, _ := chanceInterval(xs, floors)
	return lo > chance+ChanceMargin
}

// AtChance: the upper end of the Level interval of the mean over runs (as AboveChance's) is at
// most chance + ChanceMargin (with one run, the score itself is): within noise of guessing.
func AtChance(xs, floors []float64, chance float64) bool {
	_, _, hi := chanceInterval(xs, floors)
	return hi <= chance+ChanceMargin
}

// chanceInterval is the interval of AboveChance and AtChance: with one run its score, else the t
// interval with the runs' mean floor, within [0, 1].
func chanceInterval(xs, floors []float64) (m, lo, hi float64) {
	if len(xs) < 2 {
		m, _ = MeanVar(xs)
		return m, m, m
	}
	var f float64
	for _, v := range floors {
		f += v / float64(len(floors))
	}
	m, lo, hi = MeanIntervalFloor(xs, f, 0, 1, Level)
	if math.IsNaN(hi) {
		hi = m
	}
	return m, lo, hi
}

// ExtrapolatesTo is the rule of "extrapolates to", the one the run report and the claims engine
// both use: the longest of the tested lengths (ascending) up to which the score stays clearly
// above chance (AboveChance) at every tested length; 0 when it is not at the shortest. A length
// whose chance is within ChanceMargin of 1, where no score can clear it (binary_addition's
// lengths 1 to 3, whose answer is fixed), tells nothing and is skipped. at gives, at a length,
// the per-run scores (one per seed), their sampling floors (metric.RunFloor) and the chance
// level (metric.Chance), all in the metric being reported.
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
