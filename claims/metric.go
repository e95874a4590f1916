package claims

import (
	"math"
	"strings"

	"github.com/posformer/posformer/report"
)

// The language model's metrics (a per-seed table's columns bits_per_byte and
// sliding_bits_per_byte): bits per byte with non-overlapping windows and with a sliding window.
const (
	MetricBitsPerByte        = "bits_per_byte"
	MetricSlidingBitsPerByte = "sliding_bits_per_byte"
)

// metricInfo is what the engine knows of a metric: which way is better and whether it has a
// chance level (the table's chance columns).
type metricInfo struct {
	lower  bool // lower is better (bits per byte); else higher (accuracies)
	chance bool
}

// metrics are the metrics a statistic may name, in the order an error lists them.
var metrics = []struct {
	name string
	metricInfo
}{
	{report.MetricExact, metricInfo{chance: true}},
	{report.MetricToken, metricInfo{chance: true}},
	{MetricBitsPerByte, metricInfo{lower: true}},
	{MetricSlidingBitsPerByte, metricInfo{lower: true}},
}

// metricOf is the metric's description; ok is false for a name the engine does not know.
func metricOf(name string) (m metricInfo, ok bool) {
	for _, x := range metrics {
		if x.name == name {
			return x.metricInfo, true
		}
	}
	return metricInfo{}, false
}

// metricNames lists the metrics ("exact_match, token_accuracy, ...") for an error.
func metricNames() string {
	var ns []string
	for _, x := range metrics {
		ns = append(ns, x.name)
	}
	return strings.Join(ns, ", ")
}

// lowerBetter: lower scores of the metric are better.
func lowerBetter(metric string) bool {
	m, _ := metricOf(metric)
	return m.lower
}

// ahead is x's advantage over y in the metric's direction: x − y when higher is better, y − x
// when lower is; positive when x is better.
func ahead(metric string, x, y float64) float64 {
	if lowerBetter(metric) {
		return y - x
	}
	return x - y
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
func words(metric string) string { return strings.ReplaceAll(metric, "_", " ") }

// hasChance: the metric has a chance level (the table's chance columns), which the chance rule
// and "extrapolates to" compare with.
func hasChance(metric string) bool {
	m, _ := metricOf(metric)
	return m.chance
}
