package train

import (
	"context"
	"fmt"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/interrupt"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/model"
)

// kind is how the runs of a task are validated and tested, each returning its metrics' scores
// by name: answers to examples here (sequence), the likelihood of a data.WindowReader task's
// windows in windows.go.
type kind interface {
	// validator measures the validation scores of a model of the config (train.val_every,
	// train.early_stop and select:).
	validator(cfg config.Config) (func(*model.Model) (map[string]float64, error), error)
	// length scores m at test length L with its diagnostics (decode: with its failures); show
	// is told how far it is.
	length(ctx context.Context, cfg config.Config, m *model.Model, L int, decode bool, show func(string)) (LengthResult, LengthDiagnostics, error)
	// status is a length's progress line.
	status(r LengthResult) string
	// diagnosed is the number of examples per length whose attention the diagnostics measure.
	diagnosed(cfg config.Config) int
}

// kindOf is the kind of a task.
func kindOf(task data.Task) kind {
	if w, ok := task.(data.WindowReader); ok {
		return windowed{w}
	}
	return sequence{task}
}

// evaluateLengths scores m at every test length of cfg, with the diagnostics of the inspect
// command (attended distances, the first decode failures beyond the training lengths). The
// lengths in reuse take its row and diagnostics instead of being evaluated (see reusable).
// name is the run's (and variant's) in progress lines and in the stage an interruption names.
func evaluateLengths(ctx context.Context, cfg config.Config, task data.Task, m *model.Model, opt Options, name string, reuse map[int]reusedLength) ([]LengthResult, *Diagnostics, error) {
	k, label := kindOf(task), "eval "+name
	var out []LengthResult
	pr := NewProgress(opt.Progress, opt.TTY, len(cfg.Eval.Lengths), label)
	diag := &Diagnostics{Examples: k.diagnosed(cfg), Vocab: task.Vocab(), Layers: m.Cfg.Layers, Heads: m.Cfg.Heads}
	beyond := 0 // lengths past the training range so far: the first FailureLengths decode failures
	for i, L := range cfg.Eval.Lengths {
		if r, ok := reuse[L]; ok {
			diag.Lengths = append(diag.Lengths, r.diag)
			out = append(out, r.row)
			pr.Update(i+1, k.status(r.row)+" (as evaluated without the variant)")
			continue
		}
		if opt.evaluated != nil {
			opt.evaluated(label, L)
		}
		if L > cfg.Task.MaxLen {
			beyond++
		}
		stage := fmt.Sprintf("the evaluation of %s at length %d", name, L)
		done := interrupt.Stage(ctx, stage)
		r, d, err := k.length(ctx, cfg, m, L, L > cfg.Task.MaxLen && beyond <= config.FailureLengths, func(s string) { pr.Update(i, s) })
		done()
		if err != nil {
			return nil, nil, inStage(ctx, err, stage)
		}
		r.InRange = data.InRange(cfg.Task.Name, L, cfg.Task.MinLen, cfg.Task.MaxLen)
		diag.Lengths = append(diag.Lengths, d)
		out = append(out, r)
		pr.Update(i+1, k.status(r))
	}
	pr.Done()
	return out, diag, nil
}

// inStage is err, or for a stage stopped by a cancelled context (a signal), ErrInterrupted
// naming the stage.
func inStage(ctx context.Context, err error, stage string) error {
	if err != nil && ctx.Err() != nil {
		return fmt.Errorf("%w in %s", ErrInterrupted, stage)
	}
	return err
}

// sequence is the kind of the tasks that answer examples.
type sequence struct{ task data.Task }

// length scores the test set of length L, drawn and scored a batch at a time (data.TestSetStream),
// so its memory does not grow with eval.examples.
func (k sequence) length(ctx context.Context, cfg config.Config, m *model.Model, L int, decode bool, _ func(string)) (LengthResult, LengthDiagnostics, error) {
	return evaluateDiagnosed(ctx, m, k.task, data.NewTestSetStream(k.task, L, cfg.Eval.Seed).Next, cfg.Eval.Examples, cfg.Eval.BatchSize, cfg.Eval.Seed, decode)
}

func (sequence) status(r LengthResult) string {
	return fmt.Sprintf("length %d exact %.3f", r.Length, r.Score(metric.ExactMatch))
}

func (sequence) diagnosed(cfg config.Config) int {
	return min(config.DiagnosticExamples, cfg.Eval.Examples)
}

// validator validates on every training length's validation set (train.val_examples each,
// from their own seed: never the test sets): per metric computed from answers (metric.Scored),
// the mean over the lengths, summed in length order.
func (k sequence) validator(cfg config.Config) (func(*model.Model) (map[string]float64, error), error) {
	seed := cfg.Eval.Seed ^ 0x7a11da7e
	var sets [][]data.Example // per training length, ascending
	for L := cfg.Task.MinLen; L <= cfg.Task.MaxLen; L++ {
		ex, err := data.TestSet(k.task, L, cfg.Train.ValExamples, seed)
		if err != nil {
			return nil, err
		}
		sets = append(sets, ex)
	}
	return func(m *model.Model) (map[string]float64, error) {
		means := map[string]float64{}
		for _, ex := range sets {
			r, err := Evaluate(m, ex, k.task, cfg.Eval.BatchSize, seed)
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
