package claims

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/train"
	"go.yaml.in/yaml/v3"
)

// What `claims -decide` needs of the engine: which cells the open claims of a sequential design
// need another seed of (Want), the runs that make those seeds (NextLook: the cells of the table's
// grid with the seed sweep extended, exactly the runs the grid would make with those seeds), and
// the finished runs' rows added to each table (Collect). Training itself is the caller's
// (cmd/train, through package grid): the engine never trains.

// SeedsDir is where `claims -decide` trains a table's new seeds under -runs: the grid's
// directory name with this suffix (its own grid.yaml: the grid with its seed list extended).
const SeedsDir = "-seeds"

// Want is a cell an open claim needs more runs of, and how many it needs in all.
type Want struct {
	Table string
	CellRuns
	Need int // runs the cell needs for the next look (at most the design's max_seeds)
	// Converge: the cell's runs are trained to convergence (converge.go): its seeds held again
	// when Redo (it did not learn at the grid's steps), and its new seeds.
	Converge bool
	Redo     bool
}

// Wants lists the cells the open claims need another seed of: for each open comparison of an
// open claim of the sequential design with fewer than max seeds a cell, each of its cells up to
// one run more than the comparison has; a cell shared by comparisons needs the most any of them
// needs.
func (j *Judged) Wants(maxSeeds int) []Want { return j.wants(maxSeeds, false) }

// WorstCase is Wants with every open claim's cells wanted to maxSeeds: what the design trains
// at most from here.
func (j *Judged) WorstCase(maxSeeds int) []Want { return j.wants(maxSeeds, true) }

func (j *Judged) wants(maxSeeds int, worst bool) []Want {
	need := map[string]*Want{}
	var order []string
	for _, o := range j.Claims {
		if o.Seq == nil || o.Seq.Decided || o.Seq.Seeds >= maxSeeds {
			continue
		}
		for _, r := range o.Rows {
			if !open(r.Verdict) || rowSeeds(r) >= maxSeeds {
				continue
			}
			sides := []*side{r.A, r.B}
			if rv, ok := r.more.([]*side); ok { // ahead_of_all: its rivals
				sides = append(sides, rv...)
			}
			for _, s := range sides {
				if s == nil {
					continue
				}
				id := o.Claim.Table + "\x00" + s.k.Task + "\x00" + s.k.String()
				if need[id] == nil {
					seeds := j.Tables[o.Claim.Table].cellsFor(s.metric)[s.k].seeds()
					need[id] = &Want{Table: o.Claim.Table, CellRuns: CellRuns{Task: s.k.Task, Scheme: s.k.Scheme, Variant: s.k.Variant, Runs: len(seeds), Seeds: seeds}}
					order = append(order, id)
				}
				next := min(rowSeeds(r)+1, maxSeeds) // one seed more than the open comparison has
				if worst {
					next = maxSeeds
				}
				need[id].Need = max(need[id].Need, next)
			}
		}
	}
	if cv := j.File.Sequential.Converge; cv.On() { // cells that did not learn: trained again to convergence
		for _, o := range j.Claims {
			if o.Seq == nil || classOf(claimVerdict(o)) != Untested {
				continue
			}
			for _, r := range o.Rows {
				sides := []*side{r.A, r.B}
				if rv, ok := r.more.([]*side); ok {
					sides = append(sides, rv...)
				}
				for _, s := range sides {
					if s == nil || !notLearned(o.Stat.Metric, meanOf(s.in), o.Stat.Learned) || len(s.diverged) > 0 {
						continue
					}
					c := j.Tables[o.Claim.Table].cellsFor(s.metric)[s.k]
					if cv.converged(c) {
						continue // converged and still not learned: the claim's answer
					}
					id := o.Claim.Table + "\x00" + s.k.Task + "\x00" + s.k.String()
					if need[id] == nil {
						need[id] = &Want{Table: o.Claim.Table, CellRuns: CellRuns{Task: s.k.Task, Scheme: s.k.Scheme, Variant: s.k.Variant, Runs: len(c.seeds()), Seeds: c.seeds()}}
						order = append(order, id)
					}
					need[id].Converge, need[id].Redo = true, true
				}
			}
		}
	}
	var out []Want
	for _, id := range order {
		w := need[id]
		if c := j.Tables[w.Table].cellsFor(j.File.Statistic.Metric)[key{w.Task, w.Scheme, w.Variant}]; c != nil && j.File.Sequential.Converge.converged(c) {
			w.Converge = true // a converged cell's new seeds converge too
		}
		if w.Need > w.Runs || w.Redo {
			out = append(out, *w)
		}
	}
	slices.SortStableFunc(out, func(a, b Want) int {
		return cmp.Or(cmp.Compare(a.Table, b.Table), cmp.Compare(a.Task, b.Task), cmp.Compare(a.Scheme, b.Scheme), cmp.Compare(a.Variant, b.Variant))
	})
	return out
}

// NextSeeds are the seeds a wanted cell's next runs have: after its largest seed, ascending,
// as many as it lacks.
func (w Want) NextSeeds() []uint64 {
	var last uint64
	if len(w.Seeds) > 0 {
		last = w.Seeds[len(w.Seeds)-1]
	}
	var out []uint64
	if w.Redo {
		out = slices.Clone(w.Seeds)
	}
	for s := last + 1; s <= last+uint64(max(w.Need-w.Runs, 0)); s++ {
		out = append(out, s)
	}
	return out
}

// Look is the training of one look: per table, its seeds grid and the cells to train there.
type Look struct {
	Tables []LookTable
}

// LookTable is a table's share of a look.
type LookTable struct {
	Table Table
	// Grid is the table's grid config with its seed sweep extended to every seed wanted, named
	// <grid name>-seeds (its directory under -runs: Dir); Cells are the runs to train there.
	Grid  config.Config
	Dir   string
	Cells []config.Cell
}

// Runs counts the runs of the look: a run that two tables sharing a grid both want (one seeds
// directory) once.
func (l *Look) Runs() int {
	seen := map[string]bool{}
	for _, t := range l.Tables {
		for _, c := range t.Cells {
			seen[filepath.Join(t.Dir, c.Name)] = true
		}
	}
	return len(seen)
}

// NextLook is the runs that give the wanted cells their next seeds, each a cell of its table's
// grid with the seed sweep extended (so exactly the run the grid would make with that seed),
// trained under runs in the table's seeds directory. Every table with a wanted cell must name
// its grid (grid:), sweep no select: and choose no rate (choose:): else an error naming the key.
func (f *File) NextLook(wants []Want, runs string) (*Look, error) {
	type group struct {
		table    string
		converge bool
	}
	by := map[group][]Want{}
	var names []group
	for _, w := range wants {
		g := group{w.Table, w.Converge}
		if by[g] == nil {
			names = append(names, g)
		}
		by[g] = append(by[g], w)
	}
	look := &Look{}
	for _, gr := range names {
		name := gr.table
		ti := slices.IndexFunc(f.Tables, func(t Table) bool { return t.Name == name })
		t := f.Tables[ti]
		path := fmt.Sprintf("tables[%d]", ti)
		switch {
		case t.Grid == "":
			return nil, f.errAt(path, "table %s names no grid: -decide trains a table's new seeds through its grid: give grid: <config>.yaml", t.Name)
		case t.chooses():
			return nil, f.errAt(path+".choose", "-decide does not train a table that chooses a rate per cell: judge it with a fixed n, or sweep one rate")
		}
		cfg, _, err := config.Read(nil, t.Grid, nil)
		if err != nil {
			return nil, err
		}
		if cfg.Select.On() {
			return nil, f.errAt(path+".grid", "%s has select:, whose tuning runs -decide does not make: train its seeds with the grid itself", t.Grid)
		}
		var seeds []uint64
		for _, w := range by[gr] {
			if n := uint64(max(w.Need-w.Runs, 0)); len(w.Seeds) > 0 && w.Seeds[len(w.Seeds)-1] > math.MaxUint64-n {
				return nil, f.errAt(path, "cell %s · %s's largest seed is %d: -decide gives a cell the seeds after its largest, and there are not %d more; sweep smaller seeds in %s", w.Task, key{w.Task, w.Scheme, w.Variant}, w.Seeds[len(w.Seeds)-1], n, t.Grid)
			}
			for _, s := range w.NextSeeds() {
				if !slices.Contains(seeds, s) {
					seeds = append(seeds, s)
				}
			}
		}
		g, err := seedsGrid(cfg, seeds, runs)
		if gr.converge {
			if cv := f.Sequential.Converge; cfg.WithDefaults().Train.Steps == cv.MaxSteps {
				return nil, f.errAt("sequential.converge.max_steps", "%d is the grid's own train.steps: a converged run must be told from a fixed-step one; give a larger cap", cv.MaxSteps)
			}
			g, err = f.convergeGrid(cfg, seeds, runs)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Grid, err)
		}
		cells, err := config.Expand(g)
		if err != nil {
			return nil, fmt.Errorf("%s with its seeds extended: %w", t.Grid, err)
		}
		lt := LookTable{Table: t, Grid: g, Dir: config.GridDir(g)}
		for _, c := range cells {
			if trainsAny(c, t.Variants, by[gr]) {
				lt.Cells = append(lt.Cells, c)
			}
		}
		for _, w := range by[gr] { // every wanted seed has its run
			for _, s := range w.NextSeeds() {
				if !slices.ContainsFunc(lt.Cells, func(c config.Cell) bool { return c.Config.Seed == s && producesCell(c, t.Variants, w) }) {
					return nil, f.errAt(path, "no cell of %s makes %s · %s with seed %d: the table's rows and its grid disagree; export the table from its grid again", t.Grid, w.Task, key{w.Task, w.Scheme, w.Variant}, s)
				}
			}
		}
		look.Tables = append(look.Tables, lt)
	}
	return look, nil
}

// seedsGrid is the grid config cfg with its seed sweep holding its own seeds and seeds, named
// <its name>-seeds, under runs.
func seedsGrid(cfg config.Config, seeds []uint64, runs string) (config.Config, error) {
	g := cfg
	g.Sweep = slices.Clone(cfg.Sweep)
	g.Name = cfg.GridName() + SeedsDir
	g.Written = g.Written.With("name")
	g.Out = runs
	i := slices.IndexFunc(g.Sweep, func(a config.Axis) bool { return a.Path == "seed" })
	var have []uint64
	if i < 0 {
		return g, fmt.Errorf("sweeps no seed: -decide adds seeds to the grid's seed: list; sweep seed: [%d]", cfg.Seed)
	}
	ax := config.Axis{Path: "seed", Values: slices.Clone(g.Sweep[i].Values)}
	for _, v := range ax.Values {
		s, err := strconv.ParseUint(v.Value, 10, 64)
		if err != nil {
			return g, fmt.Errorf("sweep.seed: %q is not a seed", v.Value)
		}
		have = append(have, s)
	}
	for _, s := range seeds {
		if !slices.Contains(have, s) {
			ax.Values = append(ax.Values, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(s, 10)})
		}
	}
	g.Sweep[i] = ax
	return g, nil
}

// trainsAny tells whether the run of grid cell c makes a row of one of the wanted cells with a
// seed it lacks.
func trainsAny(c config.Cell, naming string, wants []Want) bool {
	for _, w := range wants {
		if slices.Contains(w.NextSeeds(), c.Config.Seed) && producesCell(c, naming, w) {
			return true
		}
	}
	return false
}

// producesCell tells whether the run of grid cell c has rows of the wanted cell: its own, or an
// eval variant's (grid.WithEvalVariants), named as the table names variants.
func producesCell(c config.Cell, naming string, w Want) bool {
	if c.Config.Task.Name != w.Task || c.Config.Position.Kind != w.Scheme {
		return false
	}
	for _, vc := range grid.WithEvalVariants([]config.Cell{c}) {
		var r *train.Result
		if v, ok := vc.Values["eval"]; ok {
			r = &train.Result{Variant: "eval=" + v}
		}
		if rowVariant(vc, naming, r) == w.Variant {
			return true
		}
	}
	return false
}

// rowVariant is the variant a run's rows carry in a table that names variants by naming (the
// run's result r: its eval variant).
func rowVariant(c config.Cell, naming string, r *train.Result) string {
	variant := train.ResultVariant(c.Config, r)
	switch naming {
	case VariantsSwept:
		variant = config.GroupOf(c).Variant
	case VariantsBoth:
		variant = unionVariant(variant, config.GroupOf(c).Variant)
	}
	return variant
}

// WriteGrid writes the look table's seeds grid.yaml (the grid every run of its directory was
// trained as), creating the directory; a directory whose grid.yaml is another grid is refused
// (sameGrid) before anything is trained in it.
func (lt LookTable) WriteGrid() error {
	src, err := config.MarshalGrid(lt.Grid)
	if err != nil {
		return err
	}
	if err := lt.sameGrid(src); err != nil {
		return err
	}
	if err := os.MkdirAll(lt.Dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w (choose a writable -runs)", lt.Dir, err)
	}
	return rundir.WriteFileAtomic(filepath.Join(lt.Dir, config.GridFile), src)
}

// Collect adds to each table of the file that names a grid the rows of the finished runs in its
// seeds directory under runs (NextLook's) that the table does not hold yet (a run the table
// holds, by task, scheme, variant, seed and rate, keeps its rows as they are), and returns the
// tables whose content changed, by path, with the number of runs added to each.
func (f *File) Collect(runs string) (map[string][]byte, map[string]int, error) {
	out, added := map[string][]byte{}, map[string]int{}
	for _, t := range f.Tables {
		if t.Grid == "" || t.CSV == "" {
			continue
		}
		cfg, _, err := config.Read(nil, t.Grid, nil)
		if err != nil {
			return nil, nil, err
		}
		dir := filepath.Join(runs, cfg.GridName()+SeedsDir)
		conv := filepath.Join(runs, cfg.GridName()+ConvergeDir)
		var fresh, converged []Row // the finished runs' rows
		for _, d := range []string{dir, conv} {
			if _, err := os.Stat(filepath.Join(d, config.GridFile)); errors.Is(err, os.ErrNotExist) {
				continue
			}
			g, err := grid.Load(d)
			if err != nil {
				return nil, nil, err
			}
			if d == conv {
				converged = rowsOf(g, t.Variants)
			} else {
				fresh = rowsOf(g, t.Variants)
			}
		}
		if fresh == nil && converged == nil {
			continue
		}
		rows, err := ReadTable(t.CSV)
		if errors.Is(err, os.ErrNotExist) { // Bootstrap's: the grid's own seeds, once every one is done
			if g, err := grid.Load(dir); err != nil || len(g.Missing) > 0 {
				continue
			}
			rows, err = nil, nil
		}
		if err != nil {
			return nil, nil, err
		}
		rows, swapped := f.withConverged(rows, converged)
		held := map[string]bool{}
		for _, r := range rows {
			held[runKey(r)] = true
		}
		n := map[string]bool{}
		for _, r := range fresh {
			if !held[runKey(r)] && !slices.ContainsFunc(rows, func(x Row) bool { return x.rowKey().key == r.rowKey().key && x.Steps != r.Steps }) {
				rows = append(rows, r) // a cell's fixed-step seeds, unless it holds converged ones
				n[runKey(r)] = true
			}
		}
		for _, k := range swapped {
			n[k] = true
		}
		if len(n) == 0 {
			continue
		}
		slices.SortStableFunc(rows, func(a, b Row) int {
			return cmp.Or(strings.Compare(a.Task, b.Task), strings.Compare(a.Scheme, b.Scheme), strings.Compare(a.Variant, b.Variant),
				cmp.Compare(a.Seed, b.Seed), cmp.Compare(a.LR, b.LR), cmp.Compare(a.Length, b.Length))
		})
		out[t.CSV], added[t.CSV] = TableCSV(rows), len(n)
	}
	return out, added, nil
}

// runKey names a row's run: task, scheme, variant, seed and rate.
func runKey(r Row) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%g", r.Task, r.Scheme, r.Variant, r.Seed, r.LR)
}

// Bootstrap is the first look of a file whose tables have no CSV yet: every cell of each such
// table's grid at the seeds it sweeps, trained in its seeds directory (Collect then writes the
// CSV). nil when every table has its CSV.
func (f *File) Bootstrap(runs string) (*Look, error) {
	look := &Look{}
	for i, t := range f.Tables {
		if t.Grid == "" || t.CSV == "" {
			continue
		}
		if _, err := os.Stat(t.CSV); !errors.Is(err, os.ErrNotExist) {
			continue
		}
		cfg, _, err := config.Read(nil, t.Grid, nil)
		if err != nil {
			return nil, err
		}
		if cfg.Select.On() {
			return nil, f.errAt(fmt.Sprintf("tables[%d].grid", i), "%s has select:, whose tuning runs -decide does not make: train the grid itself, then export its table (claims -export)", t.Grid)
		}
		g, err := seedsGrid(cfg, nil, runs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Grid, err)
		}
		cells, err := config.Expand(g)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Grid, err)
		}
		look.Tables = append(look.Tables, LookTable{Table: t, Grid: g, Dir: config.GridDir(g), Cells: cells})
	}
	if len(look.Tables) == 0 {
		return nil, nil
	}
	return look, nil
}

// withConverged puts the converged runs' rows (converge.go) in the table's rows: a cell all of
// whose seeds held have a converged run holds the converged rows instead (and any further
// converged seeds); a cell some of whose seeds have none yet keeps its rows. It returns the rows
// and the runs put in.
func (f *File) withConverged(rows, converged []Row) ([]Row, []string) {
	by := map[key][]Row{}
	for _, r := range converged {
		by[r.rowKey().key] = append(by[r.rowKey().key], r)
	}
	var added []string
	for k, conv := range by {
		have := map[uint64]bool{}
		for _, r := range conv {
			have[r.Seed] = true
		}
		covered := true
		for _, r := range rows {
			if r.rowKey().key == k && !have[r.Seed] {
				covered = false
			}
		}
		if !covered {
			continue
		}
		held := map[string]bool{}
		rows = slices.DeleteFunc(rows, func(r Row) bool { // the fixed-step rows go
			drop := r.rowKey().key == k && r.Steps != f.Sequential.Converge.MaxSteps
			if !drop && r.rowKey().key == k {
				held[runKey(r)] = true
			}
			return drop
		})
		for _, r := range conv {
			if !held[runKey(r)] {
				rows = append(rows, r)
				if !slices.Contains(added, runKey(r)) {
					added = append(added, runKey(r))
				}
			}
		}
	}
	return rows, added
}

// sameGrid refuses a seeds directory whose grid.yaml (written by an earlier look) is another grid
// than src but for the seed list, which each look extends: the table's grid edited between
// looks, or the directory another grid's. Training the look there would mix runs of two grids,
// and overwriting its grid.yaml would leave the earlier runs unreadable even once the grid is
// restored.
func (lt LookTable) sameGrid(src []byte) error {
	path := filepath.Join(lt.Dir, config.GridFile)
	old, err := regfile.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	a, b := runFields(old), runFields(src)
	if a == b {
		return nil
	}
	return fmt.Errorf("%s is not the grid its seeds in %s were trained as (%s): it was edited since an earlier look, or the directory holds another grid's runs; restore %s as it was, or move %s away to train the seeds again", lt.Table.Grid, lt.Dir, rundir.FingerprintDiff(a, b), lt.Table.Grid, lt.Dir)
}

// runFields are a grid.yaml's fields that its runs depend on: all but out:, tfevents: (where
// the runs are, whether they write an event file) and the seed list.
func runFields(grid []byte) string {
	var keep []string
	for _, l := range strings.Split(rundir.GridFields(grid), "\n") {
		if !strings.HasPrefix(l, "sweep.seed: ") && !strings.HasPrefix(l, "tfevents: ") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
