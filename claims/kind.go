package claims

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/metric"
	"go.yaml.in/yaml/v3"
)

// A kind of claim is one file (kind_ranking.go is the one to copy): a type whose fields are the
// kind's options, each tagged with the key it reads (the keys of a claim of that kind besides
// those of every claim, Claim's), the methods of Kind, and its registration (register, from an
// init function) with its verdict rule. Nothing else names a kind.

// Kind is a kind of claim holding its options (exported fields) as a claim of that kind writes them.
type Kind interface {
	// check validates the options of claim c at path p of file f (the keys every claim has are
	// checked, a cell's lr: refused).
	check(f *File, c *Claim, p string) error
	// judge judges the claim into o.
	judge(x *judging, o *Outcome) error
	// detail writes the claim's detail in its document, below the claim's heading.
	detail(b *strings.Builder, o *Outcome)
}

// kindDef is a registered kind.
type kindDef struct {
	name string
	// place orders the kinds in messages and their verdict rules in Rules (the shipped kinds
	// 10 to 70; the first is the ranking the others build on, stated before the rules of
	// learning and chance).
	place int
	// rule is the kind's verdict rule, one bullet of Rules.
	rule string
	// ownPaper: the claim's paper: is its paper number (the kind computes none from its cells).
	ownPaper bool
	// followed: a follow-up may re-judge the claim on other tables.
	followed bool
	new      func() Kind
	keys     []string // the options' keys, from their yaml tags
}

// kinds are the registered kinds, by place.
var kinds []*kindDef

// register adds a kind (from an init function); it panics on a name or place registered twice.
func register(d kindDef) {
	for _, k := range kinds {
		if k.name == d.name || k.place == d.place {
			panic(fmt.Sprintf("claims: kind %s (place %d) registered twice", d.name, d.place))
		}
	}
	d.keys = yamlKeys(reflect.TypeOf(d.new()).Elem())
	kinds = append(kinds, &d)
	slices.SortFunc(kinds, func(a, b *kindDef) int { return a.place - b.place })
}

// kindOf is the registered kind of a name, nil for none.
func kindOf(name string) *kindDef {
	for _, k := range kinds {
		if k.name == name {
			return k
		}
	}
	return nil
}

// kindNames lists the names of the kinds keep keeps (all when nil), in order.
func kindNames(keep func(*kindDef) bool) []string {
	var ns []string
	for _, k := range kinds {
		if keep == nil || keep(k) {
			ns = append(ns, k.name)
		}
	}
	return ns
}

// yamlKeys are a struct's keys (its fields' yaml tags), in declared order.
func yamlKeys(t reflect.Type) []string {
	var ks []string
	for i := range t.NumField() {
		if k, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); k != "-" && t.Field(i).IsExported() {
			ks = append(ks, k)
		}
	}
	return ks
}

// commonKeys are the keys of every kind of claim (Claim's).
var commonKeys = yamlKeys(reflect.TypeFor[Claim]())

// DecodeOption keeps a key of the claim that is not every claim's, for its kind to read (the
// config decoder calls it; readKind decodes them once the kind is known).
func (c *Claim) DecodeOption(key string, n *yaml.Node) error {
	c.opts = append(c.opts, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key, Line: n.Line}, n)
	return nil
}

// readKind decodes the claim's options into its kind, refusing a key the kind does not read (a
// written value that would do nothing), and checks every cell of every kind alike: no lr: (a
// claim's cell is every run of its task, scheme and variant), each cell named once (a ranking of a
// cell against itself), one paper number (paper:, which needs paper.numbers, or paper_value:
// within the metric's range).
func (c *Claim) readKind(f *File, p string) error {
	d := kindOf(c.Kind)
	for i := 0; i < len(c.opts); i += 2 {
		k := c.opts[i].Value
		if slices.Contains(d.keys, k) {
			continue
		}
		readers := kindNames(func(o *kindDef) bool { return slices.Contains(o.keys, k) })
		if len(readers) == 0 {
			return f.errAt(p+"."+k, "unknown key %q in a %s claim (known: %s)", k, c.Kind, strings.Join(slices.Sorted(slices.Values(append(slices.Clone(commonKeys), d.keys...))), ", "))
		}
		return f.errAt(p+"."+k, "a %s claim does not read %s: (its keys: %s): remove it, or write the kind that reads it (%s)",
			c.Kind, k, strings.Join(d.keys, ", "), strings.Join(readers, ", "))
	}
	c.kind = d.new()
	if err := config.DecodeNode(&yaml.Node{Kind: yaml.MappingNode, Content: c.opts}, f.Path, p, c.kind); err != nil {
		return err
	}
	m := f.Statistic.merged(c.Statistic).Metric
	lo, hi := metricRange(m)
	seen := map[key]string{} // the cells named so far, at their paths
	v := reflect.ValueOf(c.kind).Elem()
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("yaml"), ",")
		cells, many := v.Field(i).Interface().([]Cell)
		if x, ok := v.Field(i).Interface().(Cell); ok {
			cells = []Cell{x}
		}
		for n, x := range cells {
			at := name
			if many {
				at = fmt.Sprintf("%s[%d]", name, n)
			}
			q := p + "." + at
			switch k := (key{x.Task, x.Scheme, x.Variant}); {
			case x.Written.Has("lr"):
				return f.errAt(q+".lr", "a claim's cell is every run of its task, scheme and variant: keep one learning rate with its table's rows: (a cell with lr:) or choose:, and remove lr: here")
			case x.Paper != "" && x.Written.Has("paper_value"):
				return f.errAt(q+".paper_value", "given beside paper: %q: give the paper's number once, by its name in paper.numbers (paper:) or as the number (paper_value:)", x.Paper)
			case x.Paper != "" && f.Paper.Numbers == "":
				return f.errAt(q+".paper", "%q names the cell in the paper's numbers, and the file has none: give paper: {numbers: <CSV of the paper's values>}, or the number itself as paper_value:", x.Paper)
			case x.Scheme != "" && seen[k] != "":
				return f.errAt(q, "is the cell %s · %s again (%s.%s): a claim compares different cells: name another", k.Task, k, p, seen[k])
			case x.Scheme != "":
				seen[k] = at
			}
			if x.Written.Has("paper_value") {
				if err := within(f, q+".paper_value", x.PaperValue, lo, hi, false, metric.Words(m)+", the claim's metric"); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// judging is a claim being judged: its statistic, its table and, when a follow-up re-judges it,
// the arm.
type judging struct {
	*Judged
	c     *Claim
	path  string
	st    Statistic
	t     *loaded
	paper paperNumbers
	in    *arm
}

// design is how the claim's intervals are computed: the file's sequential design's when the
// tables are one of its looks and the design judges the claim, else with a fixed n.
func (x *judging) design() design {
	if x.seq && x.File.Sequential.judges(x.c) {
		return design{seq: true, alpha: x.File.Sequential.Alpha}
	}
	return fixedN
}

// arm is where a follow-up re-judges a claim: another table, optionally another variant for
// every cell, only some comparisons; pairs whose cells the table lacks are skipped there.
type arm struct {
	table, variant string
	override       bool
	only           []string
}

// pair resolves two cells of the claim; in a follow-up's arm, a pair with a cell its table lacks
// is skipped (nil sides, no error).
func (x *judging) pair(a, b Cell, pa, pb string) (A, B *side, err error) {
	if A, err = x.side(a, pa); err == nil {
		B, err = x.side(b, pb)
	}
	if err != nil && x.in != nil && errors.Is(err, errNoCell) {
		return nil, nil, nil
	}
	return A, B, err
}

// wanted: the comparison of this text is judged (a follow-up's arm may re-judge only some).
func (x *judging) wanted(text string) bool {
	return x.in == nil || len(x.in.only) == 0 || slices.Contains(x.in.only, text)
}

// ranking is the ranking A > B (rules: Ranking).
func (x *judging) ranking(A, B *side) Comparison {
	iv, v := rank(x.st.Metric, A, B, x.st.Learned)
	return x.compare(A, B, fmt.Sprintf("%s: %s > %s", A.k.Task, A.name, B.name), iv, v)
}

// compare is the comparison of two sides with its interval of A − B and its verdict: untested
// when a side diverged, the paper's A − B beside it, and the gain in the paper's statistic.
func (x *judging) compare(A, B *side, text string, iv stats.Interval, verdict string) Comparison {
	cmp := Comparison{A: A, B: B, Paper: "–", Text: text, Ours: fmtDiff(iv), Verdict: orWord(divergedVerdict(A, B), verdict),
		decides: func(b stats.Bounds) bool { return b.Lo > 0 || b.Hi < 0 }}
	if !math.IsNaN(A.paper) && !math.IsNaN(B.paper) {
		cmp.Paper = fmt.Sprintf("%+.3f", z(A.paper-B.paper))
	}
	cmp.gain = A.ours(x.st) - B.ours(x.st)
	if d := divergedOf(A, B); d != "" { // no number that depends on a diverged side
		cmp.Ours, cmp.gain = d, math.NaN()
	}
	return cmp
}

// divergedVerdict is the verdict of a comparison one of whose sides diverged ("untested (A
// diverged: seed 2 at step 130)", the first such side), "" when none did.
func divergedVerdict(sides ...*side) string {
	for _, s := range sides {
		if len(s.diverged) > 0 {
			return fmt.Sprintf("%s (%s diverged: %s)", Untested, s.name, strings.Join(s.diverged, ", "))
		}
	}
	return ""
}

// needCells refuses a claim's cell a: (then b:) without its task and scheme, eg the example's.
func needCells(f *File, p, eg string, cells ...Cell) error {
	for i, x := range cells {
		if x.Task == "" || x.Scheme == "" {
			side := string(rune('a' + i))
			return f.errAt(p+"."+side, "missing task or scheme: give e.g. %s: {%s}", side, eg)
		}
	}
	return nil
}

// writtenVariant marks a generated cell's variant as given ("" is the plain scheme).
var writtenVariant = presence.Of("variant")

// cellOf is the cell of a key, its variant given.
func cellOf(k key) Cell {
	return Cell{Task: k.Task, Scheme: k.Scheme, Variant: k.Variant, Written: writtenVariant}
}
