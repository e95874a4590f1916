package grid

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/train"
)

// SelectionFile is the file, in a grid directory, recording the selection (Selection).
const SelectionFile = "selection.json"

// LearnedScore is the validation score at which a group counts as having learned the task in
// range (report.LearnedThreshold is the same number for test scores).
const LearnedScore = 0.9

// Choose scores the finished tuning runs (train.ValidationScore) and picks each group's value:
// the highest mean score over the tuning seeds, ties to the value listed first. A value any
// tuning run of which diverged loses (SelectionGroup.Diverged); a group whose every value
// diverged is an error. Every tuning run must be finished.
func Choose(c config.Config, cells []config.Cell) (*Selection, error) {
	s := c.Select.WithDefaults()
	sel := &Selection{Field: s.Field, Values: s.Values, Metric: s.Metric, Seeds: s.Seeds}
	groups, order := map[string]*SelectionGroup{}, []string{} // by TuningGroup, in cell order
	for _, cell := range cells {
		dir := filepath.Join(cell.Config.Out, cell.Name)
		key := TuningGroup(cell.Values, s.Field)
		v, _ := strconv.ParseFloat(cell.Values[s.Field], 64)
		j := slices.Index(s.Values, v)
		g := groups[key]
		if g == nil {
			vals := map[string]string{}
			for k, v := range cell.Values {
				if k != "seed" && k != s.Field {
					vals[k] = v
				}
			}
			g = &SelectionGroup{Values: vals, Scores: make([]float64, len(s.Values))}
			groups[key], order = g, append(order, key)
		}
		if res, err := train.ReadResult(dir); err == nil && res.Diverged != nil {
			if g.Diverged == nil {
				g.Diverged = make([]bool, len(s.Values))
			}
			g.Diverged[j] = true
		}
		if g.Diverged == nil || !g.Diverged[j] { // a value any seed of which diverged loses
			score, err := train.ValidationScore(dir, s.Metric)
			if err != nil {
				return nil, fmt.Errorf("select: tuning run %s: %w", dir, err)
			}
			g.Scores[j] += score // the sum over the seeds, then their mean
		}
	}
	for _, key := range order {
		g := groups[key]
		for j := range s.Values {
			g.Scores[j] /= float64(len(s.Seeds))
			if g.Diverged != nil && g.Diverged[j] {
				g.Scores[j] = 0 // it loses: bestIndex skips it
			}
		}
		best := bestIndex(g.Scores, g.Diverged)
		if best < 0 {
			return nil, fmt.Errorf("select: every candidate %s of the group %s diverged in training: give smaller values in select.values", s.Field, strings.ReplaceAll(key, "\n", ", "))
		}
		g.Chosen, g.Learned = s.Values[best], g.Scores[best] >= LearnedScore
		sel.Groups = append(sel.Groups, *g)
	}
	return sel, nil
}

// WriteSelection writes selection.json in a grid directory.
func WriteSelection(gridDir string, sel *Selection) error {
	b, err := json.MarshalIndent(sel, "", "  ")
	if err != nil {
		return err
	}
	return rundir.WriteFileAtomic(filepath.Join(gridDir, SelectionFile), append(b, '\n'))
}

// ReadSelection reads a grid directory's selection.json (os.ErrNotExist when the selection has
// not been made).
func ReadSelection(gridDir string) (*Selection, error) {
	b, err := regfile.ReadFile(filepath.Join(gridDir, SelectionFile))
	if err != nil {
		return nil, err
	}
	var sel Selection
	if err := json.Unmarshal(b, &sel); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(gridDir, SelectionFile), err)
	}
	return &sel, nil
}

// bestIndex is the index of the highest score that did not diverge, the first of equal ones;
// -1 when every one diverged.
func bestIndex(scores []float64, diverged []bool) int {
	best := -1
	for j, x := range scores {
		if diverged != nil && diverged[j] {
			continue
		}
		if best < 0 || x > scores[best] {
			best = j
		}
	}
	return best
}

// Selection is selection.json: the value chosen for each group, with every candidate's score.
type Selection struct {
	Field  string           `json:"field"`
	Values []float64        `json:"values"` // the candidates
	Metric string           `json:"metric"`
	Seeds  []uint64         `json:"seeds"`
	Groups []SelectionGroup `json:"groups"`
}

// SelectionGroup is one group's choice: its swept values (seed excluded), the candidates'
// mean validation scores over the tuning seeds, the chosen value, and whether it learned the
// task in range (its score reaches LearnedScore).
type SelectionGroup struct {
	Values  map[string]string `json:"values"`
	Scores  []float64         `json:"scores"` // aligned with the select: values
	Chosen  float64           `json:"chosen"`
	Learned bool              `json:"learned"`
	// Diverged marks the candidates some tuning run of which diverged (aligned with the values;
	// absent when none did): they lose, whatever their score.
	Diverged []bool `json:"diverged,omitempty"`
}

// check refuses a selection (read back from selection.json) that is not one the grid's select:
// section could have made: another field or candidates, a group whose chosen value is not among
// the candidates or is one that diverged, scores that are not one per candidate or not in [0, 1].
func (sel *Selection) check(c config.Config) error {
	s := c.Select.WithDefaults()
	if sel.Field != s.Field {
		return fmt.Errorf("it selects %s, the grid's select.field is %s", sel.Field, s.Field)
	}
	if !slices.Equal(sel.Values, s.Values) {
		return fmt.Errorf("its candidates %v are not the grid's select.values %v", sel.Values, s.Values)
	}
	for _, g := range sel.Groups {
		name := strings.ReplaceAll(TuningGroup(g.Values, s.Field), "\n", ", ")
		if name == "" {
			name = "all cells"
		}
		i := slices.Index(s.Values, g.Chosen)
		switch {
		case i < 0:
			return fmt.Errorf("group %s: the chosen %s = %g is not among the candidates %v", name, s.Field, g.Chosen, s.Values)
		case len(g.Scores) != len(s.Values) || g.Diverged != nil && len(g.Diverged) != len(s.Values):
			return fmt.Errorf("group %s: %d scores for %d candidates", name, len(g.Scores), len(s.Values))
		case g.Diverged != nil && g.Diverged[i]:
			return fmt.Errorf("group %s: the chosen %s = %g diverged", name, s.Field, g.Chosen)
		}
		for _, x := range g.Scores {
			if !(x >= 0 && x <= 1) {
				return fmt.Errorf("group %s: a score of %g, outside [0, 1]", name, x)
			}
		}
	}
	return nil
}

// chosen maps each group (TuningGroup) to its chosen value.
func (sel *Selection) chosen() map[string]float64 {
	m := map[string]float64{}
	for _, g := range sel.Groups {
		m[TuningGroup(g.Values, sel.Field)] = g.Chosen
	}
	return m
}

// TuningGroup is a cell's group for select: (its swept values but the seed and the selected
// field) as a key: the cells of one group share a choice (Selection).
func TuningGroup(vals map[string]string, field string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(vals)) {
		if k != "seed" && k != field {
			parts = append(parts, k+"="+vals[k])
		}
	}
	return strings.Join(parts, "\n")
}

// ExpandSelected is the grid's own cells, each with its group's chosen value (config.Expand without the
// select: section otherwise). Without a selection (sel nil) the cells keep the base value.
func ExpandSelected(c config.Config, sel *Selection) ([]config.Cell, error) {
	field := c.Select.Field
	cells, err := config.Expand(c.WithoutSelect())
	if err != nil || sel == nil {
		return cells, err
	}
	if err := sel.check(c); err != nil {
		return nil, fmt.Errorf("%s: %w; it was edited or is from another grid: remove it to select again", SelectionFile, err)
	}
	chosen := sel.chosen()
	for i := range cells {
		v, ok := chosen[TuningGroup(cells[i].Values, field)]
		if !ok {
			return nil, fmt.Errorf("%s has no choice for cell %s: it is from another grid; remove it to select again", SelectionFile, cells[i].Name)
		}
		cc, err := cells[i].Config.WithChoice(field, v)
		if err != nil {
			return nil, err
		}
		if _, err := cc.Validate(); err != nil {
			return nil, fmt.Errorf("cell %s with %s = %g: %w", cells[i].Name, field, v, err)
		}
		cells[i].Config = cc
	}
	return cells, nil
}

// TuningCopies maps each of a grid's cells (ExpandSelected with sel) that is also a tuning run
// (a tuning seed, its group's chosen value) to that tuning run's directory: the grid copies it
// (CellOptions.CopyFrom) rather than train the same config twice.
func TuningCopies(c config.Config, sel *Selection, cells []config.Cell) (map[string]string, error) {
	if sel == nil {
		return nil, nil
	}
	tuning, err := config.SelectCells(c)
	if err != nil {
		return nil, err
	}
	key := func(vals map[string]string, seed uint64, v string) string {
		return TuningGroup(vals, sel.Field) + "\nseed=" + strconv.FormatUint(seed, 10) + "\nvalue=" + v
	}
	dirs := map[string]string{}
	for _, t := range tuning {
		dirs[key(t.Values, t.Config.Seed, t.Values[sel.Field])] = filepath.Join(t.Config.Out, t.Name)
	}
	chosen := sel.chosen()
	out := map[string]string{}
	for _, cell := range cells {
		v, ok := chosen[TuningGroup(cell.Values, sel.Field)]
		if !ok {
			continue
		}
		if dir, ok := dirs[key(cell.Values, cell.Config.Seed, strconv.FormatFloat(v, 'g', -1, 64))]; ok {
			out[cell.Name] = dir
		}
	}
	return out, nil
}
