package claims

import (
	"fmt"
	"strings"

	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/internal/table"
)

// A shape claim: each cell stays clearly above chance to at least k·L, or falls to chance by k·L
// (L the longest training length).
func init() {
	register(kindDef{name: "shape", place: 30, ownPaper: true, new: func() Kind { return &shapeKind{} },
		rule: "**Shape** (L the longest training length): *stays above to k·L*: *reproduced* when the cell extrapolates to at least k·L, *contradicted* when it is within noise of chance at a tested length up to k·L; *falls by k·L*: *reproduced* when it is within noise of chance at every tested length past k·L, *contradicted* when it is clearly above chance at one of them; *inconclusive* otherwise (a score not shown above chance is not thereby shown at chance); *untested* when k·L lies past the longest tested length (stays above) or no tested length lies past it (falls by)."})
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
			Verdict: orWord(divergedVerdict(s), k.verdict(x.st, s, L))})
	}
	return nil
}

// verdict judges a cell against k·L (L its longest training length). Stays above to k·L:
// reproduced when it extrapolates to at least k·L (clearly above chance at every tested length
// up to k·L), contradicted when it is within noise of chance at a tested length up to k·L.
// Falls by k·L: reproduced when it is within noise of chance at every tested length past k·L,
// contradicted when it is clearly above chance at one of them. Inconclusive otherwise (not
// shown above chance is not shown at chance); untested when no tested length lies up to k·L
// (stays above) or past it (falls by), where nothing was measured.
func (k *shapeKind) verdict(st Statistic, s *side, L int) string {
	bound := k.StaysAbove
	if k.FallsBy > 0 {
		bound = k.FallsBy
	}
	kL := bound * float64(L)
	ls := s.c.lengths()
	if top := ls[len(ls)-1]; kL > float64(top) || k.FallsBy > 0 && kL >= float64(top) {
		return fmt.Sprintf("%s (no tested length past %g·%d = %g: the longest is %d)", Untested, bound, L, kL, top)
	}
	if notLearned(st.Metric, meanOf(s.in), st.Learned) {
		return unlearned(s.name, s.in)
	}
	at := func(n int) (atChance, above bool) {
		xs, fs, ch := s.c.at(n).runStats(n, n, false)
		if ch+stats.ChanceMargin >= 1 { // no score can clear it: tells nothing
			return false, false
		}
		return s.d.atChance(xs, fs, ch), s.d.aboveChance(xs, fs, ch)
	}
	if k.StaysAbove > 0 {
		if float64(s.extrap) >= kL {
			return Reproduced
		}
		for _, n := range ls {
			if c, _ := at(n); float64(n) <= kL && c {
				return fmt.Sprintf("%s (at chance at %d)", Contradicted, n)
			}
		}
		return Inconclusive
	}
	all := true
	for _, n := range ls {
		if float64(n) <= kL {
			continue
		}
		c, a := at(n)
		if a {
			return fmt.Sprintf("%s (above chance at %d)", Contradicted, n)
		}
		all = all && c
	}
	if all {
		return Reproduced
	}
	return Inconclusive
}

func (k *shapeKind) detail(b *strings.Builder, o *Outcome) {
	table.MarkdownHead(b, table.L("cell"), table.L("in range"), table.L("past training"), table.R("extrapolates to"), table.R("ratio"), table.L("verdict"))
	for _, r := range o.Rows {
		s := r.A
		_, hi := s.c.trainRange()
		ls := s.c.lengths()
		if d := divergedOf(s); d != "" {
			table.MarkdownRow(b, s.k.Task+" · "+s.name, d, d, d, d, r.Verdict)
			continue
		}
		table.MarkdownRow(b, s.k.Task+" · "+s.name, s.inCI(), cellCI(s.d, s.c, hi+1, ls[len(ls)-1], false), lengthOrDash(s.extrap),
			strings.TrimSuffix(ratioOrDash(s.extrap, float64(s.extrap)/float64(hi)), "×"), r.Verdict)
	}
}
