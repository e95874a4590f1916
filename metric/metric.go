// Package metric is the registry of scores: each metric is declared once (Register), with its
// name, its direction, its chance level, the task kinds it applies to, whether it headlines a
// task, and how it is computed from a model's answers. A run writes its scores keyed by name;
// the report aggregates, the claims engine judges, train.early_stop and select: choose, and the
// CSV columns follow, all from here. It lies just above data (whose tasks declare their kind) and
// below everything that names a metric.
package metric

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/posformer/posformer/data"
)

// Answer is one test example as the model answered it under teacher forcing: at every scored
// output position, the argmax of the logits and the target.
type Answer struct{ Pred, Target []int }

// Guess is what guessing scores on a task at one length: every output right (Exact) and one
// output token right (Token). Both are NaN for a task with no chance level (text).
type Guess struct{ Exact, Token float64 }

// Metric is one score.
type Metric struct {
	Name string
	// Lower: lower scores are better (bits per byte); else higher (accuracies).
	Lower bool
	// Kinds are the task kinds (data.Kind) the metric applies to.
	Kinds []string
	// Chance is the metric's chance level from what guessing scores; nil: none (the chance
	// rule and "extrapolates to" are then not defined).
	Chance func(Guess) float64
	// Headlines tells whether the metric is the headline score of a task of this kind and
	// format (the one its protocol reports); one metric does for each task.
	Headlines func(kind, format string) bool
	// Score counts what one answer gets right of what it could (exact match: 1 of 1 or 0 of 1);
	// the metric at a length is the sum of rights over the sum of those counts, so a test set is
	// scored a batch at a time. nil: the task kind's own evaluator measures it (bits per byte,
	// from likelihoods). A metric with Score can be validated, so train.early_stop and select:
	// may choose it.
	Score func(Answer) (right, of int)
	// Label names the metric in tables and progress lines ("in-range exact"), Short in CSV
	// columns ("in_range_exact_mean"). Default (Register): the name as words, and the name.
	Label, Short string
	// Paired is a further value the evaluator writes right after this metric in results.json
	// (perplexity after bits per byte), "" for none.
	Paired string
	// Sliding names the same metric measured with a sliding window ("" for none): a run is then
	// summed up at its training length and its longest, each with the sliding value beside it,
	// rather than by its means in and beyond the training range.
	Sliding string
}

// Applies tells whether the metric applies to tasks of the kind.
func (m Metric) Applies(kind string) bool { return slices.Contains(m.Kinds, kind) }

// Ahead is x's advantage over y in the metric's direction: positive when x is better.
func (m Metric) Ahead(x, y float64) float64 {
	if m.Lower {
		return y - x
	}
	return x - y
}

// Words is a metric's name as prose ("bits per byte").
func Words(name string) string { return strings.ReplaceAll(name, "_", " ") }

var registry struct {
	sync.RWMutex
	all []Metric
}

// Register adds a metric. It is meant to be called from init (a test may register its own) and
// panics on an empty name, a duplicate, or a metric of no kind.
func Register(m Metric) {
	registry.Lock()
	defer registry.Unlock()
	switch {
	case m.Name == "":
		panic("metric.Register: empty name")
	case len(m.Kinds) == 0:
		panic(fmt.Sprintf("metric.Register: metric %q applies to no task kind", m.Name))
	}
	for _, x := range registry.all {
		if x.Name == m.Name {
			panic(fmt.Sprintf("metric.Register: metric %q registered twice", m.Name))
		}
	}
	m.Label, m.Short = cmp.Or(m.Label, Words(m.Name)), cmp.Or(m.Short, m.Name)
	registry.all = append(registry.all, m)
}

// All lists the metrics in the order they were registered.
func All() []Metric {
	registry.RLock()
	defer registry.RUnlock()
	return append([]Metric(nil), registry.all...)
}

// Get is the metric of that name; false for a name not registered.
func Get(name string) (Metric, bool) {
	for _, m := range All() {
		if m.Name == name {
			return m, true
		}
	}
	return Metric{}, false
}

// Where lists the metrics that keep keeps, in order.
func Where(keep func(Metric) bool) []Metric {
	var out []Metric
	for _, m := range All() {
		if keep(m) {
			out = append(out, m)
		}
	}
	return out
}

// Of lists the metrics that apply to a task kind, in order.
func Of(kind string) []Metric { return Where(func(m Metric) bool { return m.Applies(kind) }) }

// For lists the metrics that apply to a registered task (its kind: data.KindOf), in order.
func For(task string) []Metric { return Of(data.KindOf(task)) }

// Scored lists the metrics computed from answers (Score), which validation measures and
// train.early_stop and select: may choose.
func Scored() []Metric { return Where(func(m Metric) bool { return m.Score != nil }) }

// Headline is the metric that headlines a registered task in this format (Metric.Headlines of
// its kind); the zero Metric when none does.
func Headline(task, format string) Metric {
	kind := data.KindOf(task)
	for _, m := range All() {
		if m.Headlines != nil && m.Headlines(kind, format) {
			return m
		}
	}
	return Metric{}
}

// Names lists metrics' names for a message: "a, b or c" (join "or"), "a, b, c" (join ",").
func Names(ms []Metric, join string) string {
	ns := make([]string, len(ms))
	for i, m := range ms {
		ns[i] = m.Name
	}
	if join == "," || len(ns) < 2 {
		return strings.Join(ns, ", ")
	}
	return strings.Join(ns[:len(ns)-1], ", ") + " " + join + " " + ns[len(ns)-1]
}
