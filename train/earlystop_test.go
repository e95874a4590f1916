package train

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"github.com/posformer/posformer/metric"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/rundir"
)

// TestEarlyStopRule: the rule on a written sequence of scores (improvement means more than
// min_delta above the best; ties keep the earlier step; patience counts validations).
func TestEarlyStopRule(t *testing.T) {
	e := config.EarlyStop{Patience: 2, MinDelta: 0.05, Target: 0.95}
	var st trainState
	steps := []int{10, 20, 30, 40, 50, 60}
	scores := []float64{0.2, 0.24, 0.5, 0.5, 0.54, 0.9}
	wantImproved := []bool{true, false, true, false, false, false}
	wantStop := []bool{false, false, false, false, true, false}
	for i, s := range scores {
		imp, stop := observe(e, &st, steps[i], s)
		if imp != wantImproved[i] || stop != wantStop[i] {
			t.Fatalf("score %d (%g): improved %v stop %v, want %v %v", i, s, imp, stop, wantImproved[i], wantStop[i])
		}
		if stop {
			break
		}
	}
	if st.BestStep != 30 || st.BestScore != 0.5 || st.Bad != 2 {
		t.Fatalf("state %+v, want best 0.5 at step 30 after 2 validations without improvement", st)
	}
	var tg trainState
	if _, stop := observe(config.EarlyStop{Target: 0.9}, &tg, 10, 0.9); !stop {
		t.Error("reaching the target does not stop")
	}
	if _, stop := observe(config.EarlyStop{Target: 0.9}, &tg, 20, 0.1); stop {
		t.Error("without patience a fall of the score stops training")
	}
}

// esConfig trains long enough that validation scores move, with early stopping on.
func esConfig(t *testing.T, out string, extra ...string) config.Config {
	return tinyConfig(t, out, append([]string{"train.steps=100", "train.batch_size=8", "train.log_every=10", "train.val_every=10", "train.lr=0.02",
		"train.checkpoint_every=-1", "train.early_stop={patience: 2, min_delta: 0.05}"}, extra...)...)
}

func readMetrics(t *testing.T, path string) []Metric {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ms []Metric
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m Metric
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return ms
}

// TestEarlyStopRun: a run stops where the documented rule, applied independently here to the
// validation scores it logged, says; its results are those of best.bin (which LoadModel and
// ResultsCheckpoint name); best and stop steps are in results.json; and an interrupted run,
// resumed, ends bit-identical (the rule's state is in the checkpoint).
func TestEarlyStopRun(t *testing.T) {
	dir := t.TempDir()
	res, err := Run(context.Background(), esConfig(t, filepath.Join(dir, "full")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "full", "copy_rope_s1")
	ms := readMetrics(t, filepath.Join(run, "metrics.jsonl"))
	// The rule, written out again: improvement = more than 0.05 above the best; stop after 2
	// validations in a row without one.
	best, bestStep, bad, stopStep := 0.0, 0, 0, 0
	for _, m := range ms {
		if m.ValExact == nil {
			t.Fatalf("step %d has no validation", m.Step)
		}
		if bestStep == 0 || *m.ValExact > best+0.05 {
			best, bestStep, bad = *m.ValExact, m.Step, 0
		} else {
			bad++
		}
		if bad == 2 {
			stopStep = m.Step
			break
		}
	}
	t.Logf("validation scores %v: best %g at step %d, stop at %d", valScores(ms), best, bestStep, stopStep)
	if stopStep == 0 || ms[len(ms)-1].Step != stopStep {
		t.Fatalf("validations %v: the rule stops at %d, the log ends at %d", valScores(ms), stopStep, ms[len(ms)-1].Step)
	}
	if res.StopStep != stopStep || res.BestStep != bestStep || res.BestScore != best {
		t.Fatalf("result: stop %d best %d (%g), want stop %d best %d (%g); scores %v", res.StopStep, res.BestStep, res.BestScore, stopStep, bestStep, best, valScores(ms))
	}
	js, _ := os.ReadFile(filepath.Join(run, "results.json"))
	if !bytes.Contains(js, []byte(`"best_step"`)) || !bytes.Contains(js, []byte(`"stop_step"`)) {
		t.Errorf("results.json lacks best_step or stop_step:\n%s", js)
	}
	ck, err := resultsCheckpoint(run)
	if err != nil || filepath.Base(ck) != rundir.BestCheckpoint {
		t.Fatalf("ResultsCheckpoint = %s, %v; want best.bin", ck, err)
	}
	// The results are the best checkpoint's: re-evaluating LoadModel's model at each length
	// gives the same numbers. The last state differs from it whenever best < stop.
	m, _, err := LoadModel(run)
	if err != nil {
		t.Fatal(err)
	}
	cfg := esConfig(t, filepath.Join(dir, "full"))
	task := mustTask(t, cfg)
	for _, l := range res.Lengths {
		ex := mustTestSet(t, task, l.Length, cfg)
		r, err := Evaluate(m, ex, task, cfg.Eval.BatchSize, cfg.Eval.Seed)
		if err != nil {
			t.Fatal(err)
		}
		if r.Score(metric.ExactMatch) != l.Score(metric.ExactMatch) || r.Score(metric.TokenAccuracy) != l.Score(metric.TokenAccuracy) {
			t.Fatalf("length %d: the best checkpoint scores %v/%v, results.json %v/%v", l.Length, r.Score(metric.ExactMatch), r.Score(metric.TokenAccuracy), l.Score(metric.ExactMatch), l.Score(metric.TokenAccuracy))
		}
	}
	last, _ := os.ReadFile(filepath.Join(run, "checkpoint.bin"))
	bestBin, _ := os.ReadFile(filepath.Join(run, rundir.BestCheckpoint))
	if bestStep < stopStep && bytes.Equal(last, bestBin) {
		t.Error("best.bin equals the last state although the best step is earlier")
	}

	// Interrupted after the first validation, then resumed: the same bits.
	cut := esConfig(t, filepath.Join(dir, "cut"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := Run(ctx, cut, Options{Progress: &cancelAt{marker: "10/100", cancel: cancel}}); !errors.Is(err, ErrInterrupted) {
		t.Fatalf("the interrupted run: %v, want ErrInterrupted", err)
	}
	if _, err := Run(context.Background(), cut, Options{Resume: true}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"checkpoint.bin", rundir.BestCheckpoint, "results.csv", "results.json", "metrics.jsonl"} {
		a, _ := os.ReadFile(filepath.Join(run, f))
		b, _ := os.ReadFile(filepath.Join(dir, "cut", "copy_rope_s1", f))
		if f == "metrics.jsonl" { // wall-clock fields differ: compare steps and scores
			a, b = []byte(metricsKey(t, a)), []byte(metricsKey(t, b))
		}
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: the resumed run differs from the uninterrupted one", f)
		}
	}
}

// TestEarlyStopOffKeepsBits: a config without early_stop resolves, trains and checkpoints as
// before (no early_stop key in config.yaml, no best.bin, no new fields in results.json).
func TestEarlyStopOffKeepsBits(t *testing.T) {
	dir := t.TempDir()
	if _, err := Run(context.Background(), tinyConfig(t, dir), Options{}); err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(dir, "copy_rope_s1")
	cy, _ := os.ReadFile(filepath.Join(run, "config.yaml"))
	js, _ := os.ReadFile(filepath.Join(run, "results.json"))
	if bytes.Contains(cy, []byte("early_stop")) || bytes.Contains(js, []byte("best_step")) || bytes.Contains(js, []byte("stop_step")) {
		t.Errorf("early stopping leaks into a run without it:\n%s\n%s", cy, js)
	}
	if _, err := os.Stat(filepath.Join(run, rundir.BestCheckpoint)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("best.bin written without early_stop: %v", err)
	}
	if ck, _ := resultsCheckpoint(run); filepath.Base(ck) != "checkpoint.bin" {
		t.Errorf("ResultsCheckpoint = %s, want checkpoint.bin", ck)
	}
}

func valScores(ms []Metric) []float64 {
	var v []float64
	for _, m := range ms {
		if m.ValExact != nil {
			v = append(v, *m.ValExact)
		}
	}
	return v
}

func metricsKey(t *testing.T, b []byte) string {
	var sb strings.Builder
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m Metric
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatal(err)
		}
		v := -1.0
		if m.ValExact != nil {
			v = *m.ValExact
		}
		sb.WriteString(strings.Join([]string{itoa(m.Step), ftoa(m.Loss), ftoa(v)}, ",") + "\n")
	}
	return sb.String()
}

func itoa(i int) string     { return strconv.Itoa(i) }
func ftoa(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func mustTask(t *testing.T, cfg config.Config) data.Task {
	t.Helper()
	task, err := cfg.NewTask()
	if err != nil {
		t.Fatal(err)
	}
	return task
}

func mustTestSet(t *testing.T, task data.Task, L int, cfg config.Config) []data.Example {
	t.Helper()
	ex, err := data.TestSet(task, L, cfg.Eval.Examples, cfg.Eval.Seed)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// resultsCheckpoint is the checkpoint a run's results came from, as its config.yaml names it
// (rundir.ResultsCheckpoint).
func resultsCheckpoint(run string) (string, error) {
	cfg, _, err := config.ReadWritten(filepath.Join(run, "config.yaml"))
	return rundir.ResultsCheckpoint(run, cfg.Train.EarlyStop.On()), err
}
