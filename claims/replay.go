package claims

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/posformer/posformer/internal/stats"
)

// Stopped is how a sequential design judged a claim: the look it stopped at.
type Stopped struct {
	// Seeds is the claim's seeds per cell (the fewest of its cells') at the look it was decided
	// at, or, when it is still open, with every seed its tables hold.
	Seeds int
	// Decided: the claim stopped at that look; false: it is still open.
	Decided bool
	// Needed estimates, for an open claim, the seeds per cell a decision would need at the
	// observed differences and spread (stats.SeedsNeeded; 0 when there is no estimate,
	// MaxNeeded+1 for more than MaxNeeded).
	Needed int
}

// MaxNeeded is the most seeds a cell an open claim's estimate looks for.
const MaxNeeded = 100

// replay judges the file's claims as its sequential design does: a look after each seed a cell,
// in ascending seed order (the cells' first 2 runs, then 3, ...), each claim stopping at the
// first look at which it is decided (Decided) with that look's outcome; a claim still open
// after every seed its tables hold keeps the last look's. Claims the design does not judge are
// judged once on every seed (fixed n); follow-ups on every seed.
func (j *Judged) replay() (*Judged, error) {
	f := j.File
	paper, err := readPaper(f)
	if err != nil {
		return nil, err
	}
	j.seq = true
	most := 0 // the most runs a cell holds
	for _, t := range j.Tables {
		for _, n := range runsPerCell(t.rows) {
			most = max(most, n)
		}
	}
	j.Claims = make([]*Outcome, len(f.Claims))
	for i := range f.Claims {
		c := &f.Claims[i]
		path := fmt.Sprintf("claims[%d]", i)
		if !f.Sequential.judges(c) {
			if j.Claims[i], err = j.judge(c, path, paper, nil); err != nil {
				return nil, err
			}
			continue
		}
		for t := 2; t <= max(most, 2); t++ {
			o, err := j.look(t).judge(c, path, paper, nil)
			if err != nil {
				return nil, err
			}
			j.Claims[i] = o
			if o.Seq = (&Stopped{Seeds: seedsOf(o), Decided: decided(o)}); o.Seq.Decided {
				break
			}
		}
		if o := j.Claims[i]; !o.Seq.Decided {
			o.Seq.Needed = needed(o, f.Sequential.Alpha)
		}
	}
	for i := range f.FollowUps {
		fo, err := j.followUp(&f.FollowUps[i], fmt.Sprintf("follow_ups[%d]", i), paper)
		if err != nil {
			return nil, err
		}
		j.Follow = append(j.Follow, fo)
	}
	return j, nil
}

// look is the tables with each cell's first t runs (seeds ascending, then rates).
func (j *Judged) look(t int) *Judged {
	c := &Judged{File: j.File, Tables: map[string]*loaded{}, seq: true}
	for name, l := range j.Tables {
		c.Tables[name] = &loaded{Table: l.Table, d: l.d, rows: firstRuns(l.rows, t), cells: map[string]map[key]*cell{}, twice: l.twice, choices: l.choices}
	}
	return c
}

// firstRuns keeps the rows of each cell's first t runs, seeds ascending (then rates).
func firstRuns(rows []Row, t int) []Row {
	ids := map[key][]runID{}
	for _, r := range rows {
		k := r.rowKey()
		if !slices.Contains(ids[k.key], k.runID) {
			ids[k.key] = append(ids[k.key], k.runID)
		}
	}
	keep := map[key]map[runID]bool{}
	for k, rs := range ids {
		slices.SortFunc(rs, func(a, b runID) int { return cmp.Or(cmp.Compare(a.seed, b.seed), cmp.Compare(a.lr, b.lr)) })
		keep[k] = map[runID]bool{}
		for _, id := range rs[:min(t, len(rs))] {
			keep[k][id] = true
		}
	}
	var out []Row
	for _, r := range rows {
		if k := r.rowKey(); keep[k.key][k.runID] {
			out = append(out, r)
		}
	}
	return out
}

// runsPerCell counts each cell's runs.
func runsPerCell(rows []Row) map[key]int {
	ids := map[key]map[runID]bool{}
	for _, r := range rows {
		k := r.rowKey()
		if ids[k.key] == nil {
			ids[k.key] = map[runID]bool{}
		}
		ids[k.key][k.runID] = true
	}
	out := map[key]int{}
	for k, s := range ids {
		out[k] = len(s)
	}
	return out
}

// RunsPerCell counts the runs of each cell (task · scheme (variant)) of a per-seed table.
func RunsPerCell(rows []Row) map[string]int {
	out := map[string]int{}
	for k, n := range runsPerCell(rows) {
		out[k.Task+" · "+k.String()] = n
	}
	return out
}

// open tells whether a verdict leaves its comparison open: inconclusive, but not for lack of
// anything above chance.
func open(v string) bool { return classOf(v) == Inconclusive && v != Inconclusive+" (chance)" }

// decided tells whether a claim's outcome is decided: none of its comparisons is open, or its
// headline is contradicted (one contradicted pair decides a family).
func decided(o *Outcome) bool {
	if o.Headline != nil && classOf(o.Headline.Verdict) == Contradicted {
		return true
	}
	return !slices.ContainsFunc(o.Rows, func(r Comparison) bool { return open(r.Verdict) })
}

// seedsOf is the fewest runs a side of the outcome's comparisons has, of those not untested (of
// all when every one is): a comparison stopped untested takes no more seeds, so it would hold
// the claim's count back.
func seedsOf(o *Outcome) int {
	n, all := 0, 0
	for _, r := range o.Rows {
		m := rowSeeds(r)
		if m > 0 && classOf(r.Verdict) != Untested && (n == 0 || m < n) {
			n = m
		}
		if m > 0 && (all == 0 || m < all) {
			all = m
		}
	}
	return cmp.Or(n, all)
}

// rowSeeds is the fewest runs a side of a comparison has (0 without a side).
func rowSeeds(r Comparison) int {
	n := 0
	for _, s := range []*side{r.A, r.B} {
		if s != nil && (n == 0 || len(s.scores) < n) {
			n = len(s.scores)
		}
	}
	return n
}

// needed estimates the seeds per cell the open claim's open comparisons need: the most any of
// them needs (stats.SeedsNeeded on its paired differences), 0 when none has an estimate (one
// with no pair of bounded scores).
func needed(o *Outcome, alpha float64) int {
	n := 0
	for _, r := range o.Rows {
		if !open(r.Verdict) || r.decides == nil || r.A == nil || r.B == nil || !hasChance(r.A.metric) {
			continue
		}
		m := min(len(r.A.scores), len(r.B.scores))
		d := make([]float64, m)
		for i := range d {
			d[i] = r.A.scores[i] - r.B.scores[i]
		}
		n = max(n, stats.SeedsNeeded(d, -1, 1, alpha, r.decides, MaxNeeded))
	}
	return n
}

// CellRuns is a cell of a table with the seeds its runs have.
type CellRuns struct {
	Task, Scheme, Variant string
	Runs                  int
	Seeds                 []uint64
}

// seeds lists the cell's seeds, ascending.
func (c *cell) seeds() []uint64 {
	s := map[uint64]bool{}
	for _, r := range c.rows {
		s[r.Seed] = true
	}
	return slices.Sorted(maps.Keys(s))
}

// Replay judges a claims file sequentially over the seeds its tables hold, exactly as `claims
// -decide` would have stopped each claim (a file without sequential: gets the default design,
// every claim, α = 1 − stats.Level), and returns its document and a summary: per claim, the
// fixed-n verdict on every seed held beside the sequential one and the seeds a cell it used.
func Replay(path, command string) (doc, summary string, err error) {
	f, err := Load(path)
	if err != nil {
		return "", "", err
	}
	fixed := *f
	fixed.Sequential = Sequential{}
	fj, err := Judge(&fixed, nil)
	if err != nil {
		return "", "", err
	}
	if !f.Sequential.On() {
		f.Sequential = Sequential{on: true, Alpha: 1 - stats.Level, MaxSeeds: DefaultMaxSeeds}
	}
	j, err := Judge(f, nil)
	if err != nil {
		return "", "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: replayed sequentially (α = %g):\n", path, f.Sequential.Alpha)
	held, used := 0, 0
	for i, o := range j.Claims {
		if o.Seq == nil {
			continue
		}
		n := seedsOf(fj.Claims[i])
		held, used = held+n, used+o.Seq.Seeds
		how := "stopped"
		if !o.Seq.Decided {
			how = "open"
		}
		fmt.Fprintf(&b, "  %s: %s at %d of %d seeds a cell: %s (with a fixed n on all %d: %s)\n", orWord(o.Claim.ID, o.Claim.Text), how, o.Seq.Seeds, n, claimVerdict(o), n, claimVerdict(fj.Claims[i]))
	}
	fmt.Fprintf(&b, "  seeds a cell summed over the claims: %d used of %d held\n", used, held)
	return Render(j, command+" "+path), b.String(), nil
}
