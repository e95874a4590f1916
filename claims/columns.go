package claims

import (
	"math"
	"strconv"

	"github.com/posformer/posformer/internal/table"
	"github.com/posformer/posformer/metric"
)

// column is one column of a per-seed table, declared once (columns): its name, whether a table
// may lack it, how a row writes it (TableCSV) and, for a whole-number column, the field it
// reads into and its least value (readTable); Header is their names.
type column struct {
	name string
	// optional: tables written before the column lack it, or it is written only by a table
	// that has a language model's rows (the unbounded metrics, metric.Unbounded).
	optional bool
	write    func(Row) string
	// whole, when set, is the field of a whole-number column ≥ min, read by readTable.
	whole func(*Row) *int
	min   int
}

// columns are a per-seed table's columns in order: a column per sequence metric
// (metric.Scored) after in_range, and the unbounded metrics (metric.Unbounded) last.
func columns() []column {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	whole := func(name string, min int, f func(*Row) *int) column {
		return column{name: name, write: func(r Row) string { return strconv.Itoa(*f(&r)) }, whole: f, min: min}
	}
	cols := []column{
		{name: "task", write: func(r Row) string { return r.Task }},
		{name: "scheme", write: func(r Row) string { return r.Scheme }},
		{name: "variant", write: func(r Row) string { return r.Variant }},
		{name: "seed", write: func(r Row) string { return strconv.FormatUint(r.Seed, 10) }},
		whole("length", 1, func(r *Row) *int { return &r.Length }),
		{name: "in_range", write: func(r Row) string { return strconv.FormatBool(r.InRange) }},
	}
	for _, m := range metric.Scored() {
		cols = append(cols, column{name: m.Name, write: func(r Row) string { return g(r.Scores[m.Name]) }})
	}
	cols = append(cols,
		whole("n", 0, func(r *Row) *int { return &r.N }),
		column{name: "lr", write: func(r Row) string { return g(r.LR) }},
		whole("steps", 1, func(r *Row) *int { return &r.Steps }),
		whole("best_step", 0, func(r *Row) *int { return &r.BestStep }),
		whole("stop_step", 0, func(r *Row) *int { return &r.StopStep }),
		whole("train_min_len", 1, func(r *Row) *int { return &r.MinLen }),
		whole("train_max_len", 1, func(r *Row) *int { return &r.MaxLen }),
		column{name: "chance_exact", write: func(r Row) string { return table.CSVFloat(r.ChanceExact) }},
		column{name: "chance_token", write: func(r Row) string { return table.CSVFloat(r.ChanceToken) }},
		column{name: "best_val_score", optional: true, write: func(r Row) string { return table.CSVFloat(r.BestScore) }},
		// read by readTable itself: it is optional, so not a whole column
		column{name: "diverged_step", optional: true, write: func(r Row) string { return strconv.Itoa(r.DivergedStep) }},
	)
	for _, m := range metric.Unbounded() {
		cols = append(cols, column{name: m.Name, optional: true, write: func(r Row) string {
			x, ok := r.Scores[m.Name]
			if !ok {
				x = math.NaN()
			}
			return table.CSVFloat(x)
		}})
	}
	return cols
}

// Header is the column list of a per-seed table (columns). The optional ones (the unbounded
// metrics, best_val_score and diverged_step) may be missing on reading (tables written before
// them lack them); the unbounded metrics are written only by a table that has a language model's
// rows (empty fields in its other rows).
func Header() []string {
	cols := columns()
	h := make([]string, len(cols))
	for i, c := range cols {
		h[i] = c.name
	}
	return h
}

// optional tells whether a table may lack a column (tables written before it, tables without a
// language model's rows).
func optional(h string) bool {
	for _, c := range columns() {
		if c.name == h {
			return c.optional
		}
	}
	return false
}
