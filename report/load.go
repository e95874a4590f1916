// Package report turns run directories into a report: aggregate tables over seeds (report.md,
// summary.csv, by_length.csv) and plots as PNG and SVG (exact match against length, training
// loss, position tables and similarities). It reads only what runs wrote, so a report can be
// regenerated at any time without retraining, and it says which cells are still missing.
package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"

	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/train"
	"github.com/posformer/posformer/train/config"
)

// GridFile is the name of the grid's own config, written at the top of its directory.
const GridFile = config.GridFile

// Run is one finished cell.
type Run struct {
	Cell    config.Cell
	Dir     string
	Result  *train.Result
	Metrics []train.Metric
	// Diagnostics are what the run's evaluation gathered besides the scores; nil for a run from
	// before posformer gathered them.
	Diagnostics *train.Diagnostics
}

// Grid is what a directory holds: the cells it should have and the runs it does have.
type Grid struct {
	Dir     string
	Cells   []config.Cell
	Runs    []*Run // aligned with Cells; nil where a cell has not finished
	Missing []string
	// Selection is the grid's select: choice (selection.json), nil without one.
	Selection *config.Selection
}

// Load reads a grid directory (with grid.yaml) or a single run directory (with config.yaml).
func Load(dir string) (*Grid, error) {
	g := &Grid{Dir: dir}
	if _, err := os.Stat(filepath.Join(dir, GridFile)); err == nil {
		cfg, err := config.Load(filepath.Join(dir, GridFile), nil)
		if err != nil {
			return nil, err
		}
		if cfg.Select.On() {
			// The grid's own cells take their group's chosen value (selection.json); before the
			// selection is made, they are all missing.
			g.Selection, err = grid.ReadSelection(dir)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
		}
		if g.Cells, err = config.ExpandSelected(cfg, g.Selection); err != nil {
			return nil, err
		}
		for i := range g.Cells {
			g.Cells[i].Config.Out = dir
		}
	} else if _, err := os.Stat(filepath.Join(dir, "config.yaml")); err == nil {
		cfg, err := config.Load(filepath.Join(dir, "config.yaml"), nil)
		if err != nil {
			return nil, err
		}
		cfg.Out = filepath.Dir(dir)
		cfg.Name = filepath.Base(dir)
		g.Cells = []config.Cell{{Name: cfg.Name, Config: cfg}}
	} else {
		return nil, fmt.Errorf("%s holds neither %s (a grid) nor config.yaml (a run): give the directory a grid or a run wrote", dir, GridFile)
	}
	g.Cells = withEvalVariants(g.Cells)
	for _, c := range g.Cells {
		rd := filepath.Join(c.Config.Out, c.Name)
		r, err := loadRun(rd)
		if errors.Is(err, os.ErrNotExist) {
			g.Runs = append(g.Runs, nil)
			g.Missing = append(g.Missing, c.Name)
			continue
		}
		if err != nil {
			return nil, err
		}
		r.Cell = c
		g.Runs = append(g.Runs, r)
	}
	return g, nil
}

func loadRun(dir string) (*Run, error) {
	res, err := train.ReadResult(dir)
	if err != nil {
		return nil, err
	}
	r := &Run{Dir: dir, Result: res}
	if r.Diagnostics, err = train.ReadDiagnostics(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	mpath := filepath.Join(dir, "metrics.jsonl")
	if res.Variant != "" { // an eval variant: the training is its run's
		mpath = filepath.Join(filepath.Dir(dir), "metrics.jsonl")
	}
	f, err := os.Open(mpath)
	if errors.Is(err, os.ErrNotExist) {
		return r, nil // a finished run (results.json is written last) whose log is gone: no loss curve
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		var m train.Metric
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return nil, fmt.Errorf("%s is damaged at line %d (%w): delete it, and the run is reported without its loss curve (its results stand)", mpath, line, err)
		}
		r.Metrics = append(r.Metrics, m)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", mpath, err)
	}
	return r, nil
}

// Results returns the finished results aligned with Cells (nil where missing).
func (g *Grid) Results() []*train.Result {
	out := make([]*train.Result, len(g.Runs))
	for i, r := range g.Runs {
		if r != nil {
			out[i] = r.Result
		}
	}
	return out
}

// withEvalVariants adds, after each cell with eval variants (config.EvalVariant), one cell per
// variant that applies to it: named <cell>/eval-<name> (its results' directory), with the swept
// value eval: <name> (so its group's variant reads "eval=<name>") and the variant's config.
func withEvalVariants(cells []config.Cell) []config.Cell {
	var out []config.Cell
	for _, c := range cells {
		out = append(out, c)
		for _, v := range c.Config.ActiveVariants() {
			vc := c
			vc.Name = filepath.Join(c.Name, rundir.VariantDir(v.Name))
			vc.Values = maps.Clone(c.Values)
			if vc.Values == nil {
				vc.Values = map[string]string{}
			}
			vc.Values["eval"] = v.Name
			vc.Config = c.Config.VariantConfig(v)
			out = append(out, vc)
		}
	}
	return out
}
