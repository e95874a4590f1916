// Package train trains a posformer model from a Config and scores it at every test length:
// Adam with warm-up and cosine decay, global-norm clipping, periodic validation, evaluation in
// and beyond the training range, and a run directory with the resolved config, metrics,
// results and a checkpoint.
//
// Batching: every batch holds sequences of one length (data.Train draws a length per batch), so
// there is no padding and no attention mask beyond the causal one; the model keeps one compiled
// graph per sequence length, all bound to the same weights.
package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/model"
	"go.yaml.in/yaml/v3"
	"gorgonia.org/tensor"
)

// Options control a run's side effects.
type Options struct {
	// Progress receives progress reports (nil: none); TTY selects a bar over plain lines.
	Progress io.Writer
	TTY      bool
	// Force lets a run replace an existing run directory.
	Force bool
}

// Result is what a run measured.
type Result struct {
	Name         string         `json:"name"`
	Task         string         `json:"task"`
	Scheme       string         `json:"scheme"`
	Seed         uint64         `json:"seed"`
	MinLen       int            `json:"min_len"`
	MaxLen       int            `json:"max_len"`
	Params       int            `json:"params"`
	Steps        int            `json:"steps"`
	FinalLoss    float64        `json:"final_loss"`
	TrainSeconds float64        `json:"-"` // in timing.json: wall-clock figures vary between runs
	EvalSeconds  float64        `json:"-"`
	TokensPerSec float64        `json:"-"`
	InRangeExact float64        `json:"in_range_exact_match"`
	BeyondExact  float64        `json:"beyond_range_exact_match"`
	InRangeToken float64        `json:"in_range_token_accuracy"`
	BeyondToken  float64        `json:"beyond_range_token_accuracy"`
	Lengths      []LengthResult `json:"lengths"`
	Dir          string         `json:"-"`
}

// Metric is one line of metrics.jsonl.
type Metric struct {
	Step      int      `json:"step"`
	Loss      float64  `json:"loss"`
	LR        float64  `json:"lr"`
	GradNorm  float64  `json:"grad_norm"`
	TokPerSec float64  `json:"tokens_per_second"`
	Elapsed   float64  `json:"elapsed_seconds"`
	ValExact  *float64 `json:"val_exact_match,omitempty"`
}

// Run trains and evaluates one config (defaults filled and validated by Load/Parse) and writes
// its run directory Out/Name.
func Run(ctx context.Context, cfg Config, opt Options) (*Result, error) {
	if len(cfg.Sweep) > 0 {
		return nil, fmt.Errorf("the config has a sweep: run it as a grid (train.Expand, train.RunGrid)")
	}
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	task, err := data.New(cfg.Task.Name, data.Options{Symbols: cfg.Task.Symbols})
	if err != nil {
		return nil, fmt.Errorf("task.name: %w", err)
	}
	m, err := cfg.newModel(task)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(cfg.Out, cfg.Name)
	if err := prepareDir(dir, opt.Force); err != nil {
		return nil, err
	}
	resolved, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(filepath.Join(dir, "config.yaml"), resolved); err != nil {
		return nil, err
	}
	mf, err := os.Create(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("run directory: %w", err)
	}
	defer mf.Close()

	res := &Result{Name: cfg.Name, Task: cfg.Task.Name, Scheme: cfg.Position.Kind, Seed: cfg.Seed,
		MinLen: cfg.Task.MinLen, MaxLen: cfg.Task.MaxLen, Params: m.NumParams(), Steps: cfg.Train.Steps, Dir: dir}
	t0 := time.Now()
	opt2 := NewAdam(m.Params(), cfg.Train.Beta1, cfg.Train.Beta2, cfg.Train.Eps, cfg.Train.WeightDecay)
	if res.FinalLoss, res.TokensPerSec, err = trainLoop(ctx, cfg, task, m, opt2, mf, opt); err != nil {
		return nil, err
	}
	res.TrainSeconds = time.Since(t0).Seconds()
	if err := SaveCheckpoint(filepath.Join(dir, "checkpoint.bin"), m, opt2); err != nil {
		return nil, err
	}

	t1 := time.Now()
	pr := NewProgress(opt.Progress, opt.TTY, len(cfg.Eval.Lengths), "eval "+cfg.Name)
	for i, L := range cfg.Eval.Lengths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ex, err := data.TestSet(task, L, cfg.Eval.Examples, cfg.Eval.Seed)
		if err != nil {
			return nil, err
		}
		lr, err := Evaluate(m, ex, task, cfg.Eval.BatchSize)
		if err != nil {
			return nil, err
		}
		lr.InRange = L >= cfg.Task.MinLen && L <= cfg.Task.MaxLen
		res.Lengths = append(res.Lengths, lr)
		pr.Update(i+1, fmt.Sprintf("length %d exact %.3f", L, lr.ExactMatch))
	}
	pr.Done()
	res.EvalSeconds = time.Since(t1).Seconds()
	res.summarize()
	if err := writeResults(dir, res); err != nil {
		return nil, err
	}
	return res, nil
}

// trainLoop runs the optimisation and returns the mean loss of the last log window and the
// training throughput.
func trainLoop(ctx context.Context, cfg Config, task data.Task, m *model.Model, adam *Adam, metrics io.Writer, opt Options) (float64, float64, error) {
	tc := cfg.Train
	stream := data.Train{Task: task, MinLen: cfg.Task.MinLen, MaxLen: cfg.Task.MaxLen, BatchSize: tc.BatchSize, Seed: cfg.Seed}
	params := m.Params()
	graphs := map[int]*model.Graph{}
	defer func() {
		for _, g := range graphs {
			g.Close()
		}
	}()
	val := map[int][]data.Example{}
	if tc.ValEvery > 0 {
		for L := cfg.Task.MinLen; L <= cfg.Task.MaxLen; L++ {
			ex, err := data.TestSet(task, L, tc.ValExamples, cfg.Eval.Seed^0x7a11da7e)
			if err != nil {
				return 0, 0, err
			}
			val[L] = ex
		}
	}
	enc := json.NewEncoder(metrics)
	pr := NewProgress(opt.Progress, opt.TTY, tc.Steps, "train "+cfg.Name)
	start := time.Now()
	var tokens int
	var window []float64
	var lastLoss float64
	for step := 0; step < tc.Steps; step++ {
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		b, err := stream.Batch(step)
		if err != nil {
			return 0, 0, err
		}
		g, ok := graphs[b.T]
		if !ok {
			if g, err = m.Build(b.B, b.T, model.BuildOptions{Grad: true}); err != nil {
				return 0, 0, err
			}
			graphs[b.T] = g
		}
		loss, err := g.Run(model.Input{Tokens: b.Inputs, Targets: b.Targets, Weights: b.Weights})
		if err != nil {
			return 0, 0, fmt.Errorf("step %d: %w", step, err)
		}
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return 0, 0, fmt.Errorf("step %d: the loss is %v; lower train.lr or set train.grad_clip", step, loss)
		}
		grads := g.Grads()
		norm := GradNorm(grads)
		if math.IsNaN(norm) || math.IsInf(norm, 0) {
			return 0, 0, fmt.Errorf("step %d: the gradient of %s is not finite; lower train.lr or set train.grad_clip", step, nonFinite(params, grads))
		}
		scale := 1.0
		if tc.GradClip > 0 && norm > tc.GradClip {
			scale = tc.GradClip / norm
		}
		lr := LR(step, tc.Steps, tc.WarmupSteps, tc.LR, tc.MinLRRatio)
		if err := adam.Update(params, grads, lr, scale); err != nil {
			return 0, 0, err
		}
		tokens += b.B * b.T
		window = append(window, loss)
		last := step == tc.Steps-1
		if (step+1)%tc.LogEvery == 0 || last {
			el := time.Since(start).Seconds()
			mean := 0.0
			for _, l := range window {
				mean += l
			}
			lastLoss = mean / float64(len(window))
			window = window[:0]
			rec := Metric{Step: step + 1, Loss: lastLoss, LR: lr, GradNorm: norm, TokPerSec: float64(tokens) / el, Elapsed: el}
			if tc.ValEvery > 0 && ((step+1)%tc.ValEvery == 0 || last) {
				v, err := validate(m, task, val, cfg.Eval.BatchSize)
				if err != nil {
					return 0, 0, err
				}
				rec.ValExact = &v
			}
			if err := enc.Encode(rec); err != nil {
				return 0, 0, fmt.Errorf("writing metrics.jsonl: %w", err)
			}
			pr.Update(step+1, fmt.Sprintf("loss %.4f %.0f tok/s", lastLoss, rec.TokPerSec))
		}
	}
	pr.Done()
	return lastLoss, float64(tokens) / time.Since(start).Seconds(), nil
}

// validate is the mean exact match over the training lengths' validation sets.
func validate(m *model.Model, task data.Task, val map[int][]data.Example, batchSize int) (float64, error) {
	var s float64
	for _, ex := range val {
		r, err := Evaluate(m, ex, task, batchSize)
		if err != nil {
			return 0, err
		}
		s += r.ExactMatch
	}
	return s / float64(len(val)), nil
}

func nonFinite(params []nn.Param, grads []*tensor.Dense) string {
	for i, g := range grads {
		if n := GradNorm([]*tensor.Dense{g}); math.IsNaN(n) || math.IsInf(n, 0) {
			return params[i].Name
		}
	}
	return "an unknown tensor"
}

func (r *Result) summarize() {
	var in, beyond, inT, beyondT float64
	var nIn, nBeyond int
	for _, l := range r.Lengths {
		switch {
		case l.InRange:
			in += l.ExactMatch
			inT += l.TokenAccuracy
			nIn++
		case l.Length > r.MaxLen:
			beyond += l.ExactMatch
			beyondT += l.TokenAccuracy
			nBeyond++
		}
	}
	r.InRangeExact, r.InRangeToken = in/float64(max(nIn, 1)), inT/float64(max(nIn, 1))
	r.BeyondExact, r.BeyondToken = beyond/float64(max(nBeyond, 1)), beyondT/float64(max(nBeyond, 1))
	if nIn == 0 {
		r.InRangeExact, r.InRangeToken = math.NaN(), math.NaN()
	}
	if nBeyond == 0 {
		r.BeyondExact, r.BeyondToken = math.NaN(), math.NaN()
	}
}

// prepareDir makes the run directory, refusing to replace an existing non-empty one unless force.
func prepareDir(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	switch {
	case err == nil && len(entries) > 0 && !force:
		return fmt.Errorf("run directory %s already exists: pass -force to overwrite it, or choose another -out or name", dir)
	case err == nil && len(entries) > 0:
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("run directory: %w", err)
		}
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("run directory: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the run directory %s: %w (choose a writable -out)", dir, err)
	}
	return nil
}
