// Package inspect is `train inspect`: it loads a finished run's model (or one of its eval
// variants') and shows, at one input length, the greedy answers to the first test examples and
// how every head attends (train.Probe), checked against the run's results; package report draws
// and writes what it measured.
package inspect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/position"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/setup"
	"github.com/posformer/posformer/train"
)

// Inspection is what `train inspect` measures of a finished run at one input length: the greedy
// answers to the first test examples and how every head attends.
type Inspection struct {
	Dir    string
	Config config.Config
	// Length is the input length L; SeqLen the tokens the model reads (input, separator and all
	// but the last answer token); the queries from L on predict the answer.
	Length, SeqLen int
	// TrainSeqLen is the longest sequence the model was trained on (task.max_len's).
	TrainSeqLen int
	Examples    []train.Decoded
	// Exact is the fraction of Examples matched; ResultsExact the run's results.csv figure at this
	// length (HasResult false when the run did not test it).
	Exact        float64
	ResultsExact float64
	HasResult    bool
	Stats        *train.AttentionStats
	// Positions are the first example's positions (nil: 0..SeqLen-1; set with randomized
	// positions at evaluation).
	Positions []int
}

// Show loads the finished run in dir (its config.yaml and the checkpoint its results came from),
// runs the first n examples of its own test set at input length L exactly as its evaluation did
// (same examples, batches and positions, so with n = eval.examples the exact match is
// results.csv's), decodes them greedily and measures the attention of each (train.Probe).
//
// dir may also be an eval variant's directory (RUN_DIR/eval-<name>): the run's weights are then
// inspected with the variant's evaluation options, against the variant's results.
//
// Before anything is allocated, Show writes to log (nil: nowhere) the memory it predicts
// (refusing more than setup.MaxMemoryBytes) and the work (forward passes, GFLOP), then a line at
// each stage and progress lines with an ETA through it: at long lengths the forward passes take
// minutes.
func Show(ctx context.Context, dir string, L, n int, log io.Writer) (*Inspection, error) {
	say := func(format string, a ...any) {
		if log != nil {
			fmt.Fprintf(log, "inspect: "+format+"\n", a...)
		}
	}
	runDir, variant, err := inspectedRun(dir)
	if err != nil {
		return nil, err
	}
	cfg, _, err := config.ReadWritten(filepath.Join(runDir, "config.yaml"))
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err)
	}
	if m := metric.Headline(cfg.Task.Name, cfg.Task.Format); m.Score == nil { // not scored from answers
		return nil, fmt.Errorf("inspect: %s is a language-model run (task %s): inspect shows the answers of sequence tasks, and it has none; its scores per context length are %s, and `train report %s` tables and plots its bits per byte", dir, cfg.Task.Name, filepath.Join(runDir, data.TraitsOf(cfg.Task.Name).ScoresFile), runDir)
	}
	// The variant first: an eval-<name> directory the run does not have is not an unfinished run.
	if variant != "" {
		found := false
		for _, v := range cfg.ActiveVariants() {
			if rundir.VariantDir(v.Name) == variant {
				cfg, found = cfg.VariantConfig(v), true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("inspect: %s is not one of the eval variants of the run in %s (its config's eval.variants); give the run directory or one of its eval-<name> directories", dir, runDir)
		}
	}
	res, err := train.ReadResult(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("inspect: %s has no finished checkpoint (the run has no results.json yet); finish it by running the same command with -resume, then inspect it", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err)
	}
	switch {
	case L < 1 || L > config.MaxLength:
		return nil, fmt.Errorf("inspect: -length must be between 1 and %d, got %d", config.MaxLength, L)
	case n < 1:
		return nil, fmt.Errorf("inspect: -examples must be at least 1, got %d", n)
	case n > cfg.Eval.Examples: // beyond the run's test set: not what it was scored on, and unbounded memory
		return nil, fmt.Errorf("inspect: -examples %d is more than the run's test set of each length (eval.examples %d); give at most %d", n, cfg.Eval.Examples, cfg.Eval.Examples)
	}
	task, err := cfg.NewTask()
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err)
	}
	m, err := setup.NewModel(cfg, task)
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err)
	}
	m.TrainLen = data.SeqLen(task, cfg.Task.MaxLen) // as in train.Train
	T := data.SeqLen(task, L)
	if err := checkEncodable(m.Scheme, task, L); err != nil {
		return nil, err
	}
	capture := func(T int) int {
		return config.CaptureBatch(m.Cfg.Layers, m.Cfg.Heads, int(m.Dtype.Size()), T, config.CaptureBytes)
	}
	if capture(T) < 1 {
		longest := below(L, func(l int) bool { return capture(data.SeqLen(task, l)) >= 1 })
		return nil, fmt.Errorf("inspect: -length %d (%d tokens): one example's attention weights (%d layers × %d heads × %d²) would take more than %d MB; inspect a length of at most %d", L, T, m.Cfg.Layers, m.Cfg.Heads, T, config.CaptureBytes>>20, longest)
	}
	// The memory of the evaluation at L with n examples: the run's prediction for that test.
	ic := cfg
	ic.Eval.Lengths, ic.Eval.Examples = config.Lengths{L}, n
	mem := setup.PredictMemory(ic, task)
	need := mem.EvalPeak()
	if need > setup.MaxMemoryBytes {
		return nil, fmt.Errorf("inspect: -length %d with %d examples (%d tokens each) needs about %.2f GB, more than posformer's limit of %.2f GB; inspect a shorter length or fewer -examples", L, n, T, float64(need)/1e9, float64(setup.MaxMemoryBytes)/1e9)
	}
	step, err := train.LoadTrained(runDir, cfg, m)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("inspect: %s has no finished checkpoint: %w; train the run again with -force", runDir, err)
	}
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err) // damaged, or another run's: the error names the file and what to do
	}
	if !cfg.Train.EarlyStop.On() && step != cfg.Train.Steps {
		return nil, fmt.Errorf("inspect: the checkpoint in %s is from step %d of %d, not the one its results came from; finish the run (the same command with -resume) or train it again with -force", runDir, step, cfg.Train.Steps)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	examples, err := data.TestSet(task, L, n, cfg.Eval.Seed)
	if err != nil {
		return nil, err
	}
	say("length %d (%d tokens), %d examples: predicted peak memory %.0f MB", L, T, n, float64(need)/1e6)
	// The work: every example through an evaluation graph and an inspection graph, and at most
	// a pass per answer token for each batch of wrong answers (one example: train.FLOPs(·, 1, T)).
	b, one := min(n, cfg.Eval.BatchSize), train.FLOPs(m.Cfg, 1, T)/1e9
	say("predicted work: %d forward passes (%.3g GFLOP) to evaluate the examples and measure their attention, and at most %d (%.3g GFLOP) to decode the wrong answers; progress lines follow",
		(n+b-1)/b+(n+capture(T)-1)/capture(T), 2*float64(n)*one, (n+b-1)/b*(T-L), float64(n*(T-L))*one)
	say("evaluating the %d examples as the run did (at long lengths this takes minutes)", n)
	p, err := train.Probe(ctx, m, task, examples, cfg.Eval.BatchSize, cfg.Eval.Seed, say, log)
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err)
	}
	in := &Inspection{Dir: dir, Config: cfg, Length: L, SeqLen: T, TrainSeqLen: m.TrainLen, Exact: p.Exact,
		Examples: p.Examples, Stats: p.Stats, Positions: p.Positions}
	for _, r := range res.Lengths {
		if r.Length == L {
			in.ResultsExact, in.HasResult = r.Score(metric.ExactMatch), true
		}
	}
	return in, nil
}

// Examples is the number of examples `train inspect` takes when -examples is not given: def, or
// the run's eval.examples if that is fewer (the test set of each length). It is def when dir is
// no run (Show then says why).
func Examples(dir string, def int) int {
	runDir, _, err := inspectedRun(dir)
	if err != nil {
		return def
	}
	cfg, _, err := config.ReadWritten(filepath.Join(runDir, "config.yaml"))
	if err != nil {
		return def
	}
	return min(def, cfg.Eval.Examples)
}

// inspectedRun returns the run directory holding dir's config and checkpoint: dir itself, or for
// an eval variant's directory (RUN_DIR/eval-<name>) its run directory and the variant's
// directory name.
func inspectedRun(dir string) (runDir, variant string, err error) {
	if _, err := os.Stat(filepath.Join(dir, "config.yaml")); err == nil {
		return dir, "", nil
	}
	clean := filepath.Clean(dir)
	parent, base := filepath.Dir(clean), filepath.Base(clean)
	if strings.HasPrefix(base, rundir.VariantDir("")) {
		if _, perr := os.Stat(filepath.Join(parent, "config.yaml")); perr == nil {
			return parent, base, nil
		}
	}
	if _, gerr := os.Stat(filepath.Join(dir, "grid.yaml")); gerr == nil {
		return "", "", fmt.Errorf("inspect: %s is a grid; give one of its runs, e.g. %s", clean, filepath.Join(clean, "<run>"))
	}
	_, err = os.Stat(filepath.Join(dir, "config.yaml"))
	return "", "", fmt.Errorf("inspect: %s is not a run directory (%w); give the directory of one run, e.g. runs/default/position.kind-rope__seed-1", dir, err)
}

// checkEncodable rejects an input length whose sequence the scheme cannot encode (a learned table
// too short, randomized positions beyond max_random), naming the longest length it can.
func checkEncodable(s position.Scheme, task data.Task, L int) error {
	check := func(n int) error {
		if sm, ok := s.(position.Sampler); ok {
			if r, on := sm.Randomization(); on {
				return r.CheckPositions(n)
			}
		}
		if lc, ok := s.(position.LengthChecker); ok {
			return lc.CheckPositions(n)
		}
		return nil
	}
	err := check(data.SeqLen(task, L))
	if err == nil {
		return nil
	}
	longest := below(L, func(l int) bool { return check(data.SeqLen(task, l)) == nil })
	most := below(data.SeqLen(task, L), func(n int) bool { return check(n) == nil })
	field := "position.max_positions"
	if sm, ok := s.(position.Sampler); ok {
		if _, on := sm.Randomization(); on {
			field = "position.max_random"
		}
	}
	return fmt.Errorf("inspect: -length %d needs %d positions, more than the %d this run's %s scheme encodes (its %s); inspect a length of at most %d", L, data.SeqLen(task, L), most, s.Name(), field, longest)
}

// below is the largest x < n with ok(x), 0 when there is none.
func below(n int, ok func(int) bool) int {
	x := n - 1
	for x > 0 && !ok(x) {
		x--
	}
	return x
}
