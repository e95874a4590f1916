package claims

import (
	"fmt"
	"math"
	"strings"

	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/metric"
)

// An equivalence claim: cells A and B within a margin of each other.
func init() {
	register(kindDef{name: "equivalence", place: 20, new: func() Kind { return &equivalenceKind{} },
		rule: "**Equivalence A ≈ B (margin m)**: *reproduced* when the Welch interval of A − B lies within ±m; *contradicted* when it excludes 0 and |A − B| ≥ m; *inconclusive* otherwise."})
}

type equivalenceKind struct {
	A      Cell    `yaml:"a"`
	B      Cell    `yaml:"b"`
	Margin float64 `yaml:"margin"`
}

func (k *equivalenceKind) check(f *File, c *Claim, p string) error {
	if k.Margin <= 0 {
		return f.errAt(p+".margin", "missing or not positive: give the margin within which A and B count as equal, e.g. margin: 0.05")
	}
	m := f.Statistic.merged(c.Statistic).Metric
	if err := within(f, p+".margin", k.Margin, 0, spread(m), true, "a difference of two "+metric.Words(m)+" scores"); err != nil {
		return err
	}
	return needCells(f, p, "task: copy, scheme: alibi", k.A, k.B)
}

func (k *equivalenceKind) judge(x *judging, o *Outcome) error {
	A, B, err := x.pair(k.A, k.B, x.path+".a", x.path+".b")
	if A == nil || err != nil {
		return err
	}
	iv, v := equivalence(x.st.Metric, A, B, k.Margin, x.st.Learned)
	if cmp := x.compare(A, B, fmt.Sprintf("%s: %s ≈ %s (±%g)", A.k.Task, A.name, B.name, k.Margin), iv, v); x.wanted(cmp.Text) {
		m := k.Margin
		cmp.decides = func(b stats.Bounds) bool { return b.Lo > -m && b.Hi < m || b.Lo >= m || b.Hi <= -m }
		o.Rows = append(o.Rows, cmp)
	}
	return nil
}

func (k *equivalenceKind) detail(b *strings.Builder, o *Outcome) { pairTable(b, o.Rows, o.Stat) }

// equivalence judges "A ≈ B within ±margin": reproduced when the interval of A − B lies within
// ±margin; contradicted, with a fixed n, when it excludes 0 and |A − B| ≥ margin, and in a
// sequential design when it lies wholly outside ±margin (so that a contradiction's error rate is
// the design's too).
func equivalence(metric string, A, B *side, margin, learned float64) (stats.Interval, string) {
	iv := A.d.diff(metric, A.scores, B.scores, A.floors, B.floors)
	out := iv.Lo >= margin || iv.Hi <= -margin
	if !A.d.seq {
		out = iv.Excludes0() && math.Abs(iv.Diff) >= margin
	}
	switch {
	case notLearned(metric, meanOf(A.in), learned):
		return iv, unlearned(A.name, A.in)
	case notLearned(metric, meanOf(B.in), learned):
		return iv, unlearned(B.name, B.in)
	case iv.Lo > -margin && iv.Hi < margin:
		return iv, Reproduced
	case out:
		return iv, Contradicted
	}
	return iv, Inconclusive
}
