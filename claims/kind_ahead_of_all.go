package claims

import (
	"fmt"
	"sort"
	"strings"

	"github.com/posformer/posformer/internal/table"
)

// An ahead_of_all claim: cell A ahead of every other cell of its task that learned it.
func init() {
	register(kindDef{name: "ahead_of_all", place: 40, ownPaper: true, new: func() Kind { return &aheadOfAllKind{} },
		rule: "**A ahead of all**: A against every other cell of its task that learned it, each a ranking (against A's chance level): *untested* when A or any other cell of its task, learned or not, has a run that diverged (naming it); *reproduced* when every ranking is reproduced; *contradicted* when one is (naming, of the cells ahead of A, the one with the best mean); *inconclusive (chance)* when A and all the others are within noise of chance; *inconclusive* otherwise."})
}

type aheadOfAllKind struct {
	A Cell `yaml:"a"`
}

func (k *aheadOfAllKind) check(f *File, c *Claim, p string) error {
	return needCells(f, p, "task: copy, scheme: none", k.A)
}

func (k *aheadOfAllKind) judge(x *judging, o *Outcome) error {
	A, err := x.side(k.A, x.path+".a")
	if err != nil {
		return err
	}
	var rivals []*side // every other cell of A's task; the verdict compares those that learned it
	for _, key := range x.t.order {
		if key.Task != A.k.Task || key == A.k {
			continue
		}
		s, err := x.side(cellOf(key), x.path)
		if err != nil {
			return err
		}
		rivals = append(rivals, s)
	}
	o.Rows = append(o.Rows, Comparison{Text: orWord(x.c.Text, fmt.Sprintf("%s: %s ahead of every other cell that learned the task", A.k.Task, A.name)),
		Paper: orWord(x.c.Paper, "–"), Ours: orWord(divergedOf(A), A.ci()), A: A, more: rivals,
		Verdict: orWord(divergedVerdict(append([]*side{A}, rivals...)...), aheadOfAll(x.st, A, rivals))}) // a rival that diverged leaves it untested too
	return nil
}

// aheadOfAll judges "A is ahead of every other learned cell"; a contradiction names the best of
// the rivals ahead of A (the top of the ranking), whatever their order.
func aheadOfAll(st Statistic, A *side, rivals []*side) string {
	if notLearned(st.Metric, meanOf(A.in), st.Learned) {
		return unlearned(A.name, A.in)
	}
	allChance, isAhead, behind, behindMean, n := hasChance(st.Metric) && A.d.atChance(A.scores, A.floors, A.chance), true, "", 0.0, 0
	for _, o := range rivals {
		if notLearned(st.Metric, meanOf(o.in), st.Learned) {
			continue
		}
		n++
		_, v := rank(st.Metric, A, o, st.Learned)
		if !A.d.atChance(o.scores, o.floors, A.chance) {
			allChance = false
		}
		if v != Reproduced {
			isAhead = false
		}
		if v == Contradicted && (behind == "" || ahead(st.Metric, meanOf(o.scores), behindMean) > 0) {
			behind, behindMean = o.name, meanOf(o.scores)
		}
	}
	switch {
	case n == 0:
		return Untested + " (no other cell learned the task)"
	case allChance:
		return Inconclusive + " (chance)"
	case behind != "":
		return Contradicted + " (" + behind + " is ahead)"
	case isAhead:
		return Reproduced
	}
	return Inconclusive
}

func (k *aheadOfAllKind) detail(b *strings.Builder, o *Outcome) {
	r := o.Rows[0]
	var ranked, unlearned, far []string
	all := append([]*side{r.A}, r.more.([]*side)...)
	sort.SliceStable(all, func(x, y int) bool { return ahead(o.Stat.Metric, meanOf(all[x].scores), meanOf(all[y].scores)) > 0 })
	for _, s := range all {
		if d := divergedOf(s); d != "" {
			unlearned = append(unlearned, s.name+" "+d)
			continue
		}
		if notLearned(o.Stat.Metric, meanOf(s.in), o.Stat.Learned) {
			unlearned = append(unlearned, fmt.Sprintf("%s (%.3f)", s.name, meanOf(s.in)))
			continue
		}
		ranked = append(ranked, s.name+" "+s.ci())
		ls := s.c.lengths()
		if top := ls[len(ls)-1]; top > s.hi {
			fs, _ := s.c.scores(s.hi+1, top, false)
			far = append(far, fmt.Sprintf("%s %.3f", s.name, meanOf(fs)))
		}
	}
	table.MarkdownHead(b, table.L(fmt.Sprintf("ranking over %d..%d (mean [95%% interval])", r.A.lo, r.A.hi)), table.L("further (mean)"), table.L("not learned in range"), table.L("verdict"))
	table.MarkdownRow(b, orWord(strings.Join(ranked, " > "), "–"), orWord(strings.Join(far, ", "), "–"), orWord(strings.Join(unlearned, ", "), "–"), r.Verdict)
}
