package claims

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/internal/table"
	"github.com/posformer/posformer/metric"
)

// A change_from_training claim: a cell against itself, its score at each length past training
// minus its score at the training length, at most (or at least) a bound.
func init() {
	register(kindDef{name: "change_from_training", place: 70, ownPaper: true, new: func() Kind { return &changeKind{} },
		rule: "**Change from training** (at_most m, or at_least m): a cell against itself. Per run, its score at each tested length past the longest training length L minus its own score at L; at each length the interval of the mean of these changes over runs (its sampling floor the two scores' floors added; within [−1, 1] for a score in [0, 1]). At a length, at most m is *reproduced* when the interval lies below m, *contradicted* when it lies above m, *inconclusive* otherwise (at least m: the other way round). Over the lengths: *contradicted* when a length is, *reproduced* when every length is, *inconclusive* otherwise; *untested* when the cell did not learn in range."})
}

type changeKind struct {
	A Cell `yaml:"a"`
	// AtMost and AtLeast bound, per run, A's score at each length past training minus its score
	// at the longest training length, in the metric's units (one of them is written).
	AtMost  float64 `yaml:"at_most"`
	AtLeast float64 `yaml:"at_least"`

	Written presence.Keys `yaml:"-"`
}

func (k *changeKind) check(f *File, c *Claim, p string) error {
	if err := needCells(f, p, "task: lm, scheme: alibi", k.A); err != nil {
		return err
	}
	if k.Written.Has("at_most") == k.Written.Has("at_least") {
		return f.errAt(p, "give one of at_most: m and at_least: m (the bound on the score at each length past training minus the score at the training length, e.g. at_most: 0)")
	}
	m, bound := f.Statistic.merged(c.Statistic).Metric, "at_most"
	if k.Written.Has("at_least") {
		bound = "at_least"
	}
	if err := within(f, p+"."+bound, k.AtMost+k.AtLeast, -spread(m), spread(m), false, "a change in "+metric.Words(m)); err != nil {
		return err
	}
	if st := f.Statistic.merged(c.Statistic); st.InRange {
		return f.errAt(p+".statistic", "in_range: a change from training compares lengths past the training length: give past_training: k or lengths: \"lo..hi\"")
	}
	return nil
}

// change is the claim at one length: the cell's per-run scores there minus its scores at the
// training length, their mean with its interval, and the verdict.
type change struct {
	length  int
	score   float64   // the mean over runs of the score at length
	d       []float64 // per run (seed, then rate): score at length − score at the training length
	iv      stats.Interval
	verdict string
}

// judge judges the claim on its cell A: per run, the score at each tested length of the claim's
// range minus the score at the longest training length L, judged at each length (changeAt), then
// over the lengths (changeOverall).
func (k *changeKind) judge(x *judging, o *Outcome) error {
	A, err := x.side(k.A, x.path+".a")
	if err != nil {
		return err
	}
	_, L := A.c.trainRange()
	ls := A.c.lengths()
	if !slices.Contains(ls, L) {
		return x.File.errAt(x.path+".a", "cell %s · %s has no score at its training length %d, which a change from training is measured from: test it there (add %d to eval.lengths)", A.k.Task, A.k, L, L)
	}
	if A.lo <= L {
		return x.File.errAt(x.path+".statistic", "the range %d..%d does not lie past the training length %d: give past_training: k or lengths from %d", A.lo, A.hi, L, L+1)
	}
	bound, rel := k.AtMost, "≤"
	if k.Written.Has("at_least") {
		bound, rel = k.AtLeast, "≥"
	}
	base, baseFl, _ := A.c.at(L).runStats(L, L, false)
	var changes []change
	for _, n := range ls {
		if n < A.lo || n > A.hi {
			continue
		}
		at, atFl, _ := A.c.at(n).runStats(n, n, false)
		ch := change{length: n, score: meanOf(at)}
		var fl []float64 // a change's sampling variance: its two scores'
		for i := range at {
			ch.d = append(ch.d, at[i]-base[i])
			fl = append(fl, atFl[i]+baseFl[i])
		}
		ch.iv, ch.verdict = changeAt(A.d, x.st.Metric, ch.d, fl, bound, rel == "≤")
		changes = append(changes, ch)
	}
	last := changes[len(changes)-1]
	cmp := Comparison{A: A, Paper: orWord(x.c.Paper, "–"), more: changes,
		Text:    orWord(x.c.Text, fmt.Sprintf("%s: %s, %s at each length %d..%d minus at %d %s %g", A.k.Task, A.name, metric.Words(x.st.Metric), changes[0].length, last.length, L, rel, bound)),
		Ours:    fmt.Sprintf("%s at %d", fmtDiff(last.iv), last.length),
		Verdict: changeOverall(x.st, A, changes)}
	if d := divergedOf(A); d != "" {
		cmp.Ours, cmp.Verdict = d, divergedVerdict(A)
	}
	o.Rows = append(o.Rows, cmp)
	return nil
}

// changeAt judges a cell's change from its training length at one length, from its per-run
// changes d (score there minus score at the training length): with atMost, *reproduced* when
// the t interval of their mean lies below the bound, *contradicted* when it lies above it; else
// (at least) the other way round; *inconclusive* when it holds the bound.
func changeAt(des design, metric string, d, fl []float64, bound float64, atMost bool) (stats.Interval, string) {
	lo, hi := -1.0, 1.0 // a change of a score in [0, 1]
	if !hasChance(metric) {
		lo, hi = math.Inf(-1), math.Inf(1)
	}
	m, lo, hi := des.mean(d, fl, lo, hi)
	iv := stats.Interval{Diff: m, Lo: lo, Hi: hi}
	below, above := hi < bound, lo > bound
	switch {
	case atMost && below, !atMost && above:
		return iv, Reproduced
	case atMost && above, !atMost && below:
		return iv, Contradicted
	}
	return iv, Inconclusive
}

// changeOverall is the claim's verdict over its lengths: *untested* when the cell did not learn
// in range; *contradicted* when a length is (naming those that are); *reproduced* when every
// length is; *inconclusive* otherwise (naming the lengths that are not reproduced).
func changeOverall(st Statistic, A *side, at []change) string {
	if notLearned(st.Metric, meanOf(A.in), st.Learned) {
		return unlearned(A.name, A.in)
	}
	var contra, open []string
	for _, c := range at {
		switch c.verdict {
		case Contradicted:
			contra = append(contra, strconv.Itoa(c.length))
		case Inconclusive:
			open = append(open, strconv.Itoa(c.length))
		}
	}
	switch {
	case len(contra) > 0:
		return fmt.Sprintf("%s (at %s)", Contradicted, strings.Join(contra, ", "))
	case len(open) > 0:
		return fmt.Sprintf("%s (at %s)", Inconclusive, strings.Join(open, ", "))
	}
	return Reproduced
}

func (k *changeKind) detail(b *strings.Builder, o *Outcome) {
	r := o.Rows[0]
	_, L := r.A.c.trainRange()
	if d := divergedOf(r.A); d != "" {
		fmt.Fprintf(b, "%s · %s: %s; verdict: %s.\n", r.A.k.Task, r.A.name, d, r.Verdict)
		return
	}
	base, _ := r.A.c.scores(L, L, false)
	fmt.Fprintf(b, "%s · %s at the training length %d: %s (mean [95%% interval] over %s; in range: %s). Each length past it, the change per run (seed, then rate) from its own score at %d:\n\n",
		r.A.k.Task, r.A.name, L, cellCI(r.A.d, r.A.c, L, L, false), count(len(base), "run"), r.A.inCI(), L)
	table.MarkdownHead(b, table.R("length"), table.R(fmt.Sprintf("×%d", L)), table.R(metric.Words(o.Stat.Metric)+" (mean)"), table.L("change per run"), table.L("change: mean [95% interval]"), table.L("verdict"))
	for _, ch := range r.more.([]change) {
		var per []string
		for _, d := range ch.d {
			per = append(per, fmt.Sprintf("%+.3f", z(d)))
		}
		table.MarkdownRow(b, strconv.Itoa(ch.length), fmt.Sprintf("%.3g", float64(ch.length)/float64(L)), fmt.Sprintf("%.3f", ch.score), strings.Join(per, ", "), fmtDiff(ch.iv), ch.verdict)
	}
	fmt.Fprintf(b, "\nOver the lengths: **%s**.\n", r.Verdict)
}
