package config

import (
	"fmt"
	"maps"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/metric"
	"go.yaml.in/yaml/v3"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/fielderr"
)

// Select is a grid's `select:` section: a field (train.lr) whose value is chosen per group of
// cells on in-range validation before the grid's own runs, as both papers did:
//
//	select:
//	  field: train.lr
//	  values: [0.0003, 0.001, 0.003]
//	  seeds: [1]
//	  metric: exact_match
//
// First every group (a combination of the swept values other than seed) trains each candidate
// value on the tuning seeds (runs under <grid>/select/); then each group's value is the one with
// the highest mean validation score over the tuning seeds (the validation sets of the training
// lengths, scored on the checkpoint the results come from; ties go to the candidate listed
// first); then the grid's cells train with their group's value. Only these enter the grid's
// results and report; the choice is written to <grid>/selection.json and shown in the report.
type Select struct {
	// Field is the dotted path of the selected field, a number (train.lr).
	Field string `yaml:"field,omitempty" json:"field,omitempty"`
	// Values are the candidates, in order of preference on ties.
	Values []float64 `yaml:"values,omitempty" json:"values,omitempty"`
	// Seeds are the seeds of the tuning runs. Default: [1].
	Seeds []uint64 `yaml:"seeds,omitempty" json:"seeds,omitempty"`
	// Metric is the validation score: exact_match or token_accuracy. Default: exact_match.
	Metric string `yaml:"metric,omitempty" json:"metric,omitempty"`
}

// On tells whether the section was written.
func (s Select) On() bool {
	return s.Field != "" || len(s.Values) > 0 || len(s.Seeds) > 0 || s.Metric != ""
}

// GridFile is the name of the grid's own config (MarshalGrid), written at the top of its
// directory.
const GridFile = "grid.yaml"

// SelectionFile is the file, in a grid directory, recording the selection.
const SelectionFile = "selection.json"

// SelectDir is the directory, in a grid directory, of the tuning runs.
const SelectDir = "select"

// WithDefaults fills the section's defaults: tuning seeds [1], metric exact_match.
func (s Select) WithDefaults() Select {
	if len(s.Seeds) == 0 {
		s.Seeds = []uint64{1}
	}
	if s.Metric == "" {
		s.Metric = metric.ExactMatch
	}
	return s
}

// offUnlessWritten makes Select a switchSection: `select: {}` is refused, not read as no select.
func (Select) offUnlessWritten() {}

func (s Select) validate(c Config) error {
	switch {
	// A written empty value is refused, never replaced by the default (s holds the defaults).
	case c.Written.Has("select.seeds") && len(c.Select.Seeds) == 0:
		return fielderr.New("select.seeds", "empty; give the tuning seeds, e.g. [1], or remove the key for [1]")
	case c.Written.Has("select.metric") && c.Select.Metric == "":
		return fielderr.New("select.metric", "empty; want %s, or remove the key for %s", metric.Names(metric.Scored(), "or"), metric.ExactMatch)
	case !c.Select.On(): // written as {} or with no value (offUnlessWritten)
		return fielderr.New("select", "the section is written but sets nothing; give select.field and select.values, e.g. select: {field: train.lr, values: [0.0003, 0.001, 0.003]}, or remove select:")
	case len(c.Sweep) == 0:
		return fielderr.New(c.Written.FirstUnder("select"), "select chooses a value per group of a grid's cells; add a sweep: (or remove select:)")
	case s.Field == "":
		return fielderr.New("select.field", "give the dotted path of the field to choose, e.g. train.lr")
	case len(s.Values) < 2:
		return fielderr.New("select.values", "give at least two candidate values of %s, e.g. [0.0003, 0.001, 0.003]", s.Field)
	case !validated(s.Metric):
		return fielderr.New("select.metric", "want %s, got %q", metric.Names(metric.Scored(), "or"), s.Metric)
	}
	f, err := fieldAt(reflect.ValueOf(&Config{}).Elem(), s.Field)
	if err != nil {
		return fielderr.New("select.field", "%w", err)
	}
	if k := f.Kind(); k != reflect.Float64 && k != reflect.Int && k != reflect.Uint64 {
		return fielderr.New("select.field", "%s is not a number; select chooses numbers such as train.lr", s.Field)
	}
	// A field inside a section that is off unless written (train.early_stop): selecting it
	// would write the section into every run with only that key, which Validate refuses after
	// the tuning runs have trained.
	keys := strings.Split(s.Field, ".")
	for i := 1; i < len(keys); i++ {
		section := strings.Join(keys[:i], ".")
		sf, err := fieldAt(reflect.ValueOf(&Config{}).Elem(), section)
		if err == nil && sf.Addr().Type().Implements(switchSectionType) && !c.Written.HasUnder(section) {
			return fielderr.New("select.field", "%s is in %s, which this grid does not write (it is off); write the section in the base config, or select another field", s.Field, section)
		}
	}
	for _, ax := range c.Sweep {
		if ax.Path == s.Field || ax.Path == "seed" && s.Field == "seed" || strings.HasPrefix(s.Field, ax.Path+".") {
			return fielderr.New("select.field", "%s is swept too; either sweep it or select it", s.Field)
		}
	}
	for i, v := range s.Values {
		if slices.Index(s.Values, v) != i {
			return fielderr.New("select.values", "%g is listed twice", v)
		}
	}
	for i, sd := range s.Seeds {
		if sd == 0 || slices.Index(s.Seeds, sd) != i {
			return fielderr.New("select.seeds", "want distinct seeds of at least 1, got %v", s.Seeds)
		}
	}
	return nil
}

func formatValue(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// withoutSelect is a grid config without its select: section.
func withoutSelect(c Config) Config {
	c.Select = Select{}
	c.Written = c.Written.Without("select")
	return c
}

// SelectCells are the tuning runs of a grid with select: every combination of the swept values
// but seed, times each candidate value, times each tuning seed, in <grid>/select/.
func SelectCells(c Config) ([]Cell, error) {
	s := c.Select.WithDefaults()
	if err := s.validate(c); err != nil {
		return nil, err
	}
	t := withoutSelect(c)
	var sweep Sweep
	for _, ax := range c.Sweep {
		if ax.Path != "seed" {
			sweep = append(sweep, ax)
		}
	}
	scalar := func(v string) *yaml.Node {
		tag := "!!float"
		if _, err := strconv.ParseInt(v, 10, 64); err == nil {
			tag = "!!int"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v}
	}
	vals := Axis{Path: s.Field}
	for _, v := range s.Values {
		vals.Values = append(vals.Values, scalar(formatValue(v)))
	}
	seeds := Axis{Path: "seed"}
	for _, sd := range s.Seeds {
		seeds.Values = append(seeds.Values, scalar(strconv.FormatUint(sd, 10)))
	}
	t.Sweep = append(append(sweep, vals), seeds)
	t.Out = filepath.Join(c.OutDir(), c.GridName())
	t.Written = t.Written.With("out").With("name")
	t.Name = SelectDir
	cells, err := Expand(t)
	if err != nil {
		return nil, fielderr.New("select", "%w", err)
	}
	for _, cell := range cells {
		if task := cell.Config.Task.Name; !data.TraitsOf(task).ExactMatch {
			return nil, fielderr.New("select", "the %s task is scored by bits per byte, and select: chooses by a validation's %s, which it does not have; remove select:, sweep %s instead, and choose per cell in a claims file's table (choose:, docs/claims/README.md), which takes the lowest %s",
				task, metric.Names(metric.Scored(), "or"), s.Field, metric.BitsPerByte)
		}
	}
	return cells, nil
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
// task in range (its score reaches grid.LearnedScore).
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
func (sel *Selection) check(c Config) error {
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

// ExpandSelected is the grid's own cells, each with its group's chosen value (Expand without the
// select: section otherwise). Without a selection (sel nil) the cells keep the base value.
func ExpandSelected(c Config, sel *Selection) ([]Cell, error) {
	field := c.Select.Field
	cells, err := Expand(withoutSelect(c))
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
		cc := cells[i].Config
		if err := setPath(&cc, field, formatValue(v), "select"); err != nil {
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
// (grid.CellOptions.CopyFrom) rather than train the same config twice.
func TuningCopies(c Config, sel *Selection, cells []Cell) (map[string]string, error) {
	if sel == nil {
		return nil, nil
	}
	tuning, err := SelectCells(c)
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
		if dir, ok := dirs[key(cell.Values, cell.Config.Seed, formatValue(v))]; ok {
			out[cell.Name] = dir
		}
	}
	return out, nil
}
