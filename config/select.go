package config

import (
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

// WithoutSelect is a grid config without its select: section: the grid's own cells before
// their group's choice (grid.ExpandSelected).
func (c Config) WithoutSelect() Config {
	c.Select = Select{}
	c.Written = c.Written.Without("select")
	return c
}

// WithChoice is the config with select:'s choice for its group: field set to v, written as
// select: writes it.
func (c Config) WithChoice(field string, v float64) (Config, error) {
	err := setPath(&c, field, formatValue(v), "select")
	return c, err
}

// SelectCells are the tuning runs of a grid with select: every combination of the swept values
// but seed, times each candidate value, times each tuning seed, in <grid>/select/.
func SelectCells(c Config) ([]Cell, error) {
	s := c.Select.WithDefaults()
	if err := s.validate(c); err != nil {
		return nil, err
	}
	t := c.WithoutSelect()
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
