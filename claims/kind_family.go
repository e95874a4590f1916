package claims

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/metric"
)

// A family claim: each cell whose variant holds the options of where: ahead of its twin without
// the options drop: names, and a headline over the pairs.
func init() {
	register(kindDef{name: "family", place: 60, followed: true, new: func() Kind { return &familyKind{} },
		rule: "**Family** (the cells holding the family's options, each against its twin without them, e.g. a randomized scheme against the plain one): a cell with no such twin in the table is left out of the family, neither judged nor counted.\n- **Family headline**: the mean over the family's pairs that could be judged (every pair not *untested*) of (ours in the paper's statistic) A − B, and beside it, when some pair is untested, the mean over all its pairs. *Reproduced* when the judged pairs' mean is on A's side of 0, at least one pair is reproduced and none is contradicted (with the number of untested pairs said); *contradicted* when a pair is contradicted; *untested* when every pair is untested; *inconclusive* otherwise."})
}

var _ headliner = &familyKind{} // a follow-up's headline: true asks for it at run time

type familyKind struct {
	// Where are the options of the A cells ("randomized=true"), Drop the options their B twins lack.
	Where string   `yaml:"where"`
	Drop  []string `yaml:"drop"`
	// Headline is the mean over pairs of (ours in the paper's statistic) A − B, against the paper's.
	Headline Headline `yaml:"headline"`
	// A only names the task the pairs are taken from (all tasks when absent).
	A Cell `yaml:"a"`
}

// Headline is a family's headline claim.
type Headline struct {
	Text  string  `yaml:"text"`
	Paper string  `yaml:"paper"` // the paper's headline number as it states it
	Value float64 `yaml:"value"` // the same, as a score difference (0.12 for 12 points)
}

func (k *familyKind) check(f *File, c *Claim, p string) error {
	if k.A.Written.Len() > 0 && k.A.Written != presence.Of("task") {
		return f.errAt(p+".a", "a family's a: only names the task its pairs are taken from (its cells come from where: and drop:): write a: {task: T} or remove a:")
	}
	if m := f.Statistic.merged(c.Statistic).Metric; k.Headline.Value != 0 {
		if err := within(f, p+".headline.value", k.Headline.Value, -spread(m), spread(m), false, "a difference of two "+metric.Words(m)+" scores"); err != nil {
			return err
		}
	}
	if k.Where == "" || len(k.Drop) == 0 {
		return f.errAt(p, "a family needs where: (the options of its A cells, e.g. randomized=true) and drop: (the options its B cells lack)")
	}
	return nil
}

func (k *familyKind) judge(x *judging, o *Outcome) error {
	where := strings.Split(k.Where, ",")
	cells := x.t.cellsFor(x.st.Metric)
	var holdsNone []key // A cells holding none of drop:'s options: their "twin" is themselves
	for _, a := range x.t.order {
		if !hasAll(a.Variant, where) || (k.A.Task != "" && a.Task != k.A.Task) {
			continue
		}
		b := key{a.Task, a.Scheme, dropOptions(a.Variant, k.Drop)}
		if b == a {
			holdsNone = append(holdsNone, a)
			continue
		}
		if cells[b] == nil {
			continue
		}
		A, B, err := x.pair(cellOf(a), cellOf(b), x.path, x.path)
		if A == nil || err != nil {
			if err != nil {
				return err
			}
			continue
		}
		if cmp := x.ranking(A, B); x.wanted(cmp.Text) {
			o.Rows = append(o.Rows, cmp)
		}
	}
	if len(o.Rows) == 0 && x.in == nil && len(holdsNone) > 0 {
		return x.File.errAt(x.path+".drop", "none of %v is an option of the cells with %q (e.g. %s, variant %q), so each would be paired with itself: drop: names the options the A cells hold and their twins lack, e.g. drop: [%s]",
			k.Drop, k.Where, holdsNone[0].Scheme, holdsNone[0].Variant, strings.Join(optionKeys(where), ", "))
	}
	if len(o.Rows) == 0 && x.in == nil {
		return x.File.errAt(x.path+".where", "no cell of table %s has the options %q with a twin without %v: name options its variants hold", x.t.Name, k.Where, k.Drop)
	}
	o.Headline = k.headline(x.c, x.st.Metric, o.Rows)
	return nil
}

func (k *familyKind) detail(b *strings.Builder, o *Outcome) {
	pairTable(b, o.Rows, o.Stat)
	h := o.Headline
	fmt.Fprintf(b, "\nHeadline: %s. Paper: %s. Ours: %s. Verdict: **%s**.\n", h.Text, h.Paper, h.Ours, h.Verdict)
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

// optionKeys are the keys of options written key=value.
func optionKeys(opts []string) []string {
	var keys []string
	for _, o := range opts {
		k, _, _ := strings.Cut(strings.TrimSpace(o), "=")
		keys = append(keys, k)
	}
	return keys
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

// headline is the headline comparison of a family's pairs (rows), as the rule says; a follow-up
// with headline: true computes it again with an arm's pairs in place.
func (k *familyKind) headline(c *Claim, name string, rows []Comparison) *Comparison {
	var gains, judged []float64 // every pair's gain; the gains of the pairs that could be judged
	count := map[string]int{}
	for _, r := range rows {
		if !math.IsNaN(r.gain) { // a pair with a diverged side has no gain
			gains = append(gains, r.gain)
			if classOf(r.Verdict) != Untested {
				judged = append(judged, r.gain)
			}
		}
		count[classOf(r.Verdict)]++
	}
	amount := func(g []float64) string { // a mean gain in the metric's units
		if !hasChance(name) { // not a fraction: in the metric's own units
			return fmt.Sprintf("%+.3f %s", z(meanOf(g)), metric.Words(name))
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
	verdict := Inconclusive
	switch n := count[Untested]; {
	case n == len(rows): // no pair, or none judged
		verdict = Untested + " (no pair could be judged)"
	case count[Contradicted] > 0:
		verdict = Contradicted
	case count[Reproduced] > 0 && ahead(name, meanOf(judged), 0) > 0:
		verdict = Reproduced
		if n > 0 {
			verdict = fmt.Sprintf("%s in the %d of %d pairs that could be judged (%d untested)", Reproduced, len(rows)-n, len(rows), n)
		}
	}
	return &Comparison{Text: orWord(k.Headline.Text, c.Text), Paper: orWord(k.Headline.Paper, "–"), Verdict: verdict,
		Ours: fmt.Sprintf("%s; the pairs: %d reproduced, %d contradicted, %d inconclusive, %d untested",
			mean, count[Reproduced], count[Contradicted], count[Inconclusive], count[Untested])}
}
