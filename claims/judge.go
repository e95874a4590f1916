package claims

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/metric"
)

// Judged is a claims file with its tables read and every claim judged.
type Judged struct {
	File   *File
	Tables map[string]*loaded
	Claims []*Outcome
	Follow []*FollowOutcome
	// seq: the tables are a look of the file's sequential design (replay.go): its claims are
	// judged with the design's intervals.
	seq bool
}

// loaded is one table read.
type loaded struct {
	Table
	d     design // the design its cells' summary is judged in
	rows  []Row
	cells map[string]map[key]*cell // by metric
	order []key
	// twice names the runs two tables of a union hold (counted once); choices are the rates
	// Choose picked.
	twice   []string
	choices []rateChoice
}

func (t *loaded) cellsFor(metric string) map[key]*cell {
	if t.cells[metric] == nil {
		t.cells[metric], t.order = cellsOf(t.rows, metric)
	}
	return t.cells[metric]
}

// Outcome is one claim judged: its comparisons (a ranking has one, a family one per pair),
// those a threshold left out, and a family's headline.
type Outcome struct {
	Claim    *Claim
	Stat     Statistic
	Rows     []Comparison
	LeftOut  []Comparison
	Headline *Comparison
	// Seq is how a sequential design reached the outcome (nil with a fixed n).
	Seq *Stopped
}

// Comparison is one judged comparison, the opening table's row.
type Comparison struct {
	Text    string // "copy: none > rope"
	Paper   string // the paper's number, "–" without one
	Ours    string // ours: A − B [interval], or the shape's length
	Verdict string
	// detail columns
	A, B *side
	gain float64 // a family pair's A − B in the paper's statistic
	more any     // the kind's own numbers for its detail
	// decides tells whether an interval of A − B decides the comparison (a sequential design's
	// estimate of the seeds it needs); nil for a comparison without one.
	decides func(stats.Bounds) bool
}

// side is one cell of a comparison with its numbers.
type side struct {
	name   string
	k      key
	scores []float64 // per run, in the claim's range
	in     []float64 // per run, in range
	// floors and inFloors are the runs' sampling variances there (cell.runStats)
	floors, inFloors []float64
	d                design // how its intervals are computed
	metric           string
	chance           float64
	paper            float64 // NaN without
	lo, hi           int
	extrap           int
	c                *cell
	// diverged names the runs that diverged: their scores are no result, the side is untested.
	diverged []string
}

// FollowOutcome is a follow-up judged: per arm, the re-judged comparisons of its claims.
type FollowOutcome struct {
	FollowUp *FollowUp
	Main     []Comparison   // the claims' comparisons in their own table
	Arms     [][]Comparison // aligned with Main, per arm (nil where the arm lacks the cells)
	Headline []*Comparison  // per arm, with Headline set: the family headline with the arm's pairs in place
}

// Judge reads a claims file's tables and judges every claim. Bad input (a cell its table lacks,
// a range outside the tested lengths, fewer than 2 runs, a table with wrong columns) is an error
// naming the key and the fix.
// Tables about to be written are read from overlay (by path) instead of the disk.
func Judge(f *File, overlay map[string][]byte) (*Judged, error) {
	j := &Judged{File: f, Tables: map[string]*loaded{}}
	for ti, t := range f.Tables {
		var rows []Row
		var twice []string
		var err error
		path := fmt.Sprintf("tables[%d]", ti)
		if len(t.Union) > 0 {
			if rows, twice, err = unionRows(f, path, t, j.Tables); err != nil {
				return nil, err
			}
		}
		if t.CSV != "" {
			if rows, err = readTable(t.CSV, overlay); err == nil && t.Grid != "" {
				err = checkChance(t.CSV, t.Grid, rows)
			}
		}
		if err != nil {
			cmd := "correct the file (no grid: exports it)"
			if t.Grid != "" {
				cmd = fmt.Sprintf("produce it with `go run ./cmd/train -config %s -jobs 2` then `go run ./cmd/train claims -export %s`", t.Grid, f.Path)
			}
			return nil, fmt.Errorf("%s: table %s: %w; %s", f.Path, t.Name, err, cmd)
		}
		for k, c := range t.Rows {
			if !slices.ContainsFunc(rows, c.matches) {
				all := &loaded{rows: rows, cells: map[string]map[key]*cell{}}
				all.cellsFor(f.Statistic.Metric)
				return nil, f.errAt(fmt.Sprintf("%s.rows[%d]", path, k), "matches no row of table %s: name a cell it holds (%s), or remove it", t.Name, all.cellList(""))
			}
		}
		if len(t.Rows) > 0 {
			rows = slices.DeleteFunc(rows, func(r Row) bool { return !slices.ContainsFunc(t.Rows, func(c Cell) bool { return c.matches(r) }) })
		}
		if len(rows) == 0 {
			return nil, f.errAt(path, "table %s holds no rows (rows: keeps none): choose rows its sources hold", t.Name)
		}
		var choices []rateChoice
		if t.chooses() {
			if rows, choices, err = choose(f, path, t, rows, f.Statistic); err != nil {
				return nil, err
			}
		}
		j.Tables[t.Name] = &loaded{Table: t, rows: rows, cells: map[string]map[key]*cell{}, twice: twice, choices: choices}
	}
	for i, fu := range f.FollowUps {
		for k, a := range fu.Arms {
			if a.Written.Has("variant") && !slices.ContainsFunc(j.Tables[a.Table].rows, func(r Row) bool { return r.Variant == a.Variant }) {
				return nil, f.errAt(fmt.Sprintf("follow_ups[%d].arms[%d].variant", i, k), "no row of table %s has the variant %q: name one its rows hold (%s)", a.Table, a.Variant, j.Tables[a.Table].variants())
			}
		}
	}
	for _, t := range j.Tables {
		t.d = fixedN // the per-cell summary describes the seeds held, with the fixed-n rule
	}
	if f.Sequential.On() {
		return j.replay()
	}
	return j, j.judgeAll()
}

// judgeAll judges every claim and follow-up of the file on the tables loaded.
func (j *Judged) judgeAll() error {
	f := j.File
	paper, err := readPaper(f)
	if err != nil {
		return err
	}
	for i := range f.Claims {
		o, err := j.judge(&f.Claims[i], fmt.Sprintf("claims[%d]", i), paper, nil)
		if err != nil {
			return err
		}
		j.Claims = append(j.Claims, o)
	}
	for i := range f.FollowUps {
		fo, err := j.followUp(&f.FollowUps[i], fmt.Sprintf("follow_ups[%d]", i), paper)
		if err != nil {
			return err
		}
		j.Follow = append(j.Follow, fo)
	}
	return nil
}

func orWord(s, w string) string {
	if s == "" {
		return w
	}
	return s
}

// matches: a row of the cell (task, scheme, variant; an lr when written).
func (c Cell) matches(r Row) bool {
	return (c.Task == "" || c.Task == r.Task) && (c.Scheme == "" || c.Scheme == r.Scheme) &&
		(!c.Written.Has("variant") || c.Variant == r.Variant) && (c.LR == 0 || c.LR == r.LR)
}

// paperNumbers are the paper's values by (task, paper name), per length.
type paperNumbers map[[2]string]map[int]float64

// mean over [lo, hi] in length order (the same bits every time); NaN without a number there.
func (p paperNumbers) mean(task, name string, lo, hi int) float64 {
	var xs []float64
	byLen := p[[2]string{task, name}]
	for _, L := range slices.Sorted(maps.Keys(byLen)) {
		if L >= lo && L <= hi {
			xs = append(xs, byLen[L])
		}
	}
	return meanOf(xs)
}

// readPaper reads the paper's numbers CSV (columns task, scheme, length and the value column).
func readPaper(f *File) (paperNumbers, error) {
	out := paperNumbers{}
	if f.Paper.Numbers == "" {
		return out, nil
	}
	src, err := readRegular(f.Paper.Numbers)
	if err != nil {
		return nil, f.errAt("paper.numbers", "%v", err)
	}
	recs, err := csv.NewReader(bytes.NewReader(src)).ReadAll()
	if err != nil || len(recs) < 2 {
		return nil, f.errAt("paper.numbers", "%s is not a CSV with a header and rows (%v)", f.Paper.Numbers, err)
	}
	if err := checkCSV(f.Paper.Numbers, src, recs, nil, nil); err != nil {
		return nil, f.errAt("paper.numbers", "%v", err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, h := range []string{"task", "scheme", "length", f.Paper.Column} {
		if _, ok := col[h]; !ok {
			return nil, f.errAt("paper.numbers", "%s has no column %q (its columns: %s): the paper's numbers need task, scheme, length and the value column (paper.column, default value)",
				f.Paper.Numbers, h, strings.Join(recs[0], ","))
		}
	}
	lines := map[[2]string]map[int]int{} // where each number was read
	for i, r := range recs[1:] {
		L, err1 := strconv.Atoi(r[col["length"]])
		x, err2 := strconv.ParseFloat(r[col[f.Paper.Column]], 64)
		if err1 != nil || err2 != nil || L < 1 || !(x >= 0 && (x <= 1 || lowerBetter(f.Statistic.Metric))) || math.IsInf(x, 0) {
			want := "a score in [0, 1]"
			if lowerBetter(f.Statistic.Metric) {
				want = "a number ≥ 0 in " + metric.Words(f.Statistic.Metric)
			}
			return nil, f.errAt("paper.numbers", "%s:%d: want a length ≥ 1 and %s, got %q and %q", f.Paper.Numbers, i+2, want, r[col["length"]], r[col[f.Paper.Column]])
		}
		k := [2]string{r[col["task"]], r[col["scheme"]]}
		if out[k] == nil {
			out[k] = map[int]float64{}
		}
		if y, seen := out[k][L]; seen && y != x {
			return nil, f.errAt("paper.numbers", "%s:%d: %s · %s at length %d is %g here and %g on line %d: keep the paper's one number", f.Paper.Numbers, i+2, k[0], k[1], L, x, y, lines[k][L])
		}
		out[k][L] = x
		if lines[k] == nil {
			lines[k] = map[int]int{}
		}
		lines[k][L] = i + 2
	}
	return out, nil
}

// side finds a claim's cell in its table (in a follow-up's arm that gives a variant, the arm's
// variant of its scheme), checks it has at least 2 runs and that the range lies within its
// tested lengths, and computes its numbers.
func (x *judging) side(c Cell, path string) (*side, error) {
	f, t, st, paper := x.File, x.t, x.st, x.paper
	k := key{c.Task, c.Scheme, c.Variant}
	if x.in != nil && x.in.override {
		k.Variant = x.in.variant
	}
	cl := t.cellsFor(st.Metric)[k]
	if cl == nil {
		return nil, noCell{f.errAt(path, "table %s has no cell %s · %s: name one of its cells (%s)", t.Name, k.Task, k, t.cellList(k.Task))}
	}
	// a cell's rows have the unbounded metrics' scores (no chance level) or the others' alone
	if un := slices.ContainsFunc(cl.rows, Row.unbounded); !un && !hasChance(st.Metric) {
		return nil, f.errAt(path, "cell %s · %s of table %s has no %s (a language model's score, task lm): judge it in %s", k.Task, k, t.Name, st.Metric, metric.Names(metric.Scored(), "or"))
	} else if un && hasChance(st.Metric) {
		return nil, f.errAt(path, "cell %s · %s of table %s is a language model's (task lm): it has no %s; judge it in %s", k.Task, k, t.Name, st.Metric, metric.Names(metric.Unbounded(), "or"))
	}
	if lrs := cl.rates(); len(lrs) > 1 {
		return nil, f.errAt(path, "cell %s · %s of table %s mixes learning rates (%s): a claim compares one protocol a cell; keep one rate with the table's rows: (a cell with lr:) or choose:", k.Task, k, t.Name, strings.Join(lrs, ", "))
	}
	if n := cl.runs(); n < 2 {
		return nil, f.errAt(path, "cell %s · %s of table %s has %d run: a verdict over seeds needs at least 2 (train more seeds in %s)", k.Task, k, t.Name, n, orWord(t.Grid, "its grid"))
	}
	lo, hi, inRange := cl.span(st)
	ls := cl.lengths()
	if _, L := cl.trainRange(); !inRange && st.Lengths == "" && st.PastTraining > 0 {
		switch kL := st.PastTraining * float64(L); {
		case kL < float64(L+1):
			return nil, f.errAt(x.statPath("past_training"), "%g·L is %g with L = %d (the longest training length of %s · %s): no whole length past L: give k ≥ %g, or 0 for every tested length past L",
				st.PastTraining, kL, L, k.Task, k, float64(L+1)/float64(L))
		case kL > float64(ls[len(ls)-1]) && kL > math.MaxInt32:
			return nil, f.errAt(x.statPath("past_training"), "%g·L is %g with L = %d (the longest training length of %s · %s), past any length a table tests: give k with k·L within its tested lengths (%d..%d)",
				st.PastTraining, kL, L, k.Task, k, ls[0], ls[len(ls)-1])
		}
	}
	if !inRange {
		if !slices.ContainsFunc(ls, func(L int) bool { return L >= lo && L <= hi }) || hi > ls[len(ls)-1] || lo < ls[0] {
			return nil, f.errAt(path, "the range %d..%d is outside the lengths table %s tested for %s · %s (%d..%d): give a range within them", lo, hi, t.Name, k.Task, k, ls[0], ls[len(ls)-1])
		}
	}
	s := &side{name: k.String(), k: k, lo: lo, hi: hi, c: cl, paper: math.NaN(), diverged: cl.diverged(), d: x.design(), metric: st.Metric}
	s.scores, s.floors, s.chance = cl.runStats(lo, hi, inRange)
	s.in, s.inFloors, _ = cl.runStats(0, 0, true)
	s.extrap = cl.extrapolatesTo(s.d)
	switch {
	case c.Written.Has("paper_value"):
		s.paper = c.PaperValue
	case c.Paper != "":
		if _, ok := paper[[2]string{c.Task, c.Paper}]; !ok {
			return nil, f.errAt(path+".paper", "the paper's numbers (%s) have no %s · %s: name a scheme of that file", f.Paper.Numbers, c.Task, c.Paper)
		}
		s.paper = paper.mean(c.Task, c.Paper, lo, hi)
		s.name = c.Paper
	}
	return s, nil
}

// variants lists a table's variants, quoted, for an error.
func (t *loaded) variants() string {
	var vs []string
	for _, r := range t.rows {
		if v := strconv.Quote(r.Variant); !slices.Contains(vs, v) {
			vs = append(vs, v)
		}
	}
	return strings.Join(vs, ", ")
}

// statPath is the path of a key of the statistic the claim judges by: the claim's own
// statistic's when it gives a range, else the file's.
func (x *judging) statPath(key string) string {
	for i := range x.File.Claims {
		if &x.File.Claims[i] == x.c && x.c.Statistic.ranged() {
			return fmt.Sprintf("claims[%d].statistic.%s", i, key)
		}
	}
	return "statistic." + key
}

// cellList names a table's cells of a task, for an error.
func (t *loaded) cellList(task string) string {
	var ns []string
	for _, k := range t.order {
		if k.Task == task || task == "" {
			ns = append(ns, k.Task+" · "+k.String())
		}
	}
	if len(ns) == 0 {
		return "none of task " + task
	}
	return strings.Join(ns, "; ")
}

// ours is a side's number in the statistic's own sense: mean over seeds or best over runs (the
// highest, or the lowest when lower is better).
func (s *side) ours(st Statistic) float64 {
	if st.Ours == "best" {
		return best(st.Metric, s.scores)
	}
	return meanOf(s.scores)
}

// judge judges one claim on its table, or on a follow-up's arm (in).
func (j *Judged) judge(c *Claim, path string, paper paperNumbers, in *arm) (*Outcome, error) {
	x := &judging{Judged: j, c: c, path: path, st: j.File.Statistic.merged(c.Statistic), t: j.Tables[c.Table], paper: paper, in: in}
	if in != nil {
		x.t = j.Tables[in.table]
	}
	o := &Outcome{Claim: c, Stat: x.st}
	if err := c.kind.judge(x, o); err != nil {
		return nil, err
	}
	return o, nil
}

// errNoCell marks an error of a cell its table lacks.
var errNoCell = errors.New("no such cell")

// noCell is the error of a cell its table lacks (errors.Is errNoCell).
type noCell struct{ error }

func (noCell) Is(target error) bool { return target == errNoCell }

// divergedOf is what a number that depends on these sides shows when one of them diverged,
// "diverged (seed 2 at step 130)" (the first such side's runs), or "" when none did.
func divergedOf(sides ...*side) string {
	for _, s := range sides {
		if s != nil && len(s.diverged) > 0 {
			return fmt.Sprintf("diverged (%s)", strings.Join(s.diverged, ", "))
		}
	}
	return ""
}

// headliner is a kind with a headline over its comparisons (a family): a follow-up with headline:
// true computes it again with an arm's comparisons in place.
type headliner interface {
	headline(c *Claim, metric string, rows []Comparison) *Comparison
}

// followUp re-judges the follow-up's claims on each arm.
func (j *Judged) followUp(fu *FollowUp, path string, paper paperNumbers) (*FollowOutcome, error) {
	fo := &FollowOutcome{FollowUp: fu}
	byID := map[string]int{}
	for i, c := range j.File.Claims {
		byID[c.ID] = i
	}
	var mainRows [][]Comparison
	for _, id := range fu.Of {
		var rows []Comparison
		for _, r := range j.Claims[byID[id]].Rows {
			if r.A != nil && (len(fu.Only) == 0 || slices.Contains(fu.Only, r.Text)) { // a row without sides re-judges nothing
				rows = append(rows, r)
			}
		}
		mainRows = append(mainRows, rows)
		fo.Main = append(fo.Main, rows...)
	}
	if len(fo.Main) == 0 {
		return nil, j.File.errAt(path+".only", "no comparison of the claims %v has these texts: give texts as the opening table prints them", fu.Of)
	}
	for ai, a := range fu.Arms {
		var rows []Comparison
		var all []Comparison // the family's pairs with the arm's in place
		var head func([]Comparison) *Comparison
		for n, id := range fu.Of {
			i := byID[id]
			c := &j.File.Claims[i]
			o, err := j.judge(c, fmt.Sprintf("%s.arms[%d]", path, ai), paper, &arm{a.Table, a.Variant, a.Written.Has("variant"), fu.Only})
			if err != nil {
				return nil, err
			}
			// align with the main comparisons: by text, absent ones left empty
			got := map[string]Comparison{}
			for _, r := range o.Rows {
				got[r.Text] = r
			}
			for _, m := range mainRows[n] {
				rows = append(rows, got[m.Text])
			}
			// the family's pairs with the arm's in place: all of the claim's, not only fu.Only's
			merged := slices.Clone(j.Claims[i].Rows)
			for x, m := range merged {
				if r, ok := got[m.Text]; ok {
					merged[x] = r
				}
			}
			if h, ok := c.kind.(headliner); ok {
				all = append(all, merged...)
				if head == nil {
					head = func(rows []Comparison) *Comparison {
						return h.headline(c, j.File.Statistic.merged(c.Statistic).Metric, rows)
					}
				}
			}
		}
		fo.Arms = append(fo.Arms, rows)
		if fu.Headline && len(all) > 0 {
			fo.Headline = append(fo.Headline, head(all))
		}
	}
	return fo, nil
}

// fmtCI is a mean over runs with its interval in the design (xs the runs' scores in the
// metric, fs their sampling floors).
func fmtCI(d design, metric string, xs, fs []float64) string {
	m, lo, hi := d.scoreMean(metric, xs, fs)
	if len(xs) < 2 {
		return fmt.Sprintf("%.3f (1 run)", z(m))
	}
	if math.IsNaN(lo) {
		return fmt.Sprintf("%.3f (no spread)", z(m))
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", z(m), z(lo), z(hi))
}

// ci is fmtCI of the side's scores in its range; inCI in range.
func (s *side) ci() string   { return fmtCI(s.d, s.metric, s.scores, s.floors) }
func (s *side) inCI() string { return fmtCI(s.d, s.metric, s.in, s.inFloors) }

// cellCI is fmtCI of a cell's scores over [lo, hi] (or in range).
func cellCI(d design, c *cell, lo, hi int, inRange bool) string {
	xs, fs, _ := c.runStats(lo, hi, inRange)
	return fmtCI(d, c.metric, xs, fs)
}

// z is x, or 0 when x rounds to zero at three decimals, so that it prints as 0.000 (+0.000),
// never -0.000.
func z(x float64) float64 {
	if math.Abs(x) < 0.0005 {
		return 0
	}
	return x
}

func fmtDiff(iv stats.Interval) string {
	if math.IsNaN(iv.Lo) {
		return fmt.Sprintf("%+.3f", z(iv.Diff))
	}
	return fmt.Sprintf("%+.3f [%s, %s]", z(iv.Diff), bound(iv.Lo), bound(iv.Hi))
}

// bound prints an end of a difference's interval: at three decimals, or, when it is not zero but
// rounds to zero there, with two digits and its exponent (+2.1e-04), so that the side of zero a
// decision rests on shows.
func bound(x float64) string {
	if x != 0 && math.Abs(x) < 0.0005 {
		return fmt.Sprintf("%+.1e", x)
	}
	return fmt.Sprintf("%+.3f", z(x))
}

func lengthOrDash(x int) string {
	if x == 0 {
		return "–"
	}
	return strconv.Itoa(x)
}

func ratioOrDash(x int, ratio float64) string {
	if x == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", ratio)
}

// docName is the document a claims file writes: docs/claims/<name>.md beside the file.
func docName(f *File) string { return filepath.Join(filepath.Dir(f.Path), f.Name+".md") }
