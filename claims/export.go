package claims

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/grid"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/train"
	"go.yaml.in/yaml/v3"
)

// Variant naming of an exported table (Table.Variants): how a row's variant is named from its
// run and its grid cell.
const (
	VariantsRun   = "run"   // train.ResultVariant: the run's resolved non-default scheme and eval options
	VariantsSwept = "swept" // config.GroupOf: the cell's swept values other than task, scheme, seed
	VariantsBoth  = "both"  // the run's, then the swept values it does not already name
)

// GridDir is where a table's grid is looked for under runs: where `train -config <grid> -out
// runs` writes it (config.GridDir: runs/<the config's name:>, whatever the file is called).
func GridDir(runs string, t Table) (string, error) {
	cfg, _, err := config.Read(nil, t.Grid, nil)
	if err != nil {
		return "", err
	}
	cfg.Out = runs
	return config.GridDir(cfg), nil
}

// Export reads the finished grid of a table under runs, checks that it is the grid its config
// describes and that every cell finished, and returns the table's CSV. It never trains; the
// error says which command does.
func Export(runs string, t Table) ([]byte, error) {
	if t.Grid == "" {
		return nil, fmt.Errorf("table %s names no grid: it is not exported (give grid: <config>.yaml)", t.Name)
	}
	cfg, want, err := config.Read(nil, t.Grid, nil)
	if err != nil {
		return nil, err
	}
	cfg.Out = runs
	dir := config.GridDir(cfg)
	train1 := fmt.Sprintf("go run ./cmd/train -config %s -out %s -jobs 2", t.Grid, runs)
	if _, err := os.Stat(filepath.Join(dir, config.GridFile)); err != nil {
		return nil, fmt.Errorf("%s holds no finished grid of %s (%v): train it with `%s`", dir, t.Grid, err, train1)
	}
	if err := sameGrid(t.Grid, want, filepath.Join(dir, config.GridFile)); err != nil {
		return nil, err
	}
	g, err := grid.Load(dir) // which checks every run was trained as its cell (grid.TrainedAs)
	if err != nil {
		return nil, err
	}
	if len(g.Missing) > 0 {
		return nil, fmt.Errorf("%s: %d of %d runs missing (%s, ...): finish them with `%s -resume`", dir, len(g.Missing), len(g.Cells), g.Missing[0], train1)
	}
	rows, dirs := sourcedRows(g, t.Variants)
	csv := TableCSV(rows)
	if err := checkExported(t, dir, csv, rows, dirs, train1); err != nil {
		return nil, err
	}
	return csv, nil
}

// sameGrid checks that a grid directory's grid.yaml describes the cells the config at
// configPath expands to (config.Read, as the grid command reads it).
func sameGrid(configPath string, cells []config.Cell, gridPath string) error {
	_, written, err := config.ReadWritten(gridPath)
	if err != nil {
		return err
	}
	want, err := cellTexts(cells)
	if err != nil {
		return err
	}
	got, err := cellTexts(written)
	if err != nil {
		return err
	}
	if len(want) != len(got) {
		return fmt.Errorf("%s has %d cells, %s %d: the directory holds another grid; train %s into its own -out", gridPath, len(got), configPath, len(want), configPath)
	}
	for i := range want {
		if want[i] != got[i] {
			return fmt.Errorf("%s is not the grid of %s (cell %d differs: %s): the directory holds another grid or an edited grid.yaml; train %s into its own -out",
				gridPath, configPath, i+1, firstDiff(want[i], got[i]), configPath)
		}
	}
	return nil
}

// cellTexts are a grid's cells as name + resolved config text (out and name aside).
func cellTexts(cells []config.Cell) ([]string, error) {
	var out []string
	for _, c := range cells {
		cc := c.Config
		cc.Out, cc.Name = "", ""
		y, err := yaml.Marshal(cc)
		if err != nil {
			return nil, err
		}
		out = append(out, c.Name+"\n"+string(y))
	}
	return out, nil
}

// firstDiff names the first line where two texts differ.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("%q against %q", strings.TrimSpace(la[i]), strings.TrimSpace(lb[i]))
		}
	}
	return "lengths differ"
}

// rowsOf lists a grid's finished runs as table rows, sorted by task, scheme, variant, seed,
// rate and length.
func rowsOf(g *grid.Grid, naming string) []Row {
	rows, _ := sourcedRows(g, naming)
	return rows
}

// sourcedRows is rowsOf with, for each row, the directory of the run it came from.
func sourcedRows(g *grid.Grid, naming string) ([]Row, []string) {
	var rows []Row
	var dirs []string
	for i, run := range g.Runs {
		if run == nil {
			continue
		}
		c, r := g.Cells[i].Config, run.Result
		variant := train.ResultVariant(c, r)
		switch naming {
		case VariantsSwept:
			variant = config.GroupOf(g.Cells[i]).Variant
		case VariantsBoth:
			variant = unionVariant(variant, config.GroupOf(g.Cells[i]).Variant)
		}
		lengths := r.Lengths
		diverged := 0
		if r.Diverged != nil {
			// a diverged run has no scores: one row per tested length, each saying at which step
			// it diverged (its scores 0, never read as a result: diverged_step)
			diverged, lengths = max(r.Diverged.Step, 1), nil
			for _, L := range c.Eval.Lengths {
				lengths = append(lengths, train.LengthResult{Length: L, InRange: data.InRange(c.Task.Name, L, c.Task.MinLen, c.Task.MaxLen)})
			}
		}
		for _, l := range lengths {
			scores := map[string]float64{}
			for _, m := range metric.Scored() {
				scores[m.Name] = l.Score(m.Name)
			}
			for _, m := range metric.For(c.Task.Name) {
				scores[m.Name] = l.Score(m.Name)
			}
			ce, ct := metric.Chance(c.Task.Name, c.TaskOptions(), l.Length)
			rows = append(rows, Row{ChanceExact: ce, ChanceToken: ct, Task: c.Task.Name, Scheme: c.Position.Kind, Variant: variant, Seed: c.Seed,
				LengthResult: train.LengthResult{Length: l.Length, InRange: l.InRange, Scores: scores, N: l.N},
				LR:           c.Train.LR, Steps: c.Train.Steps, BestStep: r.BestStep, StopStep: r.StopStep, MinLen: c.Task.MinLen, MaxLen: c.Task.MaxLen,
				BestScore: r.BestScore, DivergedStep: diverged})
			dirs = append(dirs, run.Dir)
		}
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := rows[i], rows[j]
		return cmp.Or(strings.Compare(a.Task, b.Task), strings.Compare(a.Scheme, b.Scheme), strings.Compare(a.Variant, b.Variant),
			cmp.Compare(a.Seed, b.Seed), cmp.Compare(a.LR, b.LR), cmp.Compare(a.Length, b.Length))
	})
	sorted, from := make([]Row, len(rows)), make([]string, len(rows))
	for k, i := range order {
		sorted[k], from[k] = rows[i], dirs[i]
	}
	return sorted, from
}

// unionVariant is variant a followed by the parts of b ("k=v", comma-separated) a lacks.
func unionVariant(a, b string) string {
	var parts []string
	for _, p := range strings.Split(a+","+b, ",") {
		if p != "" && !slices.Contains(parts, p) {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ",")
}
