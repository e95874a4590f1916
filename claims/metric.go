package claims

import (
	"math"

	"github.com/posformer/posformer/metric"
)

// lowerBetter: lower scores of the metric are better.
func lowerBetter(name string) bool {
	m, _ := metric.Get(name)
	return m.Lower
}

// ahead is x's advantage over y in the metric's direction: x − y when higher is better, y − x
// when lower is; positive when x is better.
func ahead(name string, x, y float64) float64 {
	m, _ := metric.Get(name)
	return m.Ahead(x, y)
}

// best is the best of xs in the metric's direction (the paper's "best over runs").
func best(metric string, xs []float64) float64 {
	b := math.NaN()
	for _, x := range xs {
		if math.IsNaN(b) || ahead(metric, x, b) > 0 {
			b = x
		}
	}
	return b
}

// notLearned: an in-range mean m falls short of the learned bar (below it, or above it when
// lower is better): the cell has not learned the task.
func notLearned(metric string, m, bar float64) bool { return ahead(metric, m, bar) < 0 }

// hasChance: the metric has a chance level (from the table's chance columns), which the chance
// rule and "extrapolates to" compare with.
func hasChance(name string) bool {
	m, _ := metric.Get(name)
	return m.Chance != nil
}
