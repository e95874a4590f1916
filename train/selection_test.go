package train

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/model"
)

// TestValidationScoreLogged: a finished run's validation score, for either metric, is the one
// its training logged at the checkpoint its results came from (the last step; the best one with
// early stopping), equal to validating that checkpoint again, and reading it builds no model; a
// run whose metrics.jsonl lacks the score is validated again from its checkpoint.
func TestValidationScoreLogged(t *testing.T) {
	dir := t.TempDir()
	runs := map[string]config.Config{
		"last": tinyConfig(t, filepath.Join(dir, "last"), "train.steps=40", "train.lr=0.02"),
		// Stops early: its results (and score) are best.bin's, not the last validation's.
		"early": esConfig(t, filepath.Join(dir, "early"), "train.early_stop={patience: 2, min_delta: 0.05, metric: token_accuracy}"),
	}
	for name, cfg := range runs {
		res, err := Run(context.Background(), cfg, Options{})
		if err != nil {
			t.Fatal(err)
		}
		run := filepath.Join(dir, name, cfg.Name)
		if name == "early" && (res.BestStep == 0 || res.BestStep == res.StopStep) {
			t.Fatalf("the early-stopped run's best step %d is its last validation (stop %d): the test needs an earlier one", res.BestStep, res.StopStep)
		}
		for _, metric := range []string{"exact_match", "token_accuracy"} {
			before := model.Builds()
			got, err := ValidationScore(run, metric)
			if err != nil {
				t.Fatal(err)
			}
			if n := model.Builds() - before; n != 0 {
				t.Errorf("%s %s: ValidationScore built %d models; the score is in metrics.jsonl", name, metric, n)
			}
			want, err := revalidate(run, metric)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s %s: logged score %v, its checkpoint validates to %v", name, metric, got, want)
			}
		}
		if name == "early" {
			if got, _ := ValidationScore(run, "token_accuracy"); got != res.BestScore {
				t.Errorf("early: token_accuracy score %v, best_val_score %v", got, res.BestScore)
			}
		}
		// A metrics.jsonl without the token scores (as written before they were logged).
		path := filepath.Join(run, "metrics.jsonl")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		old := regexp.MustCompile(`,"val_token_accuracy":[^,}]*`).ReplaceAll(b, nil)
		if bytes.Equal(old, b) {
			t.Fatalf("metrics.jsonl logs no val_token_accuracy:\n%s", b)
		}
		if err := os.WriteFile(path, old, 0o644); err != nil {
			t.Fatal(err)
		}
		before := model.Builds()
		got, err := ValidationScore(run, "token_accuracy")
		want, _ := revalidate(run, "token_accuracy")
		if err != nil || got != want || model.Builds()-before != 2 { // ValidationScore's load and revalidate's
			t.Errorf("%s without logged token scores: %v, %v, %d builds; want %v from the checkpoint", name, got, err, model.Builds()-before, want)
		}
	}
}
