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

	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/report"
)

// Judged is a claims file with its tables read and every claim judged.
type Judged struct {
	File   *File
	Tables map[string]*loaded
	Claims []*Outcome
	Follow []*FollowOutcome
}

// loaded is one table read.
type loaded struct {
	Table
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
}

// Comparison is one judged comparison, the opening table's row.
type Comparison struct {
	Text    string // "copy: none > rope"
	Paper   string // the paper's number, "–" without one
	Ours    string // ours: A − B [interval], or the shape's length
	Verdict string
	// detail columns
	A, B    *side
	Diff    stats.Interval
	gain    float64  // a family pair's A − B in the paper's statistic
	pairOf  key      // a family pair's A cell
	rivals  []*side  // an ahead_of_all claim's other cells
	changes []change // a change_from_training claim's lengths
}

// change is a change_from_training claim at one length: the cell's per-run scores there minus
// its scores at the training length, their mean with its interval, and the verdict.
type change struct {
	length  int
	score   float64   // the mean over runs of the score at length
	d       []float64 // per run (seed, then rate): score at length − score at the training length
	iv      stats.Interval
	verdict string
}

// side is one cell of a comparison with its numbers.
type side struct {
	name   string
	k      key
	scores []float64 // per run, in the claim's range
	in     []float64 // per run, in range
	chance float64
	paper  float64 // NaN without
	lo, hi int
	extrap int
	c      *cell
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
			rows, err = readTable(t.CSV, overlay)
		}
		if err != nil {
			cmd := "correct the file (no grid: exports it)"
			if t.Grid != "" {
				cmd = fmt.Sprintf("produce it with `go run ./cmd/train -config %s -jobs 2` then `go run ./cmd/train claims -export %s`", t.Grid, f.Path)
			}
			return nil, fmt.Errorf("%s: table %s: %w; %s", f.Path, t.Name, err, cmd)
		}
		if len(t.Rows) > 0 {
			var keep []Row
			for _, r := range rows {
				for _, sel := range t.Rows {
					if sel.matches(r) {
						keep = append(keep, r)
						break
					}
				}
			}
			rows = keep
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
	paper, err := readPaper(f)
	if err != nil {
		return nil, err
	}
	for i := range f.Claims {
		o, err := j.judge(&f.Claims[i], fmt.Sprintf("claims[%d]", i), paper, nil)
		if err != nil {
			return nil, err
		}
		j.Claims = append(j.Claims, o)
	}
	for i := range f.FollowUps {
		fo, err := j.followUp(&f.FollowUps[i], fmt.Sprintf("follow_ups[%d]", i), paper)
		if err != nil {
			return nil, err
		}
		j.Follow = append(j.Follow, fo)
	}
	return j, nil
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

// mean over [lo, hi] in length order (the same bits every time).
func (p paperNumbers) mean(task, name string, lo, hi int) float64 {
	byLen, ok := p[[2]string{task, name}]
	if !ok {
		return math.NaN()
	}
	var s float64
	n := 0
	for _, L := range slices.Sorted(maps.Keys(byLen)) {
		if L >= lo && L <= hi {
			s += byLen[L]
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return s / float64(n)
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
	for i, r := range recs[1:] {
		L, err1 := strconv.Atoi(r[col["length"]])
		x, err2 := strconv.ParseFloat(r[col[f.Paper.Column]], 64)
		if err1 != nil || err2 != nil || L < 1 || !(x >= 0 && (x <= 1 || lowerBetter(f.Statistic.Metric))) || math.IsInf(x, 0) {
			want := "a score in [0, 1]"
			if lowerBetter(f.Statistic.Metric) {
				want = "a number ≥ 0 in " + words(f.Statistic.Metric)
			}
			return nil, f.errAt("paper.numbers", "%s:%d: want a length ≥ 1 and %s, got %q and %q", f.Paper.Numbers, i+2, want, r[col["length"]], r[col[f.Paper.Column]])
		}
		k := [2]string{r[col["task"]], r[col["scheme"]]}
		if out[k] == nil {
			out[k] = map[int]float64{}
		}
		out[k][L] = x
	}
	return out, nil
}

// resolve finds a claim's cell in its table, checks it has at least 2 runs and that the range
// lies within its tested lengths, and computes its numbers.
func (j *Judged) resolve(c Cell, path string, t *loaded, st Statistic, paper paperNumbers, variant string, override bool) (*side, error) {
	f := j.File
	k := key{c.Task, c.Scheme, c.Variant}
	if override {
		k.Variant = variant
	}
	cl := t.cellsFor(st.Metric)[k]
	if cl == nil {
		return nil, noCell{f.errAt(path, "table %s has no cell %s · %s: name one of its cells (%s)", t.Name, k.Task, k, j.cellList(t, k.Task))}
	}
	if lm := slices.ContainsFunc(cl.rows, Row.lm); !hasChance(st.Metric) && !lm {
		return nil, f.errAt(path, "cell %s · %s of table %s has no %s (a language model's score, task lm): judge it in exact_match or token_accuracy", k.Task, k, t.Name, st.Metric)
	} else if hasChance(st.Metric) && lm {
		return nil, f.errAt(path, "cell %s · %s of table %s is a language model's (task lm): it has no %s; judge it in bits_per_byte or sliding_bits_per_byte", k.Task, k, t.Name, st.Metric)
	}
	if n := cl.runs(); n < 2 {
		return nil, f.errAt(path, "cell %s · %s of table %s has %d run: a verdict over seeds needs at least 2 (train more seeds in %s)", k.Task, k, t.Name, n, orWord(t.Grid, "its grid"))
	}
	lo, hi, inRange := cl.span(st)
	ls := cl.lengths()
	if !inRange {
		var tested []int
		for _, L := range ls {
			if L >= lo && L <= hi {
				tested = append(tested, L)
			}
		}
		if len(tested) == 0 || hi > ls[len(ls)-1] || lo < ls[0] {
			return nil, f.errAt(path, "the range %d..%d is outside the lengths table %s tested for %s · %s (%d..%d): give a range within them", lo, hi, t.Name, k.Task, k, ls[0], ls[len(ls)-1])
		}
	}
	s := &side{name: k.String(), k: k, lo: lo, hi: hi, c: cl, paper: math.NaN(), diverged: cl.diverged()}
	s.scores, s.chance = cl.scores(lo, hi, inRange)
	s.in, _ = cl.scores(0, 0, true)
	s.extrap = cl.extrapolatesTo()
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

// cellList names a table's cells of a task, for an error.
func (j *Judged) cellList(t *loaded, task string) string {
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

// judge judges one claim on its table (tableName overrides it for a follow-up's arm, variant
// for both sides when override).
// arm is where a follow-up re-judges a claim: another table, optionally another variant for
// every cell, only some comparisons; pairs whose cells the table lacks are skipped there.
type arm struct {
	table, variant string
	override       bool
	only           []string
}

func (j *Judged) judge(c *Claim, path string, paper paperNumbers, in *arm) (*Outcome, error) {
	st := j.File.Statistic.merged(c.Statistic)
	t := j.Tables[c.Table]
	variant, override := "", false
	if in != nil {
		t, variant, override = j.Tables[in.table], in.variant, in.override
	}
	o := &Outcome{Claim: c, Stat: st}
	skip := func(err error) bool { return in != nil && errors.Is(err, errNoCell) }
	wanted := func(text string) bool { return in == nil || len(in.only) == 0 || slices.Contains(in.only, text) }
	pair := func(a, b Cell, pa, pb string) (Comparison, bool, error) {
		A, err := j.resolve(a, pa, t, st, paper, variant, override)
		if err != nil {
			return Comparison{}, false, err
		}
		B, err := j.resolve(b, pb, t, st, paper, variant, override)
		if err != nil {
			return Comparison{}, false, err
		}
		cmp := j.compare(c, st, A, B)
		return cmp, wanted(cmp.Text), nil
	}
	switch c.Kind {
	case KindRanking, KindEquivalence:
		cmp, ok, err := pair(c.A, c.B, path+".a", path+".b")
		if skip(err) {
			break
		}
		if err != nil {
			return nil, err
		}
		if ok {
			o.Rows = append(o.Rows, cmp)
		}
	case KindPaperOrder:
		for i, a := range c.Cells {
			for k, b := range c.Cells {
				if i == k {
					continue
				}
				cmp, ok, err := pair(a, b, fmt.Sprintf("%s.cells[%d]", path, i), fmt.Sprintf("%s.cells[%d]", path, k))
				if skip(err) {
					continue
				}
				if err != nil {
					return nil, err
				}
				gap := cmp.A.paper - cmp.B.paper
				if !(gap > 0) || !ok {
					continue
				}
				if gap < c.MinGap {
					o.LeftOut = append(o.LeftOut, cmp)
				} else {
					o.Rows = append(o.Rows, cmp)
				}
			}
		}
	case KindShape:
		for i, x := range c.Cells {
			s, err := j.resolve(x, fmt.Sprintf("%s.cells[%d]", path, i), t, st, paper, variant, override)
			if err != nil {
				return nil, err
			}
			_, L := s.c.trainRange()
			v := shape(st.Metric, s.name, s.extrap, L, s.in, c.StaysAbove, c.FallsBy, st.Learned)
			if len(s.diverged) > 0 {
				v = fmt.Sprintf("%s (%s diverged: %s)", Untested, s.name, strings.Join(s.diverged, ", "))
			}
			k, rel := c.StaysAbove, "≥"
			if c.FallsBy > 0 {
				k, rel = c.FallsBy, "≤"
			}
			ours := fmt.Sprintf("%s (%s)", lengthOrDash(s.extrap), ratioOrDash(s.extrap, float64(s.extrap)/float64(L)))
			if d := divergedOf(s); d != "" {
				ours = d
			}
			o.Rows = append(o.Rows, Comparison{Text: fmt.Sprintf("%s: %s extrapolates to %s %g·%d", s.k.Task, s.name, rel, k, L), Paper: orWord(c.Paper, "–"),
				Ours: ours, Verdict: v, A: s})
		}
	case KindAheadOfAll:
		A, err := j.resolve(c.A, path+".a", t, st, paper, variant, override)
		if err != nil {
			return nil, err
		}
		var others []rival
		var sides []*side
		for _, k := range t.order {
			if k.Task != A.k.Task || k == A.k {
				continue
			}
			s, err := j.resolve(Cell{Task: k.Task, Scheme: k.Scheme, Variant: k.Variant, Written: writtenVariant}, path, t, st, paper, "", false)
			if err != nil {
				return nil, err
			}
			sides = append(sides, s)
			if !notLearned(st.Metric, meanOf(s.in), st.Learned) {
				others = append(others, rival{s.name, s.scores, s.in})
			}
		}
		v := aheadOfAll(st.Metric, A.name, A.scores, A.in, A.chance, st.Learned, others)
		for _, x := range append([]*side{A}, sides...) { // a rival that diverged leaves the claim untested too
			if len(x.diverged) > 0 {
				v = fmt.Sprintf("%s (%s diverged: %s)", Untested, x.name, strings.Join(x.diverged, ", "))
				break
			}
		}
		text := fmt.Sprintf("%s: %s ahead of every other cell that learned the task", A.k.Task, A.name)
		if c.Text != "" {
			text = c.Text
		}
		ours := fmtCI(A.scores)
		if d := divergedOf(A); d != "" {
			ours = d
		}
		o.Rows = append(o.Rows, Comparison{Text: text, Paper: orWord(c.Paper, "–"),
			Ours: ours, Verdict: v, A: A})
		o.Rows[0].rivals = sides
	case KindChange:
		A, err := j.resolve(c.A, path+".a", t, st, paper, variant, override)
		if err != nil {
			return nil, err
		}
		cmp, err := j.changeFromTraining(c, path, st, A)
		if err != nil {
			return nil, err
		}
		o.Rows = append(o.Rows, cmp)
	case KindFamily:
		where := strings.Split(c.Where, ",")
		cells := t.cellsFor(st.Metric)
		for _, k := range t.order {
			if !hasAll(k.Variant, where) || (c.A.Task != "" && k.Task != c.A.Task) {
				continue
			}
			plain := key{k.Task, k.Scheme, dropOptions(k.Variant, c.Drop)}
			if cells[plain] == nil {
				continue
			}
			cmp, ok, err := pair(Cell{Task: k.Task, Scheme: k.Scheme, Variant: k.Variant, Written: writtenVariant},
				Cell{Task: plain.Task, Scheme: plain.Scheme, Variant: plain.Variant, Written: writtenVariant}, path, path)
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
			cmp.pairOf = k
			o.Rows = append(o.Rows, cmp)
		}
		if len(o.Rows) == 0 && in == nil {
			return nil, j.File.errAt(path+".where", "no cell of table %s has the options %q with a twin without %v: name options its variants hold", t.Name, c.Where, c.Drop)
		}
		o.Headline = familyHeadline(c, st.Metric, o.Rows)
	}
	return o, nil
}

// changeFromTraining judges a change_from_training claim on its cell A: per run, the score at
// each tested length of the claim's range minus the score at the longest training length L,
// judged at each length (changeAt), then over the lengths (changeOverall).
func (j *Judged) changeFromTraining(c *Claim, path string, st Statistic, A *side) (Comparison, error) {
	f := j.File
	_, L := A.c.trainRange()
	ls := A.c.lengths()
	if !slices.Contains(ls, L) {
		return Comparison{}, f.errAt(path+".a", "cell %s · %s has no score at its training length %d, which a change from training is measured from: test it there (add %d to eval.lengths)", A.k.Task, A.k, L, L)
	}
	if A.lo <= L {
		return Comparison{}, f.errAt(path+".statistic", "the range %d..%d does not lie past the training length %d: give past_training: k or lengths from %d", A.lo, A.hi, L, L+1)
	}
	bound, rel := c.AtMost, "≤"
	if c.Written.Has("at_least") {
		bound, rel = c.AtLeast, "≥"
	}
	base, _ := A.c.scores(L, L, false)
	cmp := Comparison{A: A, Paper: orWord(c.Paper, "–")}
	var verdicts []string
	for _, x := range ls {
		if x < A.lo || x > A.hi {
			continue
		}
		at, _ := A.c.scores(x, x, false)
		ch := change{length: x, score: meanOf(at)}
		for i := range at {
			ch.d = append(ch.d, at[i]-base[i])
		}
		ch.iv, ch.verdict = changeAt(ch.d, bound, rel == "≤")
		cmp.changes = append(cmp.changes, ch)
		verdicts = append(verdicts, ch.verdict)
	}
	last := cmp.changes[len(cmp.changes)-1]
	cmp.Text = fmt.Sprintf("%s: %s, %s at each length %d..%d minus at %d %s %g", A.k.Task, A.name, words(st.Metric), cmp.changes[0].length, last.length, L, rel, bound)
	if c.Text != "" {
		cmp.Text = c.Text
	}
	cmp.Diff = last.iv
	cmp.Ours = fmt.Sprintf("%s at %d", fmtDiff(last.iv), last.length)
	cmp.Verdict = changeOverall(st.Metric, A.name, A.in, st.Learned, cmp.changes)
	if d := divergedOf(A); d != "" {
		cmp.Ours = d
		cmp.Verdict = fmt.Sprintf("%s (%s diverged: %s)", Untested, A.name, strings.Join(A.diverged, ", "))
	}
	return cmp, nil
}

// errNoCell marks an error of a cell its table lacks.
var errNoCell = errors.New("no such cell")

// noCell is the error of a cell its table lacks (errors.Is errNoCell).
type noCell struct{ error }

func (noCell) Is(target error) bool { return target == errNoCell }

// writtenVariant marks a generated cell's variant as given ("" is the plain scheme).
var writtenVariant = presence.Of("variant")

// familyHeadline is the headline comparison of a family's pairs.
func familyHeadline(c *Claim, metric string, rows []Comparison) *Comparison {
	var verdicts []string
	var gains, judged []float64 // every pair's gain; the gains of the pairs that could be judged
	count := map[string]int{}
	for _, r := range rows {
		verdicts = append(verdicts, r.Verdict)
		if !math.IsNaN(r.gain) { // a pair with a diverged side has no gain
			gains = append(gains, r.gain)
			if classOf(r.Verdict) != Untested {
				judged = append(judged, r.gain)
			}
		}
		count[classOf(r.Verdict)]++
	}
	text := c.Headline.Text
	if text == "" {
		text = c.Text
	}
	amount := func(g []float64) string { // a mean gain in the metric's units
		if !hasChance(metric) { // not a fraction: in the metric's own units
			return fmt.Sprintf("%+.3f %s", z(meanOf(g)), words(metric))
		}
		return fmt.Sprintf("%+.1f points", 100*meanOf(g))
	}
	pairs := func(n int, adj string) string { // "1 judged pair", "3 pairs"
		s := fmt.Sprintf("%d %s", n, strings.TrimPrefix(adj+" pair", " "))
		if n != 1 {
			s += "s"
		}
		return s
	}
	all := "all " + pairs(len(gains), "") // the pairs with a gain: a diverged pair has none
	if len(gains) < len(rows) {
		all = fmt.Sprintf("the %s that did not diverge", pairs(len(gains), ""))
	}
	var mean string
	switch {
	case len(gains) == 0 && len(rows) > 0:
		mean = "diverged (every pair has a side that diverged)"
	case len(judged) == 0 || len(judged) == len(gains): // none judged, or every pair: one mean
		mean = fmt.Sprintf("%s (mean over %s of A − B in the paper's statistic)", amount(gains), pairs(len(gains), ""))
	default: // the headline is the judged pairs' mean; the untested ones say nothing about the claim
		mean = fmt.Sprintf("%s (mean over the %s of A − B in the paper's statistic; %s over %s)",
			amount(judged), pairs(len(judged), "judged"), amount(gains), all)
	}
	return &Comparison{Text: text, Paper: orWord(c.Headline.Paper, "–"),
		Ours: fmt.Sprintf("%s; the pairs: %d reproduced, %d contradicted, %d inconclusive, %d untested",
			mean, count[Reproduced], count[Contradicted], count[Inconclusive], count[Untested]),
		Verdict: headline(metric, verdicts, judged)}
}

// compare judges one pair of sides by the claim's kind.
func (j *Judged) compare(c *Claim, st Statistic, A, B *side) Comparison {
	cmp := Comparison{A: A, B: B, Paper: "–"}
	if c.Kind == KindEquivalence {
		cmp.Diff, cmp.Verdict = equivalence(st.Metric, A.name, B.name, A.scores, B.scores, A.in, B.in, c.Margin, st.Learned)
		cmp.Text = fmt.Sprintf("%s: %s ≈ %s (±%g)", A.k.Task, A.name, B.name, c.Margin)
	} else {
		cmp.Diff, cmp.Verdict = rank(st.Metric, A.name, B.name, A.scores, B.scores, A.in, B.in, A.chance, st.Learned)
		cmp.Text = fmt.Sprintf("%s: %s > %s", A.k.Task, A.name, B.name)
	}
	if c.Kind == KindRanking && c.Text != "" {
		cmp.Text = c.Text
	}
	for _, x := range []*side{A, B} {
		if len(x.diverged) > 0 {
			cmp.Verdict = fmt.Sprintf("%s (%s diverged: %s)", Untested, x.name, strings.Join(x.diverged, ", "))
			break
		}
	}
	if !math.IsNaN(A.paper) && !math.IsNaN(B.paper) {
		cmp.Paper = fmt.Sprintf("%+.3f", z(A.paper-B.paper))
	}
	cmp.Ours = fmtDiff(cmp.Diff)
	cmp.gain = A.ours(st) - B.ours(st)
	if d := divergedOf(A, B); d != "" { // no number that depends on a diverged side
		cmp.Ours, cmp.gain = d, math.NaN()
	}
	return cmp
}

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

// hasAll: the variant holds every option.
func hasAll(variant string, opts []string) bool {
	parts := strings.Split(variant, ",")
	for _, o := range opts {
		if !slices.Contains(parts, strings.TrimSpace(o)) {
			return false
		}
	}
	return true
}

// dropOptions removes the options named (key=... parts) from a variant.
func dropOptions(variant string, names []string) string {
	var keep []string
	for _, p := range strings.Split(variant, ",") {
		k, _, _ := strings.Cut(p, "=")
		if p != "" && !slices.Contains(names, k) {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, ",")
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
			if len(fu.Only) == 0 || slices.Contains(fu.Only, r.Text) {
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
			// the family's pairs with the arm's in place: all of the claim's, not only fu.Only's
			merged := slices.Clone(j.Claims[i].Rows)
			for _, m := range mainRows[n] {
				r, ok := got[m.Text]
				if !ok {
					r = Comparison{}
				}
				rows = append(rows, r)
			}
			for x, m := range merged {
				if r, ok := got[m.Text]; ok {
					merged[x] = r
				}
			}
			if c.Kind == KindFamily {
				all = append(all, merged...)
			}
		}
		fo.Arms = append(fo.Arms, rows)
		if fu.Headline && len(all) > 0 {
			c := &j.File.Claims[byID[fu.Of[0]]]
			fo.Headline = append(fo.Headline, familyHeadline(c, j.File.Statistic.merged(c.Statistic).Metric, all))
		}
	}
	return fo, nil
}

func fmtCI(xs []float64) string {
	m, lo, hi := stats.MeanInterval(xs, report.Level)
	if len(xs) < 2 {
		return fmt.Sprintf("%.3f (1 run)", z(m))
	}
	return fmt.Sprintf("%.3f [%.3f, %.3f]", z(m), z(lo), z(hi))
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
	return fmt.Sprintf("%+.3f [%+.3f, %+.3f]", z(iv.Diff), z(iv.Lo), z(iv.Hi))
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
