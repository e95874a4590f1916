package train

import (
	"context"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/model"
)

// kind is how the runs of one task kind (data.KindOf) are validated and tested: the sequence
// tasks here and in eval.go, text (lm) in lm.go. Each returns its metrics' scores by name.
type kind struct {
	// validator measures the validation scores of a model of the config (train.val_every,
	// train.early_stop and select:).
	validator func(cfg config.Config, task data.Task) (func(*model.Model) (map[string]float64, error), error)
	// test scores m at every length of eval.lengths, with the diagnostics; the lengths in reuse
	// take its rows and diagnostics instead (see reusable).
	test func(ctx context.Context, cfg config.Config, task data.Task, m *model.Model, opt Options, label string, reuse map[int]reusedLength) ([]LengthResult, *Diagnostics, error)
}

var kinds = map[string]kind{
	data.KindSequence: {validator: sequenceValidator, test: evaluateSequence},
	data.KindText:     {validator: textValidator, test: evaluateText},
}

// kindOf is the kind of a task.
func kindOf(task data.Task) kind { return kinds[data.KindOf(task.Name())] }

// sequenceValidator validates on every training length's validation set (train.val_examples
// each, from their own seed: never the test sets): per metric computed from answers
// (metric.Scored), the mean over the lengths, summed in length order.
func sequenceValidator(cfg config.Config, task data.Task) (func(*model.Model) (map[string]float64, error), error) {
	seed := cfg.Eval.Seed ^ 0x7a11da7e
	var sets [][]data.Example // per training length, ascending
	for L := cfg.Task.MinLen; L <= cfg.Task.MaxLen; L++ {
		ex, err := data.TestSet(task, L, cfg.Train.ValExamples, seed)
		if err != nil {
			return nil, err
		}
		sets = append(sets, ex)
	}
	return func(m *model.Model) (map[string]float64, error) {
		means := map[string]float64{}
		for _, ex := range sets {
			r, err := Evaluate(m, ex, task, cfg.Eval.BatchSize, seed)
			if err != nil {
				return nil, err
			}
			for name, x := range r.Scores {
				means[name] += x
			}
		}
		for name := range means {
			means[name] /= float64(len(sets))
		}
		return means, nil
	}, nil
}
