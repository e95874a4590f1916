package claims

import "strings"

// A ranking claim: cell A ahead of cell B. The file to copy for a new kind of claim (kind.go says
// what a kind is).
func init() {
	register(kindDef{name: "ranking", place: 10, followed: true, new: func() Kind { return &rankingKind{} },
		rule: "**Ranking A > B** (A ahead of B): the interval of mean(A) − mean(B) (above). *Reproduced* when it lies wholly on A's side of 0 (above 0; below 0 when lower is better), *contradicted* when it lies wholly on B's side, *inconclusive* otherwise (with three seeds only large gaps pass). A side with a run that diverged is *untested*, naming the run."})
}

// rankingKind is a ranking's options: its two cells.
type rankingKind struct {
	A Cell `yaml:"a"`
	B Cell `yaml:"b"`
}

func (k *rankingKind) check(f *File, c *Claim, p string) error {
	return needCells(f, p, "task: copy, scheme: alibi", k.A, k.B)
}

func (k *rankingKind) judge(x *judging, o *Outcome) error {
	A, B, err := x.pair(k.A, k.B, x.path+".a", x.path+".b")
	if A == nil || err != nil {
		return err
	}
	cmp := x.ranking(A, B)
	cmp.Text = orWord(x.c.Text, cmp.Text)
	if x.wanted(cmp.Text) {
		o.Rows = append(o.Rows, cmp)
	}
	return nil
}

func (k *rankingKind) detail(b *strings.Builder, o *Outcome) { pairTable(b, o.Rows, o.Stat) }
