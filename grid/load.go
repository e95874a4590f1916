package grid

// The finished grid's reader: Load reads what a grid (or a single run) wrote, for the report,
// the claims engine's export and the seed-by-seed decisions.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/train"
	"go.yaml.in/yaml/v3"
)

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
	Selection *Selection
}

// Load reads a grid directory (with grid.yaml) or a single run directory (with config.yaml).
func Load(dir string) (*Grid, error) {
	g := &Grid{Dir: dir}
	_, statErr := os.Stat(filepath.Join(dir, config.GridFile))
	isGrid := statErr == nil
	if isGrid {
		cfg, _, err := config.ReadWritten(filepath.Join(dir, config.GridFile))
		if err != nil {
			return nil, err
		}
		if cfg.Select.On() {
			// The grid's own cells take their group's chosen value (selection.json); before the
			// selection is made, they are all missing.
			g.Selection, err = ReadSelection(dir)
			if err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
		}
		if g.Cells, err = ExpandSelected(cfg, g.Selection); err != nil {
			return nil, err
		}
		for i := range g.Cells {
			g.Cells[i].Config.Out = dir
		}
	} else if _, err := os.Stat(filepath.Join(dir, "config.yaml")); err == nil {
		cfg, _, err := config.ReadWritten(filepath.Join(dir, "config.yaml"))
		if err != nil {
			return nil, err
		}
		cfg.Out = filepath.Dir(dir)
		cfg.Name = filepath.Base(dir)
		g.Cells = []config.Cell{{Name: cfg.Name, Config: cfg}}
	} else {
		return nil, fmt.Errorf("%s holds neither %s (a grid) nor config.yaml (a run): give the directory a grid or a run wrote", dir, config.GridFile)
	}
	g.Cells = WithEvalVariants(g.Cells)
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
		if err := checkRun(rd, c, r.Result, len(g.Cells) > 1 || c.Name != filepath.Base(dir)); err != nil {
			return nil, err
		}
		if isGrid {
			if err := TrainedAs(runDirOf(rd, c), c); errors.Is(err, config.ErrDamaged) {
				return nil, err
			} else if err != nil {
				return nil, fmt.Errorf("%w: %s was changed after training (or the run copied from another grid); restore it, or retrain the cell", err, config.GridFile)
			}
		}
		r.Cell = c
		g.Runs = append(g.Runs, r)
	}
	return g, nil
}

// TrainedAs checks that a run directory's config.yaml is the cell's config as the grid's
// grid.yaml gives it, by the fingerprint a checkpoint carries (rundir.Fingerprint: every field
// training reads): a grid.yaml edited by hand after training (steps 20 → 3000) would otherwise
// make the report state a set-up that never trained.
func TrainedAs(dir string, c config.Cell) error {
	path := filepath.Join(dir, "config.yaml")
	got, _, err := config.ReadWritten(path)
	if err != nil {
		return err
	}
	for _, v := range got.Eval.Variants { // an eval variant's cell: the run's config as the variant changes it
		if name, ok := c.Values["eval"]; ok && v.Name == name {
			got = got.VariantConfig(v)
		}
	}
	a, err := yaml.Marshal(got)
	if err != nil {
		return err
	}
	b, err := yaml.Marshal(c.Config)
	if err != nil {
		return err
	}
	if d := rundir.FingerprintDiff(rundir.Fingerprint(b), rundir.Fingerprint(a)); d != "" {
		return fmt.Errorf("%s is not what the grid's cell %s trains (%s)", path, c.Name, d)
	}
	return nil
}

// runDirOf is the training run's directory of a cell's results directory rd (an eval variant's
// results are in its run's eval-<name>/).
func runDirOf(rd string, c config.Cell) string {
	if _, ok := c.Values["eval"]; ok {
		return filepath.Dir(rd)
	}
	return rd
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
	f, err := regfile.Open(mpath)
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

// WithEvalVariants adds, after each cell with eval variants (config.EvalVariant), one cell per
// variant that applies to it: named <cell>/eval-<name> (its results' directory), with the swept
// value eval: <name> (so its group's variant reads "eval=<name>") and the variant's config.
func WithEvalVariants(cells []config.Cell) []config.Cell {
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

// checkRun checks that a run's results.json is the cell's (its own name, task, scheme and seed;
// the name only for a grid's cell) and that every number in it is in range: scores in [0, 1],
// counts and lengths not negative, in_range as the training lengths say. A file copied from
// another cell or edited by hand is refused, naming both.
func checkRun(dir string, c config.Cell, r *train.Result, inGrid bool) error {
	name := c.Name
	if r.Variant != "" {
		name = filepath.Dir(c.Name)
	}
	fix := "retrain the cell (train -config <grid>.yaml -resume) or restore its directory"
	switch {
	case inGrid && r.Name != name:
		return fmt.Errorf("%s/results.json names the run %q, but its directory is the cell %q: %s", dir, r.Name, name, fix)
	case r.Task != c.Config.Task.Name || r.Scheme != c.Config.Position.Kind || r.Seed != c.Config.Seed:
		return fmt.Errorf("%s/results.json is %s · %s · seed %d, but its cell is %s · %s · seed %d: %s", dir, r.Task, r.Scheme, r.Seed,
			c.Config.Task.Name, c.Config.Position.Kind, c.Config.Seed, fix)
	case r.MinLen < 1 || r.MaxLen < r.MinLen || r.Steps < 0 || r.BestStep < 0 || r.StopStep < 0:
		return fmt.Errorf("%s/results.json: training lengths %d..%d or steps %d out of range: %s", dir, r.MinLen, r.MaxLen, r.Steps, fix)
	}
	score := func(x float64) bool { return math.IsNaN(x) || x >= 0 && x <= 1 }
	if !score(r.BestScore) {
		return fmt.Errorf("%s/results.json: a summary score %g is outside [0, 1]: %s", dir, r.BestScore, fix)
	}
	for _, l := range r.Lengths {
		inRange := data.InRange(r.Task, l.Length, r.MinLen, r.MaxLen)
		exact, token := l.Score(metric.ExactMatch), l.Score(metric.TokenAccuracy)
		if l.Length < 1 || l.N < 0 || !score(exact) || !score(token) || l.InRange != inRange {
			return fmt.Errorf("%s/results.json: length %d (n %d, exact match %g, token accuracy %g, in_range %v) is out of range: %s",
				dir, l.Length, l.N, exact, token, l.InRange, fix)
		}
	}
	return nil
}
