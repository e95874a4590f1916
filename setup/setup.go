// Package setup is where a config meets the model. Package config reads a config as data:
// every field decoded, defaulted and checked (the model: section is model.Config, checked by
// its Validate), the scheme's options decoded into its options struct. What needs the model is
// checked here, in one place, before anything is allocated: the parameter count and the scheme's
// own parameters stay within posformer's limits, the scheme accepts its options and the positions
// the run reaches, so does every eval variant's scheme, and the predicted peak memory fits
// (Check). A Checked run carries its task, its model config (its position spec is its config's)
// and its memory prediction, each made once; Build builds its model, once: train.Train trains it
// (train.Run is Check then Train), and a grid checks every cell (CheckGrid) before training any,
// each cell then training from its Checked.
//
// A separate package rather than train/'s entry: report, claims and inspect read configs and ask
// for warnings and predictions without training, and the CLI checks a run or a grid before it
// takes the run directory's lock.
package setup

import (
	"fmt"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/fielderr"
	"github.com/posformer/posformer/internal/schemes"
	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/position"
)

// Checked is a config checked against its model: what a run trains, before its model is built.
type Checked struct {
	// Config has its defaults filled and is valid.
	Config config.Config
	// Task is the config's task, built once.
	Task data.Task
	// Model is the model: section typed, model.vocab defaulting to the task's vocabulary.
	Model model.Config
	// Memory is the run's predicted memory (PredictMemory).
	Memory Memory

	scheme position.Scheme // built by the check, for Warnings
}

// Check fills c's defaults, validates it (config.Validate) and checks what needs the model, naming
// the field and the fix (for a config read from a file, at the file:line that wrote the field:
// config.Config.At). It builds the task and the position scheme, never the model's weights.
func Check(c config.Config) (*Checked, error) {
	c = c.WithDefaults()
	task, err := c.Validate()
	if err != nil {
		return nil, c.At(err)
	}
	r, err := check(c, task)
	if err != nil {
		return nil, c.At(err)
	}
	return r, nil
}

// checkCell is check for a cell of a grid, which config.Expand validated.
func checkCell(c config.Config) (*Checked, error) {
	task, err := c.NewTask()
	if err != nil {
		return nil, err
	}
	return check(c, task)
}

// check is Check's body for a valid config and its task.
func check(c config.Config, task data.Task) (*Checked, error) {
	var err error
	r := &Checked{Config: c, Task: task, Model: c.ModelFor(task)}
	if err := checkSize(c, r.Model); err != nil {
		return nil, err
	}
	if r.scheme, err = position.New(c.Position.Spec, r.Model.SchemeDims()); err != nil {
		return nil, err
	}
	t, e := c.Task, c.Eval
	longest := max(data.SeqLen(task, t.MaxLen), data.SeqLen(task, e.Lengths[len(e.Lengths)-1]))
	if lc, ok := r.scheme.(position.LengthChecker); ok {
		if err := lc.CheckPositions(longest); err != nil {
			return nil, fmt.Errorf("%w (the longest sequence, at length %d, has %d tokens)", err, max(t.MaxLen, e.Lengths[len(e.Lengths)-1]), longest)
		}
	}
	if err := checkTokenPositions(r.scheme, task, t.MaxLen, e.Lengths[len(e.Lengths)-1]); err != nil {
		return nil, err
	}
	if err := checkVariants(c, task, longest); err != nil {
		return nil, err
	}
	r.Memory = PredictMemory(c, task)
	if err := checkMemory(c, task, r.Memory); err != nil {
		return nil, err
	}
	return r, nil
}

// Build builds the run's model: the one build of a run.
func (r *Checked) Build() (*model.Model, error) {
	return model.New(r.Model, r.Config.Position.Spec)
}

// NewModel builds the model of a config posformer wrote and checked before (a run's config.yaml,
// read back to evaluate, inspect or export its weights) for its task, unchecked: the one build
// of that reading.
func NewModel(c config.Config, task data.Task) (*model.Model, error) {
	return model.New(c.ModelFor(task), c.Position.Spec)
}

// Warnings lists what is valid in the run's config but deserves a note, one line each: the CLI
// prints them on stderr before training and reports repeat them. They come from the position
// scheme (position.Warner), for the longest training and test sequences: t5, for one, notes when
// the training sequences reach fewer relative-distance buckets than the test sequences use.
func (r *Checked) Warnings() []string {
	w, ok := r.scheme.(position.Warner)
	if !ok {
		return nil
	}
	c := r.Config
	return w.Warnings(data.SeqLen(r.Task, c.Task.MaxLen), data.SeqLen(r.Task, c.Eval.Lengths[len(c.Eval.Lengths)-1]))
}

// Warnings are the warnings of a config (defaults filled) that checks (Checked.Warnings); none when
// it does not.
func Warnings(c config.Config) []string {
	r, err := Check(c)
	if err != nil {
		return nil
	}
	return r.Warnings()
}

// Grid is a grid's runs, checked: its cells' and its select: tuning runs'.
type Grid struct {
	Config config.Config // the grid as written (config.Read's)
	Cells  []*Checked    // in the cells' order (config.Expand's)
	Tuning []*Checked    // select:'s tuning runs (config.SelectCells's); none without select:
}

// CheckGrid checks a grid's cells (config.Expand's) and its select: tuning runs as Check checks a
// run, before any of them trains; an error names the cell. Each cell's memory is predicted here,
// once.
func CheckGrid(grid config.Config, cells []config.Cell) (*Grid, error) {
	g := &Grid{Config: grid}
	var err error
	if g.Cells, err = CheckCells(cells, false); err != nil {
		return nil, grid.At(err)
	}
	if grid.Select.On() {
		tuning, err := config.SelectCells(grid)
		if err != nil {
			return nil, grid.At(err)
		}
		if g.Tuning, err = CheckCells(tuning, true); err != nil {
			return nil, grid.At(err)
		}
	}
	return g, nil
}

// CheckCells checks cells of a grid (which config.Expand validated) in order; an error is a
// config.CellError naming the cell (a tuning run of select: with tuning).
func CheckCells(cells []config.Cell, tuning bool) ([]*Checked, error) {
	runs := make([]*Checked, len(cells))
	for i, cell := range cells {
		r, err := checkCell(cell.Config)
		if err != nil {
			return nil, &config.CellError{Cell: cell.Name, Select: tuning, Err: err}
		}
		runs[i] = r
	}
	return runs, nil
}

// MaxParams bounds a model's parameter count: posformer trains small models on the CPU, so an
// absurd size (d_model: 1000000) fails before anything allocates.
var MaxParams = 1 << 28

// schemeParams is the number of trainable parameters the config's scheme adds for the model's
// dimensions (a learned table, a bias table, ...: position.ParamCount), from the sizes alone.
func schemeParams(c config.Config, mc model.Config) int {
	return position.ParamCount(c.Position.Spec, position.Dims{DModel: mc.DModel, Heads: mc.Heads, Layers: mc.Layers})
}

// checkSize refuses, from the sizes alone and before anything is built, a model whose parameter
// count passes MaxParams, naming the sizes to lower, and a position scheme whose own parameters
// (a learned table, T5's bucket biases: position.ParamCount) with their optimiser state and
// checkpoint pass MaxMemoryBytes, naming its options: a table of 10^8 biases is refused, not
// allocated.
func checkSize(c config.Config, mc model.Config) error {
	p := schemeParams(c, mc)
	if n := model.Params(mc, float64(p)); mc.DModel >= 1 && mc.DFF >= 1 && mc.Layers >= 1 && n > float64(MaxParams) {
		fix := "model.d_model, model.d_ff or model.layers"
		var sizes []string
		for _, o := range schemes.Options(c.Position.Kind) {
			if o.Type == "int" && p > 0 {
				sizes = append(sizes, "position."+o.Key)
			}
		}
		if len(sizes) > 0 {
			fix += " (or " + strings.Join(sizes, ", ") + ")"
		}
		layers := "layers"
		if mc.Layers == 1 {
			layers = "layer"
		}
		return fielderr.New("model", "d_model %d, d_ff %d and %d %s (vocabulary %d, position %s) make about %.3g parameters, more than posformer's limit of %d; lower %s", mc.DModel, mc.DFF, mc.Layers, layers, mc.Vocab, c.Position.Kind, n, MaxParams, fix)
	}
	if state := int64(p) * (dtypeBytes(mc) + 16 + checkpointBytesPerParam); state > MaxMemoryBytes && int64(p) > model.ParamCount(mc, 0) {
		return fielderr.New("position", "the %s scheme's own %d parameters (a table or biases, sized by its options %s) need about %s with their optimiser state and checkpoint, more than posformer's limit of %s; lower the option that sizes them",
			c.Position.Kind, p, strings.Join(c.Position.OptionKeys(), ", "), mb(state), mb(MaxMemoryBytes))
	}
	return nil
}
