package claims

import (
	"fmt"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/metric"
)

// A sequential design's converge: (learned, or not, by design): a claim untested because a cell
// did not learn in range at the grid's fixed steps is not the claim's answer but the protocol's.
// With converge: {max_steps: N}, `claims -decide` trains that cell's runs again, seed for seed,
// with early stopping at the file's learned bar on the in-range validation score (the grid's own
// validation cadence), at most N steps, in <runs>/<grid>-converge; once every seed the cell holds
// has its converged run, the table holds the converged runs' rows instead of the fixed-step ones
// (its steps column N), and the cell's later seeds are converged runs too. The document names
// the cells so trained.

// ConvergeDir is the suffix of a table's converged runs' directory under -runs.
const ConvergeDir = "-converge"

// Converge is a sequential design's converge: key.
type Converge struct {
	// MaxSteps caps a converged run's training steps.
	MaxSteps int `yaml:"max_steps"`

	Written presence.Keys `yaml:"-"`
	// key: the file writes converge: (perhaps {}, which sets nothing and is refused)
	key bool
}

// On tells whether the design trains unlearned cells to convergence.
func (c Converge) On() bool { return c.Written.Len() > 0 }

func (c Converge) check(f *File) error {
	if c.key && !c.On() {
		return f.errAt("sequential.converge", "written but sets nothing: give max_steps (the most steps a converged run may take, e.g. converge: {max_steps: 20000}), or remove the key")
	}
	if !c.On() {
		return nil
	}
	m := f.Statistic.Metric
	switch {
	case c.MaxSteps < 1 || c.MaxSteps > 10_000_000:
		return f.errAt("sequential.converge.max_steps", "%d: give the most steps a converged run may take, 1 to 10,000,000, e.g. max_steps: 20000", c.MaxSteps)
	case !hasChance(m):
		return f.errAt("sequential.converge", "the file's metric %s is not one a run validates on (early stopping reads %s): remove converge:", m, metric.Names(metric.Scored(), "or"))
	case !(f.Statistic.Learned > 0):
		return f.errAt("sequential.converge", "the learned bar (statistic.learned) is %g: converged runs stop at it, so give statistic.learned > 0, or remove converge:", f.Statistic.Learned)
	}
	return nil
}

// converged tells whether a cell's rows are converged runs' (their steps the design's cap,
// which NextLook refuses to be the grid's own).
func (c Converge) converged(cl *cell) bool {
	return c.On() && len(cl.rows) > 0 && cl.rows[0].Steps == c.MaxSteps
}

// convergeGrid is the grid cfg trained to convergence: at most max steps, early stopping at the
// learned bar in the file's metric, validated as often as the grid's cells are (their resolved
// train.val_every and train.log_every), named <grid>-converge under runs, seeds as seedsGrid.
func (f *File) convergeGrid(cfg config.Config, seeds []uint64, runs string) (config.Config, error) {
	cells, err := config.Expand(cfg)
	if err != nil {
		return cfg, err
	}
	g, err := seedsGrid(cfg, seeds, runs)
	if err != nil {
		return g, err
	}
	tr := cells[0].Config.Train // resolved: the cadence every cell validates at
	if tr.ValEvery <= 0 {
		return g, fmt.Errorf("validates never (train.val_every %d): converged runs stop on validation; give the grid train.val_every > 0, or remove sequential.converge", tr.ValEvery)
	}
	if tr.LogEvery > 0 && tr.ValEvery%tr.LogEvery != 0 { // early stopping reads validations at logged steps
		return g, fmt.Errorf("validates every %d steps, not a multiple of train.log_every (%d): converged runs stop on a validation made at a logged step; give the grid a train.val_every that train.log_every divides, or remove sequential.converge", tr.ValEvery, tr.LogEvery)
	}
	g.Name = strings.TrimSuffix(g.Name, SeedsDir) + ConvergeDir
	g.Train.Steps, g.Train.ValEvery, g.Train.LogEvery = f.Sequential.Converge.MaxSteps, tr.ValEvery, tr.LogEvery
	g.Train.EarlyStop = config.EarlyStop{Target: f.Statistic.Learned, Metric: f.Statistic.Metric}
	for _, k := range []string{"train.steps", "train.val_every", "train.log_every", "train.early_stop", "train.early_stop.target", "train.early_stop.metric"} {
		g.Written = g.Written.With(k)
	}
	return g, nil
}
