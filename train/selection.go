package train

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/train/config"
)

// ValidationScore is a finished run's mean validation score over its training lengths (its
// validation sets, as training validates), on the checkpoint its results came from.
func ValidationScore(dir, metric string) (float64, error) {
	if _, err := ReadResult(dir); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, fmt.Errorf("not finished (no results.json)")
		}
		return 0, err
	}
	cfg, err := config.Load(filepath.Join(dir, "config.yaml"), nil)
	if err != nil {
		return 0, err
	}
	m, err := LoadModel(dir)
	if err != nil {
		return 0, err
	}
	task, err := cfg.NewTask()
	if err != nil {
		return 0, err
	}
	val, err := validationSets(cfg, task)
	if err != nil {
		return 0, err
	}
	if len(val) == 0 {
		return 0, fmt.Errorf("no validation lengths")
	}
	exact, token, err := validate(m, task, val, cfg.Eval.BatchSize, cfg.Eval.Seed^0x7a11da7e)
	if err != nil {
		return 0, err
	}
	if metric == "token_accuracy" {
		return token, nil
	}
	return exact, nil
}

// validationSets are the validation examples of every training length (train.val_examples
// each, from their own seed: never the test sets).
func validationSets(cfg config.Config, task data.Task) (map[int][]data.Example, error) {
	val := map[int][]data.Example{}
	for L := cfg.Task.MinLen; L <= cfg.Task.MaxLen; L++ {
		ex, err := data.TestSet(task, L, cfg.Train.ValExamples, cfg.Eval.Seed^0x7a11da7e)
		if err != nil {
			return nil, err
		}
		val[L] = ex
	}
	return val, nil
}
