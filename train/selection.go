package train

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/posformer/posformer/internal/regfile"
)

// ValidationScore is a finished run's mean validation score (a metric computed from answers,
// metric.Scored) over its training lengths (their validation sets, as training validates), on
// the checkpoint its results came from. It is the validation that training logged in
// metrics.jsonl at that checkpoint's step (the last step, or with train.early_stop the best
// one), so no model is built; a run that logged none there (train.val_every: 0, a metric
// metrics.jsonl does not log, or a token accuracy of a run logged before val_token_accuracy
// existed) is validated again from its checkpoint.
func ValidationScore(dir, metric string) (float64, error) {
	res, err := ReadResult(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return 0, fmt.Errorf("not finished (no results.json)")
		}
		return 0, err
	}
	step := res.Steps
	if res.BestStep > 0 {
		step = res.BestStep
	}
	if v, ok := loggedValidation(filepath.Join(dir, "metrics.jsonl"), step, metric); ok {
		return v, nil
	}
	return revalidate(dir, metric)
}

// loggedValidation is the validation score (metric) that metrics.jsonl logged at step; false
// when no line of that step holds one.
func loggedValidation(path string, step int, metric string) (float64, bool) {
	b, err := regfile.ReadFile(path)
	if err != nil {
		return 0, false
	}
	var v *float64
	for _, line := range bytes.Split(b, []byte("\n")) {
		var m Metric
		if json.Unmarshal(line, &m) != nil || m.Step != step {
			continue
		}
		if f, ok := m.logged()[metric]; ok {
			v = *f
		}
	}
	if v == nil {
		return 0, false
	}
	return *v, true
}

// revalidate validates the checkpoint a finished run's results came from again, as its
// training validated: ValidationScore for a run whose metrics.jsonl does not hold the score.
func revalidate(dir, metric string) (float64, error) {
	m, cfg, err := LoadModel(dir)
	if err != nil {
		return 0, err
	}
	task, err := cfg.NewTask()
	if err != nil {
		return 0, err
	}
	validator, err := kindOf(task).validator(cfg)
	if err != nil {
		return 0, err
	}
	means, err := validator(m)
	if err != nil {
		return 0, err
	}
	return means[metric], nil
}
