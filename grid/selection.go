package grid

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/train"
	"github.com/posformer/posformer/train/config"
)

// LearnedScore is the validation score at which a group counts as having learned the task in
// range (report.LearnedThreshold is the same number for test scores).
const LearnedScore = 0.9

// Choose scores the finished tuning runs (train.ValidationScore) and picks each group's value:
// the highest mean score over the tuning seeds, ties to the value listed first. Every tuning
// run must be finished.
func Choose(c config.Config, cells []config.Cell) (*config.Selection, error) {
	s := c.Select.WithDefaults()
	sel := &config.Selection{Field: s.Field, Values: s.Values, Metric: s.Metric, Seeds: s.Seeds}
	index := map[string]int{}
	sums := map[string][]float64{}
	for _, cell := range cells {
		dir := filepath.Join(cell.Config.Out, cell.Name)
		score, err := train.ValidationScore(dir, s.Metric)
		if err != nil {
			return nil, fmt.Errorf("select: tuning run %s: %w", dir, err)
		}
		key := config.TuningGroup(cell.Values, s.Field)
		if _, ok := index[key]; !ok {
			index[key] = len(sel.Groups)
			vals := map[string]string{}
			for k, v := range cell.Values {
				if k != "seed" && k != s.Field {
					vals[k] = v
				}
			}
			sel.Groups = append(sel.Groups, config.SelectionGroup{Values: vals, Scores: make([]float64, len(s.Values))})
			sums[key] = make([]float64, len(s.Values))
		}
		v, _ := strconv.ParseFloat(cell.Values[s.Field], 64)
		sums[key][slices.Index(s.Values, v)] += score
	}
	for key, i := range index {
		g := &sel.Groups[i]
		for j := range s.Values {
			g.Scores[j] = sums[key][j] / float64(len(s.Seeds))
		}
		best := bestIndex(g.Scores)
		g.Chosen, g.Learned = s.Values[best], g.Scores[best] >= LearnedScore
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

// bestIndex is the index of the highest score, the first of equal ones.
func bestIndex(scores []float64) int {
	best := 0
	for j, x := range scores {
		if x > scores[best] {
			best = j
		}
	}
	return best
}
