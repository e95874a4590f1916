package claims

import (
	"fmt"
	"strings"
)

// A shape claim: each cell stays clearly above chance to at least k·L, or falls to chance by k·L
// (L the longest training length).
func init() {
	register(kindDef{name: "shape", place: 30, ownPaper: true, new: func() Kind { return &shapeKind{} },
		rule: "**Shape**: *stays above to k·L*: reproduced when the cell extrapolates to at least k·L (L the longest training length), contradicted otherwise; *falls by k·L*: reproduced when it extrapolates to at most k·L, contradicted otherwise."})
}

type shapeKind struct {
	Cells      []Cell  `yaml:"cells"`
	StaysAbove float64 `yaml:"stays_above"`
	FallsBy    float64 `yaml:"falls_by"`
}

func (k *shapeKind) check(f *File, c *Claim, p string) error {
	for _, r := range []string{"lengths", "past_training", "in_range"} {
		if c.Statistic.Written.Has(r) {
			return f.errAt(p+".statistic."+r, "a shape claim reads no length range (extrapolates to runs over every tested length, against k·L): remove it")
		}
	}
	switch m := f.Statistic.merged(c.Statistic).Metric; {
	case !hasChance(m):
		return f.errAt(p+".kind", "a shape claim compares scores with chance, which %s has not: judge it in exact_match or token_accuracy", m)
	case (k.StaysAbove > 0) == (k.FallsBy > 0):
		return f.errAt(p, "give one of stays_above: k and falls_by: k (k > 0, a multiple of the longest training length)")
	case len(k.Cells) == 0:
		return f.errAt(p+".cells", "missing: list the cells the shape is claimed of")
	}
	return nil
}

func (k *shapeKind) judge(x *judging, o *Outcome) error {
	for i, cl := range k.Cells {
		s, err := x.side(cl, fmt.Sprintf("%s.cells[%d]", x.path, i))
		if err != nil {
			return err
		}
		_, L := s.c.trainRange()
		bound, rel := k.StaysAbove, "≥"
		if k.FallsBy > 0 {
			bound, rel = k.FallsBy, "≤"
		}
		o.Rows = append(o.Rows, Comparison{Text: fmt.Sprintf("%s: %s extrapolates to %s %g·%d", s.k.Task, s.name, rel, bound, L), Paper: orWord(x.c.Paper, "–"), A: s,
			Ours:    orWord(divergedOf(s), fmt.Sprintf("%s (%s)", lengthOrDash(s.extrap), ratioOrDash(s.extrap, float64(s.extrap)/float64(L)))),
			Verdict: orWord(divergedVerdict(s), k.verdict(x.st, s.name, s.extrap, L, s.in))})
	}
	return nil
}

// verdict judges a cell's extrapolation length e against k·L.
func (k *shapeKind) verdict(st Statistic, name string, e, L int, in []float64) string {
	switch {
	case notLearned(st.Metric, meanOf(in), st.Learned):
		return unlearned(name, in)
	case k.StaysAbove > 0 && float64(e) >= k.StaysAbove*float64(L), k.FallsBy > 0 && float64(e) <= k.FallsBy*float64(L):
		return Reproduced
	}
	return Contradicted
}

func (k *shapeKind) detail(b *strings.Builder, o *Outcome) {
	b.WriteString("| cell | in range | past training | extrapolates to | ratio | verdict |\n| --- | --- | --- | ---: | ---: | --- |\n")
	for _, r := range o.Rows {
		s := r.A
		_, hi := s.c.trainRange()
		ls := s.c.lengths()
		bey, _ := s.c.scores(hi+1, ls[len(ls)-1], false)
		if d := divergedOf(s); d != "" {
			fmt.Fprintf(b, "| %s · %s | %s | %s | %s | %s | %s |\n", s.k.Task, s.name, d, d, d, d, r.Verdict)
			continue
		}
		fmt.Fprintf(b, "| %s · %s | %s | %s | %s | %s | %s |\n", s.k.Task, s.name, fmtCI(s.in), fmtCI(bey), lengthOrDash(s.extrap),
			strings.TrimSuffix(ratioOrDash(s.extrap, float64(s.extrap)/float64(hi)), "×"), r.Verdict)
	}
}
