package claims

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/internal/table"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/position"
	"github.com/posformer/posformer/train"
)

// Row is one row of a per-seed results table: a finished run's result at one test length (its
// train.LengthResult) with the run's task, scheme, variant, seed, rate and training. Its Scores
// hold the sequence tasks' metrics in every row, a text task's (bits per byte; lower is better)
// only in its rows.
type Row struct {
	Task, Scheme, Variant string
	Seed                  uint64
	train.LengthResult
	LR              float64
	Steps, BestStep int
	StopStep        int
	MinLen, MaxLen  int
	// ChanceExact and ChanceToken are what guessing scores (metric.Guess), NaN for a text task.
	ChanceExact float64
	ChanceToken float64
	// BestScore is the run's best validation score (the one early stopping and select: compare;
	// bits per byte for a language model), 0 when the run had no validation, NaN when the table
	// predates the column.
	BestScore float64
	// DivergedStep is the step at which the run's loss became non-finite or exploded (0: it
	// did not diverge): its scores are not a result, and a claim on its cell is untested.
	DivergedStep int
}

// unboundedCols are the unbounded metrics' columns (a language model's), empty in other rows
// (read once: Row.unbounded asks for every row).
var unboundedCols = names(metric.Unbounded())

// unbounded: the row has scores in the metrics with no upper bound and no chance level
// (metric.Unbounded: a language model's bits per byte).
func (r Row) unbounded() bool {
	x, ok := r.Scores[unboundedCols[0]]
	return ok && !math.IsNaN(x)
}

func names(ms []metric.Metric) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Name
	}
	return out
}

// ReadTable parses a per-seed table, checking its columns and the range of every number.
func ReadTable(path string) ([]Row, error) { return readTable(path, nil) }

// readTable is ReadTable, with the content of a table about to be written taken from overlay.
func readTable(path string, overlay map[string][]byte) ([]Row, error) {
	src, ok := overlay[path]
	if !ok {
		var err error
		if src, err = readRegular(path); err != nil {
			return nil, err
		}
	}
	recs, err := csv.NewReader(bytes.NewReader(src)).ReadAll()
	if err != nil {
		if pe, ok := errors.AsType[*csv.ParseError](err); ok && errors.Is(err, csv.ErrFieldCount) && cutShort(src, pe.Line) {
			return nil, fmt.Errorf("%s: line %d, its last, stops part-way with no newline at its end: the file was cut short (a copy or a write that stopped)", path, pe.Line)
		}
		return nil, fmt.Errorf("%s: %w: the file is not CSV", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s is empty: export it again from its grid (claims -export)", path)
	}
	if err := checkCSV(path, src, recs, Header(), optional); err != nil {
		return nil, err
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range Header() {
		if _, ok := col[h]; !ok && !optional(h) {
			return nil, fmt.Errorf("%s: no column %q (the columns of a per-seed table: %s)", path, h, strings.Join(Header(), ","))
		}
	}
	var wholeCols []column
	for _, c := range columns() {
		if c.whole != nil {
			wholeCols = append(wholeCols, c)
		}
	}
	var rows []Row
	var lines []int
	for i, r := range recs[1:] {
		line := i + 2
		get := func(h string) string { return r[col[h]] }
		if h, ok := notDecimal(recs[0], r); ok {
			return nil, rowErr(path, line, fixRow, "%s: %q is not a decimal number (hexadecimal and digit separators are not what posformer writes)", h, get(h))
		}
		bad := func(h, want string) error {
			return rowErr(path, line, "", "%s: %q is not %s", h, get(h), want)
		}
		var x Row
		var err error
		x.Task, x.Scheme, x.Variant = get("task"), get("scheme"), get("variant")
		if err := checkNames(path, line, x); err != nil {
			return nil, err
		}
		if x.Task == "" || x.Scheme == "" {
			return nil, rowErr(path, line, "", "empty task or scheme")
		}
		if x.Seed, err = strconv.ParseUint(get("seed"), 10, 64); err != nil {
			return nil, bad("seed", "a whole number ≥ 0")
		}
		for _, c := range wholeCols {
			v, err := strconv.Atoi(get(c.name))
			if err != nil || v < c.min {
				return nil, bad(c.name, fmt.Sprintf("a whole number ≥ %d", c.min))
			}
			*c.whole(&x) = v
		}
		x.Scores = map[string]float64{}
		text := metric.Unbounded()
		for _, m := range text {
			if _, ok := col[m.Name]; !ok || get(m.Name) == "" {
				continue
			}
			v, err := strconv.ParseFloat(get(m.Name), 64)
			if err == nil && !(v <= maxBits) {
				return nil, rowErr(path, line, fmt.Sprintf(": want a finite number of bits per byte up to %d (a uniform guess among 256 bytes scores 8)", maxBits)+fixRow, "%s is %s", m.Name, get(m.Name))
			}
			if err != nil || !(v >= 0) {
				return nil, bad(m.Name, "a number of bits ≥ 0 (empty for a task other than lm)")
			}
			x.Scores[m.Name] = v
		}
		if len(x.Scores) != 0 && len(x.Scores) != len(text) {
			return nil, rowErr(path, line, "", "%s are both given (a language model's row) or both empty", strings.Join(names(text), " and "))
		}
		if x.InRange, err = strconv.ParseBool(get("in_range")); err != nil {
			return nil, bad("in_range", "true or false")
		}
		// a language model has seen every context up to its training windows'
		if want := x.Length <= x.MaxLen && (x.unbounded() || x.Length >= x.MinLen); x.InRange != want {
			return nil, rowErr(path, line, "", "in_range is %v at length %d, trained on %d..%d", x.InRange, x.Length, x.MinLen, x.MaxLen)
		}
		x.BestScore = math.NaN() // not in the table
		if _, ok := col["best_val_score"]; ok && get("best_val_score") != "" {
			// an accuracy, or a language model's validation bits per byte
			v, err := strconv.ParseFloat(get("best_val_score"), 64)
			if err != nil || !(v >= 0 && (v <= 1 || x.unbounded())) || math.IsInf(v, 0) {
				return nil, bad("best_val_score", "a score in [0, 1] (bits ≥ 0 for a language model)")
			}
			x.BestScore = v
		}
		if _, ok := col["diverged_step"]; ok {
			if x.DivergedStep, err = strconv.Atoi(get("diverged_step")); err != nil || x.DivergedStep < 0 {
				return nil, bad("diverged_step", "a whole number ≥ 0")
			}
		}
		if x.N == 0 && x.DivergedStep == 0 { // a diverged run's rows have none
			return nil, rowErr(path, line, ": export the table again from a grid whose eval.examples is at least 1", "n is 0 in a run that did not diverge, so its scores were measured on no example")
		}
		for _, h := range append(names(metric.Scored()), "chance_exact", "chance_token") {
			v := math.NaN() // a language model has no chance level
			if x.unbounded() && strings.HasPrefix(h, "chance_") && get(h) != "" {
				return nil, rowErr(path, line, ": leave it empty", "%s is %q in a language model's row (it has bits per byte), which has no chance level", h, get(h))
			}
			if !(x.unbounded() && strings.HasPrefix(h, "chance_")) {
				if v, err = strconv.ParseFloat(get(h), 64); err != nil || !(v >= 0 && v <= 1) {
					return nil, bad(h, "a score in [0, 1]")
				}
			}
			switch h {
			case "chance_exact":
				x.ChanceExact = v
			case "chance_token":
				x.ChanceToken = v
			default:
				x.Scores[h] = v
			}
		}
		if x.LR, err = strconv.ParseFloat(get("lr"), 64); err != nil || !(x.LR > 0) || math.IsInf(x.LR, 0) {
			return nil, bad("lr", "a positive learning rate")
		}
		if err := checkRow(x); err != nil {
			return nil, rowErr(path, line, fixRow, "%w", err)
		}
		rows = append(rows, x)
		lines = append(lines, line)
	}
	if err := checkRuns(path, rows, lines); err != nil {
		return nil, err
	}
	return rows, nil
}

// checkNames refuses a row whose task, scheme or variant holds a control character, or whose
// task or scheme posformer does not register.
func checkNames(path string, line int, x Row) error {
	for i, v := range []string{x.Task, x.Scheme, x.Variant} {
		if strings.ContainsFunc(v, unicode.IsControl) {
			return rowErr(path, line, ": write the name without it (export the table again)", "%s %q holds a control character", []string{"task", "scheme", "variant"}[i], v)
		}
	}
	if tasks := data.Names(); x.Task != "" && !slices.Contains(tasks, x.Task) {
		return rowErr(path, line, fixRow, "task %q is not a task posformer has (%s)", x.Task, strings.Join(tasks, ", "))
	}
	if schemes := position.Kinds(); x.Scheme != "" && !slices.Contains(schemes, x.Scheme) {
		return rowErr(path, line, fixRow, "scheme %q is not a position scheme posformer has (%s)", x.Scheme, strings.Join(schemes, ", "))
	}
	return nil
}

// checkRuns refuses a table whose row repeats another's task, scheme, variant, seed, rate and
// length, or whose runs of one cell were tested at different lengths: either would move a
// cell's mean without a word. lines[i] is rows[i]'s line in path. Its work is linear in the
// rows: each run is found by its id, and a cell's runs are compared with the lengths all of
// them share rather than with one another.
func checkRuns(path string, rows []Row, lines []int) error {
	type run struct {
		runID
		line    int
		lengths map[int]bool
		row     int // its first row's index
	}
	type cellRuns struct {
		runs  []*run
		byID  map[runID]*run
		count map[int]int // per length, how many of the cell's runs have it
	}
	seen := map[rowKey]int{}
	cells := map[key]*cellRuns{}
	var order []key
	first := map[key]int{} // the first row of each cell
	for i, r := range rows {
		rk := r.rowKey()
		k, id := rk.key, rk.runID
		if j, ok := first[k]; !ok {
			first[k] = i
		} else if rows[j].unbounded() != r.unbounded() {
			return rowErr(path, lines[i], "; export the table again", "%s · %s has bits per byte at line %d but none here (or the reverse): a language model's rows all have them", r.Task, k, lines[j])
		}
		if first, ok := seen[rk]; ok {
			return rowErr(path, lines[i], ": a run is tested once at a length, so one of the two rows must go", "repeats line %d (%s · %s, seed %d, lr %g, length %d)",
				first, r.Task, k, r.Seed, r.LR, r.Length)
		}
		seen[rk] = lines[i]
		c := cells[k]
		if c == nil {
			c = &cellRuns{byID: map[runID]*run{}, count: map[int]int{}}
			cells[k] = c
			order = append(order, k)
		}
		ru := c.byID[id]
		if ru == nil {
			ru = &run{runID: id, line: lines[i], lengths: map[int]bool{}, row: i}
			c.byID[id] = ru
			c.runs = append(c.runs, ru)
		}
		if err := sameRun(rows[ru.row], r); err != nil { // one run's rows share its training
			return rowErr(path, lines[i], "; one run's rows share its training"+fixRow, "%s · %s, seed %d, lr %g: %w at line %d", r.Task, k, r.Seed, r.LR, err, ru.line)
		}
		if r0 := rows[c.runs[0].row]; r0.Steps != r.Steps {
			return rowErr(path, lines[i], ": the runs of a cell are averaged, so they must share their step budget; keep one budget per table (rows:), or export the table again", "%s · %s, seed %d: steps is %d, but %d for seed %d (line %d)", r.Task, k, r.Seed, r.Steps, r0.Steps, r0.Seed, c.runs[0].line)
		}
		ru.lengths[r.Length] = true
		c.count[r.Length]++
	}
	for _, k := range order {
		c := cells[k]
		for _, a := range c.runs {
			// a has a length some run lacks: name the first run (in order) that lacks one
			if !slices.ContainsFunc(slices.Sorted(maps.Keys(a.lengths)), func(L int) bool { return c.count[L] < len(c.runs) }) {
				continue
			}
			for _, b := range c.runs {
				for _, L := range slices.Sorted(maps.Keys(a.lengths)) {
					if !b.lengths[L] {
						return rowErr(path, b.line, ": the runs of a cell are averaged over the same lengths, so the row is missing", "%s · %s, seed %d, lr %g has no row at length %d, which seed %d, lr %g (line %d) has",
							k.Task, k, b.seed, b.lr, L, a.seed, a.lr, a.line)
					}
				}
			}
		}
	}
	return nil
}

// TableCSV renders rows in the table's columns (without the text tasks' columns when no row is a
// language model's, so that other tables keep their bits).
func TableCSV(rows []Row) []byte {
	cols := columns()
	if !slices.ContainsFunc(rows, Row.unbounded) {
		cols = cols[:len(cols)-len(metric.Unbounded())]
	}
	header := make([]string, len(cols))
	for i, c := range cols {
		header[i] = c.name
	}
	recs := make([][]string, len(rows))
	for i, r := range rows {
		for _, c := range cols {
			recs[i] = append(recs[i], c.write(r))
		}
	}
	return table.CSV(header, recs)
}

// key identifies what is compared across seeds: a task, a scheme and its variant.
type key struct{ Task, Scheme, Variant string }

func (k key) String() string {
	s := k.Scheme
	if k.Variant != "" {
		s += " (" + k.Variant + ")"
	}
	return s
}

// cell is the rows of one task, scheme and variant, for one metric.
type cell struct {
	key
	metric string
	rows   []Row
	byLen  map[int]*cell // the cell at each length (at), built once
}

// at is the cell's rows at length L alone: what a score per length reads, so that the scores at
// every length read each row once, not once per length.
func (c *cell) at(L int) *cell { return c.byLength()[L] }

// byLength is the cell at each of its lengths, built once.
func (c *cell) byLength() map[int]*cell {
	if c.byLen == nil {
		c.byLen = map[int]*cell{}
		for _, r := range c.rows {
			if c.byLen[r.Length] == nil {
				c.byLen[r.Length] = &cell{key: c.key, metric: c.metric}
			}
			c.byLen[r.Length].rows = append(c.byLen[r.Length].rows, r)
		}
	}
	return c.byLen
}

// runID tells runs of a cell apart: the seed and the learning rate.
type runID struct {
	seed uint64
	lr   float64
}

// rowKey identifies a row of a table: its cell, its run and its length.
type rowKey struct {
	key
	runID
	length int
}

func (r Row) rowKey() rowKey {
	return rowKey{key{r.Task, r.Scheme, r.Variant}, runID{r.Seed, r.LR}, r.Length}
}

// cellsOf groups rows by task, scheme and variant, keeping the first appearance's order.
func cellsOf(rows []Row, metric string) (map[key]*cell, []key) {
	out := map[key]*cell{}
	var order []key
	for _, r := range rows {
		k := r.rowKey().key
		if out[k] == nil {
			out[k] = &cell{key: k, metric: metric}
			order = append(order, k)
		}
		out[k].rows = append(out[k].rows, r)
	}
	return out, order
}

// scores is, per run (seed then rate, ascending), the mean score over the tested lengths in
// [lo, hi] (inRange: the training lengths instead), and the mean chance there (what guessing
// scores in the metric; NaN for a metric without a chance level).
func (c *cell) scores(lo, hi int, inRange bool) (scores []float64, chance float64) {
	scores, _, chance = c.runStats(lo, hi, inRange)
	return scores, chance
}

// runStats is scores with, per run, the sampling variance of its score (its floor): a score in
// a bounded metric is a mean over the lengths of fractions of each length's answers, so
// (1/m²)·Σ stats.BinomialVar(score at L, answers at L) over its m lengths (metric.AnswersPer); 0 in an
// unbounded metric.
func (c *cell) runStats(lo, hi int, inRange bool) (scores, floors []float64, chance float64) {
	type acc struct {
		s, ch, v float64
		n        int
	}
	m, _ := metric.Get(c.metric)
	byRun := map[runID]*acc{}
	var ids []runID
	for _, r := range c.rows {
		if inRange && !r.InRange || !inRange && (r.Length < lo || r.Length > hi) {
			continue
		}
		id := r.rowKey().runID
		if byRun[id] == nil {
			byRun[id] = &acc{}
			ids = append(ids, id)
		}
		ch := math.NaN()
		if m.Chance != nil {
			ch = m.Chance(metric.Guess{Exact: r.ChanceExact, Token: r.ChanceToken})
		}
		byRun[id].s += r.Scores[c.metric]
		byRun[id].ch += ch
		if m.Bounded() {
			byRun[id].v += metric.RunFloor(c.metric, r.Task, r.Length, r.N, r.Scores[c.metric])
		}
		byRun[id].n++
	}
	slices.SortFunc(ids, func(a, b runID) int { return cmp.Or(cmp.Compare(a.seed, b.seed), cmp.Compare(a.lr, b.lr)) })
	var chs float64
	for _, id := range ids {
		a := byRun[id]
		scores = append(scores, a.s/float64(a.n))
		floors = append(floors, a.v/float64(a.n*a.n))
		chs += a.ch / float64(a.n)
	}
	return scores, floors, chs / float64(max(len(ids), 1))
}

// diverged names the cell's runs that diverged ("seed 2 at step 130"), none when none did.
func (c *cell) diverged() []string {
	seen := map[runID]bool{}
	var out []string
	for _, r := range c.rows {
		if id := r.rowKey().runID; r.DivergedStep > 0 && !seen[id] {
			seen[id] = true
			out = append(out, fmt.Sprintf("seed %d at step %d", r.Seed, r.DivergedStep))
		}
	}
	return out
}

// rates lists the cell's learning rates, ascending, as printed.
func (c *cell) rates() []string {
	seen := map[float64]bool{}
	for _, r := range c.rows {
		seen[r.LR] = true
	}
	var out []string
	for _, lr := range slices.Sorted(maps.Keys(seen)) {
		out = append(out, strconv.FormatFloat(lr, 'g', -1, 64))
	}
	return out
}

// runs counts the cell's runs.
func (c *cell) runs() int {
	s, _ := c.scores(0, 0, true)
	return len(s)
}

// lengths lists the tested lengths, ascending.
func (c *cell) lengths() []int { return slices.Sorted(maps.Keys(c.byLength())) }

// trainRange is the cell's training lengths.
func (c *cell) trainRange() (lo, hi int) { return c.rows[0].MinLen, c.rows[0].MaxLen }

// extrapolatesTo is stats.ExtrapolatesTo over the cell's tested lengths, in its metric; 0 (none)
// for a metric without a chance level.
// The rule is stats.ExtrapolatesTo's, with the design's intervals (fixed n: each run's
// sampling floor counted, so that seeds scoring alike do not make a zero-width interval).
func (c *cell) extrapolatesTo(d design) int {
	if !hasChance(c.metric) {
		return 0 // no chance level to stay above
	}
	if !d.seq {
		return stats.ExtrapolatesTo(c.lengths(), func(L int) ([]float64, []float64, float64) { return c.at(L).runStats(L, L, false) })
	}
	best := 0 // the same rule with the sequential design's intervals
	for _, L := range c.lengths() {
		s, fl, ch := c.at(L).runStats(L, L, false)
		if ch+stats.ChanceMargin >= 1 {
			continue
		}
		if !d.aboveChance(s, fl, ch) {
			break
		}
		best = L
	}
	return best
}

// span is the range a statistic selects for this cell: [lo, hi], or in range.
func (c *cell) span(s Statistic) (lo, hi int, inRange bool) {
	switch {
	case s.InRange:
		return 0, 0, true
	case s.Lengths != "":
		lo, hi, _ = parseRange(s.Lengths)
		return lo, hi, false
	}
	_, L := c.trainRange()
	ls := c.lengths()
	hi = ls[len(ls)-1]
	if s.PastTraining > 0 {
		hi = int(s.PastTraining * float64(L))
	}
	return L + 1, hi, false
}

func meanOf(xs []float64) float64 {
	m, _ := stats.MeanVar(xs)
	return m
}

// cutShort says whether line is src's last line and src does not end in a newline: a file cut
// part-way through its last record.
func cutShort(src []byte, line int) bool {
	return len(src) > 0 && src[len(src)-1] != '\n' && bytes.Count(src, []byte("\n"))+1 == line
}

// fixRow is the fix of a row a table on disk can have corrected by hand.
const fixRow = ": correct the row, or export the table again"

// rowError is the per-seed table reader's refusal of one row: where it is (path, line), what is
// wrong, and the fix for a table on disk, with its separator ("" when there is none to say).
// checkExported reads it as data: a table being exported names the run instead, with its own fix.
type rowError struct {
	path      string
	line      int
	what, fix string
	err       error // a wrapped cause (checkRow's, sameRun's), or nil
}

func (e *rowError) Error() string { return fmt.Sprintf("%s:%d: %s%s", e.path, e.line, e.what, e.fix) }
func (e *rowError) Unwrap() error { return e.err }

// rowErr is a rowError whose what is format with a (one %w at most).
func rowErr(path string, line int, fix, format string, a ...any) error {
	w := fmt.Errorf(format, a...)
	return &rowError{path: path, line: line, what: w.Error(), fix: fix, err: errors.Unwrap(w)}
}
