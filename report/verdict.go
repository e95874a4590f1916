package report

import (
	"fmt"
	"math"
	"sort"

	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/train"
)

// LearnedThreshold is the in-range score (in the paper's metric) a cell must reach to be ranked:
// below it the cell has not learned the task, and its extrapolation says nothing. The other
// constants of the verdicts (train.Level, train.ChanceMargin) are the chance rule's, shared with
// the run report; docs/claims.md states them once (verdictRules).
const LearnedThreshold = 0.9

// Metric selects a score: exact match or token accuracy.
type Metric int

const (
	Exact Metric = iota
	Token
)

func (m Metric) String() string {
	if m == Token {
		return "token accuracy"
	}
	return "exact match"
}

func (m Metric) of(r SeedRow) (score, chance float64) {
	if m == Token {
		return r.Token, r.ChanceToken
	}
	return r.Exact, r.ChanceExact
}

// CellKey identifies what is compared across seeds: a task, a scheme and its variant.
type CellKey struct{ Task, Scheme, Variant string }

func (k CellKey) String() string {
	s := k.Scheme
	if k.Variant != "" {
		s += " (" + k.Variant + ")"
	}
	return s
}

// SeedCell is the per-seed rows of one cell, for one metric.
type SeedCell struct {
	Key    CellKey
	Metric Metric
	rows   []SeedRow
}

// Cells groups per-seed rows by task, scheme and variant, in the rows' order.
func Cells(rows []SeedRow, m Metric) map[CellKey]*SeedCell {
	out := map[CellKey]*SeedCell{}
	for _, r := range rows {
		k := CellKey{r.Task, r.Scheme, r.Variant}
		if out[k] == nil {
			out[k] = &SeedCell{Key: k, Metric: m}
		}
		out[k].rows = append(out[k].rows, r)
	}
	return out
}

// runID tells runs of a cell apart: the seed and the learning rate.
type runID struct {
	seed uint64
	lr   float64
}

// Scores is, per run (seed and learning rate, in that order), the mean score over the tested
// lengths in [lo, hi] (in range: lo = hi = 0 and inRange true), and the mean chance there.
func (c *SeedCell) Scores(lo, hi int, inRange bool) (scores []float64, chance float64) {
	type acc struct {
		s, ch float64
		n     int
	}
	byRun := map[runID]*acc{}
	var ids []runID
	for _, r := range c.rows {
		if inRange && !r.InRange || !inRange && (r.Length < lo || r.Length > hi) {
			continue
		}
		id := runID{r.Seed, r.LR}
		if byRun[id] == nil {
			byRun[id] = &acc{}
			ids = append(ids, id)
		}
		s, ch := c.Metric.of(r)
		byRun[id].s += s
		byRun[id].ch += ch
		byRun[id].n++
	}
	sort.Slice(ids, func(i, j int) bool {
		if ids[i].seed != ids[j].seed {
			return ids[i].seed < ids[j].seed
		}
		return ids[i].lr < ids[j].lr
	})
	var chs float64
	for _, id := range ids {
		a := byRun[id]
		scores = append(scores, a.s/float64(a.n))
		chs += a.ch / float64(a.n)
	}
	return scores, chs / float64(max(len(ids), 1))
}

// Lengths lists the tested lengths, ascending.
func (c *SeedCell) Lengths() []int {
	seen := map[int]bool{}
	var ls []int
	for _, r := range c.rows {
		if !seen[r.Length] {
			seen[r.Length] = true
			ls = append(ls, r.Length)
		}
	}
	sort.Ints(ls)
	return ls
}

// TrainRange is the cell's training lengths.
func (c *SeedCell) TrainRange() (lo, hi int) { return c.rows[0].MinLen, c.rows[0].MaxLen }

// ExtrapolatesTo is train.ExtrapolatesTo over the cell's tested lengths, in its metric: the
// longest length up to which the score is clearly above chance at every tested length.
func (c *SeedCell) ExtrapolatesTo() int {
	return train.ExtrapolatesTo(c.Lengths(), func(L int) ([]float64, float64) { return c.Scores(L, L, false) })
}

// Ranking is the verdict on a claim "A > B" over a range of lengths.
type Ranking struct {
	Diff    stats.Interval // mean(A) − mean(B) with its Welch interval
	Verdict string
}

// Rank judges "A > B" from the two cells' per-run scores in the range (a, b, with the mean
// chance there) and in range (inA, inB), by the rules of verdictRules: untested when either has
// not learned the task in range; inconclusive (chance) when both are within noise of chance;
// reproduced when the 95% Welch interval of mean(A) − mean(B) lies above 0, contradicted when it
// lies below; inconclusive otherwise (one run each included).
func Rank(nameA, nameB string, a, b, inA, inB []float64, chance float64) Ranking {
	r := Ranking{Diff: stats.Welch(a, b, train.Level)}
	ma, _ := stats.MeanVar(inA)
	mb, _ := stats.MeanVar(inB)
	switch {
	case len(a) == 0 || len(b) == 0:
		r.Verdict = "untested (no runs)"
	case ma < LearnedThreshold:
		r.Verdict = fmt.Sprintf("untested (%s not learned in range: %.3f)", nameA, ma)
	case mb < LearnedThreshold:
		r.Verdict = fmt.Sprintf("untested (%s not learned in range: %.3f)", nameB, mb)
	case train.AtChance(a, chance) && train.AtChance(b, chance):
		r.Verdict = "inconclusive (chance)"
	case math.IsNaN(r.Diff.Lo):
		r.Verdict = "inconclusive (one seed)"
	case r.Diff.Lo > 0:
		r.Verdict = "reproduced"
	case r.Diff.Hi < 0:
		r.Verdict = "contradicted"
	default:
		r.Verdict = "inconclusive"
	}
	return r
}

// verdictRules is the paragraph that states the rules once, in docs/claims.md.
func verdictRules() string {
	return fmt.Sprintf("**How verdicts are reached** (report/verdict.go, train/chance.go). Scores are compared over seeds: for a claim \"A > B\", "+
		"Welch's t interval (%.0f%%) of mean(A) − mean(B) over seeds (internal/stats). The claim is *reproduced* when the interval lies above 0, "+
		"*contradicted* when it lies below 0, and *inconclusive* otherwise (with three seeds only large gaps pass). "+
		"*Chance* is what guessing scores: per output token 1/k for k possible values, exact match (1/k)^n for an n-token answer; "+
		"a score is *within noise of chance* when the upper end of the %.0f%% interval of its mean over seeds is at most chance + %.2f, "+
		"and *clearly above chance* when the lower end exceeds chance + %.2f. When both sides of a ranking are within noise of chance the verdict is "+
		"*inconclusive (chance)*. A cell whose mean in-range score (in the paper's metric) is below %.2f has not learned the task and is not ranked: "+
		"*untested*. *Extrapolates to* is the longest tested length up to which the score stays clearly above chance at every tested length. "+
		"Each claim is judged on its own at 95%%, without a correction for the many claims of a table: where the two sides do not differ, "+
		"about one claim in twenty still reads *reproduced* or *contradicted* by chance alone. Seeds whose scores do not vary at all give a zero-width interval.\n\n",
		train.Level*100, train.Level*100, train.ChanceMargin, train.ChanceMargin, LearnedThreshold)
}
