// Package claims judges claims about position schemes from per-seed results tables. A claim,
// a paper's or a user's, is data: a claims file (YAML, docs/claims/README.md describes the
// format) names the tables its numbers come from, the statistic, and the claims; the engine
// reads the tables (never the runs, never training), applies the verdict rules stated once in
// rules.go and each kind of claim's file (kind.go), and writes one document per claims file and
// the index docs/claims/README.md.
package claims

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/internal/yamlpath"
	"github.com/posformer/posformer/metric"
	"go.yaml.in/yaml/v3"
)

// File is one claims file.
type File struct {
	// Title heads the document.
	Title string `yaml:"title"`
	// Paper is the source of the claims; empty for a user's own claims.
	Paper Paper `yaml:"paper"`
	// About is prose printed after the opening table: the protocol, what was compared.
	About string `yaml:"about"`
	// Tables are the per-seed results tables the claims read, each produced by a grid.
	Tables []Table `yaml:"tables"`
	// Statistic is how scores are reduced to one number per run; a claim may override parts.
	Statistic Statistic  `yaml:"statistic"`
	Claims    []Claim    `yaml:"claims"`
	FollowUps []FollowUp `yaml:"follow_ups"`
	// Sequential, when given, judges the claims after each seed a cell (design.go) and lets
	// `claims -decide` train the seeds they need.
	Sequential Sequential `yaml:"sequential"`
	// Notes are free sections printed after the claims' detail (set-up differences, context).
	Notes []Note `yaml:"notes"`
	// Plots are images (paths relative to the document) shown at the end.
	Plots []string `yaml:"plots"`

	// Path is where the file was read from; Name its base name without .yaml (the document's).
	Path, Name string `yaml:"-"`
	root       *yaml.Node
}

// Paper is a paper's citation and, optionally, its numbers.
type Paper struct {
	Citation string `yaml:"citation"`
	Link     string `yaml:"link"`
	// Numbers (a path relative to the claims file, as every path in it) is a CSV of the paper's values per task, scheme and length (columns task, scheme,
	// length and Column); a cell's paper name selects its rows.
	Numbers string `yaml:"numbers"`
	// Column is the CSV's value column (default "value").
	Column string `yaml:"column"`
	// Statistic names the paper's own statistic (printed beside ours), e.g. "mean of 3 seeds".
	Statistic string `yaml:"statistic"`
}

// Table is one per-seed results table (the columns of SeedHeader).
type Table struct {
	Name string `yaml:"name"`
	CSV  string `yaml:"csv"`
	// Union builds the table from the rows of tables named before it instead of a CSV (with
	// Rows choosing among them).
	Union []string `yaml:"union"`
	// Grid is the config whose finished grid exports the table (`claims -export`).
	Grid string `yaml:"grid"`
	// Variants is how an exported table names a row's variant: run (default: the run's
	// resolved non-default scheme options), swept (the cell's swept values) or both.
	Variants string `yaml:"variants"`
	// Summary prints the table's per-cell summary (seeds, in range, past training, extrapolates
	// to) in the document.
	Summary bool `yaml:"summary"`
	// written is CSV as the file gives it (relative to the claims file); CSV and Grid are
	// resolved against the claims file's directory when it is read.
	written string
	// Rows chooses which rows of the CSV the table holds (all when empty): a row is kept when
	// it matches one of them (see Cell.matches).
	Rows []Cell `yaml:"rows"`
	// Choose keeps each cell's runs at the learning rate a selection rule picks from the rows'
	// validation scores (after Union and Rows).
	Choose Choose `yaml:"choose"`
	// chooseKey: the file writes choose:, perhaps empty ({} or no value: no key of Choose is
	// written, and Load marks it here so that it is refused rather than read as absent).
	chooseKey bool
}

// Statistic is how a run's per-length scores become the numbers a verdict compares.
type Statistic struct {
	// Metric is exact_match, token_accuracy (higher is better), bits_per_byte or
	// sliding_bits_per_byte (a language model's; lower is better).
	Metric string `yaml:"metric"`
	// Lengths is an explicit test range "lo..hi"; or PastTraining k: the lengths past the
	// longest training length L up to k·L (k = 0: every tested length past L); or InRange: the
	// training lengths.
	Lengths      string  `yaml:"lengths"`
	PastTraining float64 `yaml:"past_training"`
	InRange      bool    `yaml:"in_range"`
	// Ours is our number in the paper's statistic: mean (over seeds) or best (over runs).
	Ours string `yaml:"ours"`
	// Learned is the in-range mean below which (above which, for a metric where lower is
	// better) a cell has not learned the task: untested.
	Learned float64 `yaml:"learned"`

	Written presence.Keys `yaml:"-"`
}

// Cell selects one cell of a table: a task, a scheme and its variant (the table's variant
// column, "" for the plain scheme).
type Cell struct {
	Task    string `yaml:"task"`
	Scheme  string `yaml:"scheme"`
	Variant string `yaml:"variant"`
	// Paper is the cell's name in the paper's numbers (Paper.Numbers), when it has one.
	Paper string `yaml:"paper"`
	// PaperValue is the paper's number for the cell, given inline.
	PaperValue float64 `yaml:"paper_value"`
	// LR selects the runs at one learning rate (Table.Rows only; 0: every rate).
	LR float64 `yaml:"lr"`

	Written presence.Keys `yaml:"-"`
}

// Claim is one claim: the keys every claim has; the keys of its kind are its kind's options
// (Kind, registered by the kind's file).
type Claim struct {
	ID string `yaml:"id"`
	// Kind names the claim's kind (kind_*.go).
	Kind string `yaml:"kind"`
	// Text is the claim in words (default: generated from its cells).
	Text  string `yaml:"text"`
	Table string `yaml:"table"` // default: the first table
	// Paper is the paper's number as it states it, for a kind whose paper number is not computed
	// from its cells (printed in the opening table).
	Paper string `yaml:"paper"`
	// Beside marks a comparison shown beside the paper's claims, judged by the same rules but
	// not one of them (a scheme the paper did not test): the index does not count it.
	Beside bool `yaml:"beside"`
	// Statistic overrides the file's for this claim.
	Statistic Statistic `yaml:"statistic"`

	// kind holds the options its kind reads, decoded from opts (the keys that are not Claim's,
	// with their values) by Load.
	kind Kind
	opts []*yaml.Node
}

// FollowUp is an experiment into why a claim was contradicted or left untested: the same
// comparisons on other tables (arms).
type FollowUp struct {
	ID string   `yaml:"id"`
	Of []string `yaml:"of"` // the claims it re-judges (ranking, paper_order or family claims)
	// Only restricts the comparisons re-judged to those of these texts ("copy: t5 > none").
	Only     []string `yaml:"only"`
	Question string   `yaml:"question"`
	About    string   `yaml:"about"`
	Arms     []Arm    `yaml:"arms"`
	// Headline re-judges the family's headline with each arm's pairs in place of the ones the
	// arm re-ran.
	Headline bool `yaml:"headline"`
}

// Arm is one table of a follow-up, optionally with another variant for both sides.
type Arm struct {
	Label   string `yaml:"label"`
	Table   string `yaml:"table"`
	Variant string `yaml:"variant"`

	Written presence.Keys `yaml:"-"`
}

// Note is a free section of prose.
type Note struct {
	Title string `yaml:"title"`
	Text  string `yaml:"text"`
}

// Load reads and checks a claims file strictly: an unknown key, a wrong type or an inconsistent
// value is one error `file:line: path: what is wrong and the fix`.
func Load(path string) (*File, error) {
	src, err := readRegular(path)
	if err != nil {
		return nil, fmt.Errorf("%w: give the path of a claims file", err)
	}
	f := &File{Path: path, Name: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))}
	if f.root, err = config.ParseYAML(src, path); err != nil { // for the lines of errAt
		return nil, err
	}
	if err := fileShape(f.root, path); err != nil {
		return nil, err
	}
	if err := config.Decode(src, path, f); err != nil {
		return nil, err
	}
	for i := range f.Tables {
		f.Tables[i].chooseKey = yamlpath.Has(nodeAt(f.root, fmt.Sprintf("tables[%d]", i)), "choose")
	}
	if err := f.check(); err != nil {
		return nil, err
	}
	f.Sequential.on = yamlpath.Has(f.root, "sequential")
	f.Sequential.Converge.key = yamlpath.Has(nodeAt(f.root, "sequential"), "converge")
	if err := f.Sequential.check(f); err != nil {
		return nil, err
	}
	if err := f.checkWritten(); err != nil {
		return nil, err
	}
	if err := f.checkPlots(); err != nil {
		return nil, err
	}
	// Paths in a claims file are relative to its directory.
	dir := filepath.Dir(path)
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, p)
	}
	for i := range f.Tables {
		t := &f.Tables[i]
		t.written, t.CSV, t.Grid = t.CSV, rel(t.CSV), rel(t.Grid)
	}
	f.Paper.Numbers = rel(f.Paper.Numbers)
	return f, nil
}

// readRegular reads a file (internal/regfile: a FIFO, device or directory is refused at once),
// bounded in size.
func readRegular(path string) ([]byte, error) {
	src, err := regfile.ReadFile(path)
	if errors.Is(err, regfile.ErrNotRegular) { // without regfile's fix: the caller says which file to give (U11)
		return nil, errors.New(strings.TrimSuffix(err.Error(), ": give the path of a file")) // regfile.Open's fix
	}
	if err != nil {
		return nil, err
	}
	if len(src) > 16<<20 {
		return nil, fmt.Errorf("%s is %d bytes, more than the 16 MiB a claims file or table may hold", path, len(src))
	}
	return src, nil
}

// errAt is an error at the line of a dotted path of the file ("claims[2].a.task").
func (f *File) errAt(path, format string, a ...any) error {
	loc := f.Path
	if n := nodeAt(f.root, path); n != nil {
		loc = fmt.Sprintf("%s:%d", f.Path, n.Line)
	}
	return fmt.Errorf("%s: %s: %s", loc, path, fmt.Sprintf(format, a...))
}

// nodeAt finds the node of a dotted path with [i] indices (yamlpath.Walk); nil when n is,
// the nearest enclosing node when a key is missing.
func nodeAt(n *yaml.Node, path string) *yaml.Node {
	steps, ok := yamlpath.Steps(strings.Split(path, ".")...)
	if n == nil || !ok {
		return n
	}
	return yamlpath.Walk(n, steps).Reached(n)
}

// check validates what the decoder cannot: required keys, kinds, references between keys.
func (f *File) check() error {
	if f.Title == "" {
		return f.errAt("title", "missing: give the document's title, e.g. title: \"kerple against alibi on copy\"")
	}
	if len(f.Tables) == 0 {
		return f.errAt("tables", "missing: name at least one per-seed table, e.g. tables: [{name: main, csv: my.csv, grid: my.yaml}]")
	}
	if f.Paper.Numbers != "" && f.Paper.Column == "" {
		f.Paper.Column = "value"
	}
	seen := map[string]bool{}
	for i, t := range f.Tables {
		p := fmt.Sprintf("tables[%d]", i)
		switch {
		case t.Name == "":
			return f.errAt(p+".name", "missing: give the table a name the claims refer to")
		case seen[t.Name]:
			return f.errAt(p+".name", "%q is given twice: give each table its own name", t.Name)
		case (t.CSV == "") == (len(t.Union) == 0):
			return f.errAt(p+".csv", "give either csv: (the per-seed CSV the table is read from) or union: (tables named before it)")
		}
		for k, u := range t.Union {
			if !seen[u] {
				return f.errAt(fmt.Sprintf("%s.union[%d]", p, k), "no table named %q before this one: name tables listed above it", u)
			}
			if slices.Index(t.Union, u) != k {
				return f.errAt(fmt.Sprintf("%s.union[%d]", p, k), "table %q is named twice: name each table once", u)
			}
		}
		if t.chooses() {
			if err := t.Choose.check(f, p+".choose"); err != nil {
				return err
			}
		}
		switch t.Variants {
		case "":
			f.Tables[i].Variants = VariantsRun
		case VariantsRun, VariantsSwept, VariantsBoth:
		default:
			return f.errAt(p+".variants", "%q: write run, swept or both", t.Variants)
		}
		seen[t.Name] = true
	}
	if err := f.Statistic.check(f, "statistic"); err != nil {
		return err
	}
	if f.Statistic.Metric == "" {
		return f.errAt("statistic.metric", "missing: write one of %s", metric.Names(metric.All(), ","))
	}
	if err := f.Statistic.checkLearned(f, "statistic"); err != nil {
		return err
	}
	if !f.Statistic.Written.Has("learned") {
		return f.errAt("statistic.learned", "missing: give the in-range score below which a cell has not learned the task (0.9 in the shipped files)")
	}
	if !f.Statistic.ranged() {
		return f.errAt("statistic", "no length range: give lengths: \"lo..hi\", past_training: k or in_range: true")
	}
	if len(f.Claims) == 0 && yamlpath.Has(f.root, "claims") {
		return f.errAt("claims", "written empty: list at least one claim, e.g. claims: [{id: r, kind: ranking, a: {task: copy, scheme: alibi}, b: {task: copy, scheme: none}}], or remove claims:")
	}
	ids := map[string]string{}
	for i := range f.Claims {
		c := &f.Claims[i]
		p := fmt.Sprintf("claims[%d]", i)
		if c.ID == "" {
			return f.errAt(p+".id", "missing: give the claim an id (follow-ups and tests name it)")
		}
		if _, dup := ids[c.ID]; dup {
			return f.errAt(p+".id", "%q is given twice: give each claim its own id", c.ID)
		}
		ids[c.ID] = c.Kind
		if kindOf(c.Kind) == nil {
			return f.errAt(p+".kind", "%q is not a kind of claim: write one of %s", c.Kind, strings.Join(kindNames(nil), ", "))
		}
		if c.Table == "" {
			c.Table = f.Tables[0].Name
		} else if !seen[c.Table] {
			return f.errAt(p+".table", "no table is named %q: name one of tables: (%s)", c.Table, f.tableNames())
		}
		if err := c.Statistic.check(f, p+".statistic"); err != nil {
			return err
		}
		if m := f.Statistic.merged(c.Statistic).Metric; lowerBetter(m) != lowerBetter(f.Statistic.Metric) && !c.Statistic.Written.Has("learned") {
			return f.errAt(p+".statistic", "its metric %s is in other units than the file's %s, so the file's learned bar %g does not apply: give the claim its own learned:", m, f.Statistic.Metric, f.Statistic.Learned)
		}
		if err := f.Statistic.merged(c.Statistic).checkLearned(f, p+".statistic"); err != nil {
			return err
		}
		if c.Paper != "" && !kindOf(c.Kind).ownPaper {
			return f.errAt(p+".paper", "a %s claim's paper number comes from its cells (their paper: or paper_value:): move it there", c.Kind)
		}
		if err := c.readKind(f, p); err != nil {
			return err
		}
		if err := c.kind.check(f, c, p); err != nil {
			return err
		}
	}
	fuIDs := map[string]bool{}
	for i, fu := range f.FollowUps {
		p := fmt.Sprintf("follow_ups[%d]", i)
		_, isClaim := ids[fu.ID]
		switch {
		case fu.ID == "":
			return f.errAt(p+".id", "missing: give the follow-up an id")
		case isClaim || fuIDs[fu.ID]:
			return f.errAt(p+".id", "%q is given twice (claims and follow-ups share their ids, the document's headings): give each its own id", fu.ID)
		case fu.Question == "":
			return f.errAt(p+".question", "missing: give the one-line question the follow-up asks")
		case len(fu.Of) == 0:
			return f.errAt(p+".of", "missing: name the claims (their ids) the follow-up re-judges")
		case len(fu.Arms) == 0:
			return f.errAt(p+".arms", "missing: give at least one arm (label, table)")
		}
		for j, id := range fu.Of {
			k, ok := ids[id]
			if !ok {
				return f.errAt(fmt.Sprintf("%s.of[%d]", p, j), "no claim has the id %q: name a claim of this file", id)
			}
			if !kindOf(k).followed {
				ns := kindNames(func(d *kindDef) bool { return d.followed })
				return f.errAt(fmt.Sprintf("%s.of[%d]", p, j), "claim %q is a %s claim: a follow-up re-judges %s or %s claims", id, k, strings.Join(ns[:len(ns)-1], ", "), ns[len(ns)-1])
			}
		}
		fuIDs[fu.ID] = true
		if heads := kindNames(func(d *kindDef) bool { _, ok := d.new().(headliner); return ok }); fu.Headline &&
			!slices.ContainsFunc(fu.Of, func(id string) bool { return slices.Contains(heads, ids[id]) }) {
			return f.errAt(p+".headline", "true, but none of the claims it re-judges (%s) has a headline (a %s claim's): remove headline:, or name such a claim in of:", strings.Join(fu.Of, ", "), strings.Join(heads, " or "))
		}
		for j, a := range fu.Arms {
			if a.Label == "" {
				return f.errAt(fmt.Sprintf("%s.arms[%d].label", p, j), "missing: give the arm a label (its column heading)")
			}
			if !seen[a.Table] {
				return f.errAt(fmt.Sprintf("%s.arms[%d].table", p, j), "no table is named %q: name one of tables: (%s)", a.Table, f.tableNames())
			}
		}
	}
	return nil
}

// tableOrder lists the tables' names in the file's order.
func (f *File) tableOrder() []string {
	var ns []string
	for _, t := range f.Tables {
		ns = append(ns, t.Name)
	}
	return ns
}

func (f *File) tableNames() string {
	var ns []string
	for _, t := range f.Tables {
		ns = append(ns, t.Name)
	}
	return strings.Join(ns, ", ")
}

func (s Statistic) ranged() bool {
	return s.Lengths != "" || s.Written.Has("past_training") || s.InRange
}

func (s Statistic) check(f *File, p string) error {
	if _, ok := metric.Get(s.Metric); s.Metric != "" && !ok {
		return f.errAt(p+".metric", "%q is not a metric: write one of %s", s.Metric, metric.Names(metric.All(), ","))
	}
	if s.Ours != "" && s.Ours != "mean" && s.Ours != "best" {
		return f.errAt(p+".ours", "%q is not a statistic: write mean (over seeds) or best (over runs)", s.Ours)
	}
	n := 0
	for _, k := range []string{"lengths", "past_training", "in_range"} {
		if s.Written.Has(k) {
			n++
		}
	}
	if n > 1 {
		return f.errAt(p, "give one of lengths, past_training and in_range, not several")
	}
	if s.Lengths != "" {
		if _, _, err := parseRange(s.Lengths); err != nil {
			return f.errAt(p+".lengths", "%v", err)
		}
	}
	if s.PastTraining < 0 || s.Written.Has("past_training") && s.PastTraining != 0 && s.PastTraining <= 1 {
		return f.errAt(p+".past_training", "%g: give k > 1 (the lengths past the longest training length L up to k·L), or 0 for every length past L", s.PastTraining)
	}
	return nil
}

// checkLearned checks the learned bar against the metric (s merged with the file's): a score
// in [0, 1] for an accuracy, a number of bits ≥ 0 for bits per byte.
func (s Statistic) checkLearned(f *File, p string) error {
	switch {
	case lowerBetter(s.Metric) && !(s.Learned >= 0):
		return f.errAt(p+".learned", "%g is not a number of bits: give the in-range %s above which a cell has not learned (≥ 0)", s.Learned, metric.Words(s.Metric))
	case !lowerBetter(s.Metric) && !(s.Learned >= 0 && s.Learned <= 1):
		return f.errAt(p+".learned", "%g is not a score: give a value in [0, 1]", s.Learned)
	}
	return nil
}

// merged is s with o's written keys in place.
func (s Statistic) merged(o Statistic) Statistic {
	if o.Metric != "" {
		s.Metric = o.Metric
	}
	if o.Ours != "" {
		s.Ours = o.Ours
	}
	if o.Written.Has("learned") {
		s.Learned = o.Learned
	}
	if o.ranged() {
		s.Lengths, s.PastTraining, s.InRange = o.Lengths, o.PastTraining, o.InRange
		s.Written = s.Written.Without("past_training")
		if o.Written.Has("past_training") {
			s.Written = s.Written.With("past_training")
		}
	}
	return s
}

// parseRange reads "lo..hi".
func parseRange(s string) (lo, hi int, err error) {
	a, b, ok := strings.Cut(s, "..")
	lo, err1 := strconv.Atoi(strings.TrimSpace(a))
	hi, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || lo < 1 || hi < lo {
		return 0, 0, errors.New(`want a range "lo..hi" of lengths with 1 ≤ lo ≤ hi, e.g. "21..40"`)
	}
	return lo, hi, nil
}
