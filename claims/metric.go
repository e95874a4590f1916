package claims

import (
	"math"

	"github.com/posformer/posformer/metric"
)

// MetricBitsPerByte is the language model's headline metric (package metric declares them all).
const MetricBitsPerByte = metric.BitsPerByte

// metricOf is the metric of that name; ok is false for a name the registry does not know.
func metricOf(name string) (m metric.Metric, ok bool) { return metric.Get(name) }

// metricNames lists the metrics ("exact_match, token_accuracy, ...") for an error.
func metricNames() string { return metric.Names(metric.All(), ",") }

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

// words is the metric as prose ("bits per byte").
func words(name string) string { return metric.Words(name) }

// hasChance: the metric has a chance level (from the table's chance columns), which the chance
// rule and "extrapolates to" compare with.
func hasChance(name string) bool {
	m, _ := metric.Get(name)
	return m.Chance != nil
}
