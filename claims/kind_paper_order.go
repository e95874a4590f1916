package claims

import (
	"fmt"
	"strings"

	"github.com/posformer/posformer/metric"
)

// A paper_order claim: every pair of its cells that the paper ranks, in the paper's order.
func init() {
	register(kindDef{name: "paper_order", place: 50, followed: true, new: func() Kind { return &paperOrderKind{} },
		rule: "**Paper order**: every pair the paper ranks A > B is a ranking; a pair whose paper gap is below the claim's min_gap is listed with our numbers but not judged or counted."})
}

type paperOrderKind struct {
	Cells []Cell `yaml:"cells"`
	// MinGap: pairs whose paper gap is below it are listed with our numbers but not judged.
	MinGap float64 `yaml:"min_gap"`
}

func (k *paperOrderKind) check(f *File, c *Claim, p string) error {
	m := f.Statistic.merged(c.Statistic).Metric
	if err := within(f, p+".min_gap", k.MinGap, 0, spread(m), false, "a gap between two "+metric.Words(m)+" scores"); err != nil {
		return err
	}
	if len(k.Cells) < 2 {
		return f.errAt(p+".cells", "give at least two cells, each with its paper name (paper:)")
	}
	for i, x := range k.Cells {
		if x.Paper == "" && !x.Written.Has("paper_value") {
			return f.errAt(fmt.Sprintf("%s.cells[%d]", p, i), "no paper number: give paper: <name in the paper's numbers> or paper_value:")
		}
	}
	return nil
}

func (k *paperOrderKind) judge(x *judging, o *Outcome) error {
	for i, a := range k.Cells {
		for n, b := range k.Cells {
			if i == n {
				continue
			}
			A, B, err := x.pair(a, b, fmt.Sprintf("%s.cells[%d]", x.path, i), fmt.Sprintf("%s.cells[%d]", x.path, n))
			if A == nil || err != nil {
				if err != nil {
					return err
				}
				continue
			}
			cmp := x.ranking(A, B)
			switch gap := ahead(x.st.Metric, A.paper, B.paper); { // the paper's advantage of A in the metric's direction
			case !(gap > 0) || !x.wanted(cmp.Text):
			case gap < k.MinGap:
				o.LeftOut = append(o.LeftOut, cmp)
			default:
				o.Rows = append(o.Rows, cmp)
			}
		}
	}
	if len(o.Rows) == 0 && x.in == nil { // said, not dropped from the counts
		why := "no two of its cells have paper numbers that differ over the claim's lengths"
		if len(o.LeftOut) > 0 {
			why = fmt.Sprintf("every pair the paper ranks has a paper gap below min_gap %g", k.MinGap)
		}
		var names []string
		for _, c := range k.Cells {
			names = append(names, key{c.Task, c.Scheme, c.Variant}.String())
		}
		o.Rows = append(o.Rows, Comparison{Text: orWord(x.c.Text, fmt.Sprintf("%s: the paper's order of %s", k.Cells[0].Task, strings.Join(names, ", "))),
			Paper: "–", Ours: "–", Verdict: Untested + " (" + why + ")"})
	}
	return nil
}

func (k *paperOrderKind) detail(b *strings.Builder, o *Outcome) {
	pairTable(b, o.Rows, o.Stat)
	if len(o.LeftOut) > 0 {
		fmt.Fprintf(b, "\nPairs the paper ranks with a gap below the claim's min_gap %g: listed with our numbers, neither judged nor counted:\n\n", k.MinGap)
		pairTable(b, o.LeftOut, o.Stat)
	}
}
