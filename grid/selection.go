package grid

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/train"
)

// LearnedScore is the validation score at which a group counts as having learned the task in
// range (report.LearnedThreshold is the same number for test scores).
const LearnedScore = 0.9

// Choose scores the finished tuning runs (train.ValidationScore) and picks each group's value:
// the highest mean score over the tuning seeds, ties to the value listed first. A value any
// tuning run of which diverged loses (SelectionGroup.Diverged); a group whose every value
// diverged is an error. Every tuning run must be finished.
func Choose(c config.Config, cells []config.Cell) (*config.Selection, error) {
	s := c.Select.WithDefaults()
	sel := &config.Selection{Field: s.Field, Values: s.Values, Metric: s.Metric, Seeds: s.Seeds}
	groups, order := map[string]*config.SelectionGroup{}, []string{} // by config.TuningGroup, in cell order
	for _, cell := range cells {
		dir := filepath.Join(cell.Config.Out, cell.Name)
		key := config.TuningGroup(cell.Values, s.Field)
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
			g = &config.SelectionGroup{Values: vals, Scores: make([]float64, len(s.Values))}
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
func WriteSelection(gridDir string, sel *config.Selection) error {
	b, err := json.MarshalIndent(sel, "", "  ")
	if err != nil {
		return err
	}
	return rundir.WriteFileAtomic(filepath.Join(gridDir, config.SelectionFile), append(b, '\n'))
}

// ReadSelection reads a grid directory's selection.json (os.ErrNotExist when the selection has
// not been made).
func ReadSelection(gridDir string) (*config.Selection, error) {
	b, err := regfile.ReadFile(filepath.Join(gridDir, config.SelectionFile))
	if err != nil {
		return nil, err
	}
	var sel config.Selection
	if err := json.Unmarshal(b, &sel); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(gridDir, config.SelectionFile), err)
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
