// Package train trains a posformer model from a config (package config, which reads,
// expands and validates it) and scores it at every test length: Adam with warm-up and cosine
// decay, global-norm clipping, periodic validation and early stopping, evaluation in and beyond
// the training range, and a run directory with the resolved config, metrics, results and a
// checkpoint. It also aggregates results over seeds (and the chance rule), and loads a finished
// run's model (LoadModel) for the commands on finished runs (packages inspect and export).
//
// Batching: every batch holds sequences of one length (data.Train draws a length per batch), so
// there is no padding and no attention mask beyond the causal one; the model keeps one compiled
// graph per sequence length, all bound to the same weights, within config.GraphCacheBytes.
package train

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/posformer/posformer/config"
	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/export"
	"github.com/posformer/posformer/internal/interrupt"
	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/pmath"
	"github.com/posformer/posformer/internal/regfile"
	"github.com/posformer/posformer/metric"
	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/position"
	"github.com/posformer/posformer/rundir"
	"github.com/posformer/posformer/setup"
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
	// Resume continues an existing run directory from its last checkpoint (and returns a
	// finished run's results without running it again).
	Resume bool

	// evaluated, when set (by tests), is told every length an evaluation scores (its progress
	// label and the length), not the lengths whose rows it reuses.
	evaluated func(label string, L int)
}

// ErrInterrupted is returned (wrapped) when the context is cancelled: in training, the run
// directory then holds a checkpoint of the last completed step; elsewhere it names the stage
// (an evaluation, inspect's) it stopped in.
var ErrInterrupted = errors.New("interrupted")

// Result is what a run measured.
type Result struct {
	Name   string `json:"name"`
	Task   string `json:"task"`
	Scheme string `json:"scheme"`
	// Variant is "eval=<name>" for the results of an eval variant (config.EvalVariant), empty for the
	// run's own evaluation.
	Variant      string  `json:"variant,omitempty"`
	Seed         uint64  `json:"seed"`
	MinLen       int     `json:"min_len"`
	MaxLen       int     `json:"max_len"`
	Params       int     `json:"params"`
	Steps        int     `json:"steps"`
	FinalLoss    float64 `json:"final_loss"`
	TrainSeconds float64 `json:"-"` // in timing.json: wall-clock figures vary between runs
	EvalSeconds  float64 `json:"-"`
	TokensPerSec float64 `json:"-"`
	// BestStep, BestScore and StopStep are set with train.early_stop: the step of the best
	// validation (the checkpoint evaluated), its score, and the step where training ended.
	BestStep  int     `json:"best_step,omitempty"`
	BestScore float64 `json:"best_val_score,omitempty"`
	StopStep  int     `json:"stop_step,omitempty"`
	// Diverged is set for a run whose training diverged (DivergedLossFactor): it has no scores.
	Diverged *Divergence    `json:"diverged,omitempty"`
	Lengths  []LengthResult `json:"lengths"`
	Dir      string         `json:"-"`
}

// Divergence is how a run's training diverged: the step (1-based) where the loss or a gradient
// stopped being finite or the loss exploded, what happened, and the field to change.
type Divergence struct {
	Step   int    `json:"step"`
	Reason string `json:"reason"`
	Fix    string `json:"fix"`
}

// DivergedLossFactor states when a run diverged besides a non-finite loss or gradient: its
// training loss at a step (the mean cross-entropy per target token) passes DivergedLossFactor
// times ln(vocabulary), the loss of a uniform guess. A model that bad has blown its weights up
// (train.lr: 1000 reaches 1e8) and does not come back; training stops there and the run is a
// result, diverged, with no scores.
const DivergedLossFactor = 100

// DivergedError is Run's error for a run that diverged. Its results.json records the divergence
// (Result.Diverged): a grid counts it as a finished cell and goes on; a single run fails with it.
type DivergedError struct {
	Dir string
	Divergence
}

func (e *DivergedError) Error() string {
	kept := "no checkpoint had been written yet"
	if ckpt := filepath.Join(e.Dir, "checkpoint.bin"); fileExists(ckpt) {
		kept = "the last good checkpoint is kept in " + ckpt
	}
	return fmt.Sprintf("step %d: %s; %s; %s, then start over with -force (the run is recorded as diverged)", e.Step, e.Reason, kept, e.Fix)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
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
	// ValToken is the same validation's token accuracy (the select: rule scores a tuning run by
	// either, ValidationScore).
	ValToken *float64 `json:"val_token_accuracy,omitempty"`
	// ValBitsPerByte is a windowed task's validation score (windowed.validator) in place of ValExact.
	ValBitsPerByte *float64 `json:"val_bits_per_byte,omitempty"`
}

// logged are the validation scores a line logs, by metric.
func (m *Metric) logged() map[string]**float64 {
	return map[string]**float64{metric.ExactMatch: &m.ValExact, metric.TokenAccuracy: &m.ValToken, metric.BitsPerByte: &m.ValBitsPerByte}
}

// Run checks one config (setup.Check: defaults filled, validated, checked against its model) and
// trains it (Train).
func Run(ctx context.Context, cfg config.Config, opt Options) (*Result, error) {
	if len(cfg.Sweep) > 0 {
		return nil, fmt.Errorf("the config has a sweep: run it as a grid (config.Expand, setup.CheckCells, grid.TrainCells)")
	}
	r, err := setup.Check(cfg)
	if err != nil {
		return nil, err
	}
	return Train(ctx, r, opt)
}

// Train trains and evaluates a checked run, building its model once, and writes its run
// directory Out/Name.
func Train(ctx context.Context, r *setup.Checked, opt Options) (*Result, error) {
	cfg, task := r.Config, r.Task
	m, err := r.Build() // the run's one model
	if err != nil {
		return nil, err
	}
	m.TrainLen = data.SeqLen(task, cfg.Task.MaxLen) // rope_scaling acts beyond it
	dir := filepath.Join(cfg.Out, cfg.Name)
	resolved, err := yaml.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	if opt.Progress != nil {
		fmt.Fprintf(opt.Progress, "%s: %s\n", cfg.Name, r.Memory)
	}
	adam := NewAdam(m.Params(), cfg.Train.Beta1, cfg.Train.Beta2, cfg.Train.Eps, cfg.Train.WeightDecay)
	if err := rundir.Inside(cfg.Out, dir); err != nil { // a grid's cell linked elsewhere
		return nil, err
	}
	entries, release, err := rundir.Open(dir)
	if err != nil {
		return nil, err
	}
	defer release()
	st, done, err := openRunDir(dir, entries, resolved, m, adam, opt)
	if err == nil && done != nil && done.Diverged != nil {
		return done, &DivergedError{Dir: dir, Divergence: *done.Diverged}
	}
	if err != nil || done != nil {
		return done, err
	}
	ev, err := openEvents(cfg, dir, st.Step) // TensorBoard's event file (nil with tfevents: false)
	if err != nil {
		return nil, err
	}
	defer ev.close()
	res := &Result{Name: cfg.Name, Task: cfg.Task.Name, Scheme: cfg.Position.Kind, Seed: cfg.Seed,
		MinLen: cfg.Task.MinLen, MaxLen: cfg.Task.MaxLen, Params: m.NumParams(), Steps: cfg.Train.Steps, Dir: dir}
	t0 := time.Now()
	if err := trainLoop(ctx, cfg, task, m, adam, st, dir, ev, opt); err != nil {
		var d *DivergedError
		if !errors.As(err, &d) {
			return nil, err
		}
		// A result: results.json records the divergence, without scores.
		res.Diverged, res.FinalLoss, res.TrainSeconds = &d.Divergence, st.LastLoss, time.Since(t0).Seconds()
		if werr := finish(dir, res, st, nil); werr != nil {
			return nil, werr
		}
		return res, err
	}
	res.FinalLoss, res.TokensPerSec = st.LastLoss, st.tokensPerSec
	res.TrainSeconds = time.Since(t0).Seconds()
	if cfg.Train.EarlyStop.On() {
		// The results are the best checkpoint's (rundir.ResultsCheckpoint).
		if err := LoadCheckpoint(filepath.Join(dir, rundir.BestCheckpoint), m, nil, nil); err != nil {
			return nil, err
		}
		res.BestStep, res.BestScore, res.StopStep = st.BestStep, st.BestScore, st.Step
	}

	t1 := time.Now()
	lengths, diag, err := evaluateLengths(ctx, cfg, task, m, opt, cfg.Name, nil)
	if err != nil {
		return nil, err
	}
	res.Lengths = lengths
	// The variants' results and the diagnostics first: results.json marks a finished run.
	if err := evaluateVariants(ctx, cfg, task, m, res, diag, opt); err != nil {
		return nil, err
	}
	res.EvalSeconds = time.Since(t1).Seconds()
	if err := writeDiagnostics(dir, diag); err != nil {
		return nil, err
	}
	if err := ev.lengths(lengths); err != nil {
		return nil, err
	}
	if err := ev.close(); err != nil {
		return nil, err
	}
	if err := finish(dir, res, st, cfg.ActiveVariants()); err != nil {
		return nil, err
	}
	if st.reexport { // as `train export -force` writes it: from the results' checkpoint and config.yaml
		em, ecfg, err := LoadModel(dir)
		if err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		if err := export.Write(filepath.Join(dir, rundir.ExportName), em, ecfg); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// trainState is what a checkpoint carries besides the weights and Adam's moments: the number of
// completed steps (which is also the data stream's position: batch i is a pure function of the
// seed and i, so no other random state exists; randomized positions are a pure function of the
// seed and i too, see position.PositionRNG) and the loss window of the next metrics line.
type trainState struct {
	Step     int
	Window   []float64
	LastLoss float64
	Tokens   int
	// The early-stopping state (train.early_stop; zero without it, so such checkpoints keep
	// their bytes): the best validation score, its step, the validations since, and whether the
	// rule stopped training (at Step).
	BestScore float64
	BestStep  int
	Bad       int
	Stopped   bool
	// Config is the fingerprint of the config that trained the weights (rundir.Fingerprint): a
	// resumed run with another refuses, naming the fields.
	Config string

	elapsed      float64  // seconds of training before this process (from metrics.jsonl, not saved)
	reexport     bool     // a re-evaluation of a run that had been exported: export it again (not saved)
	reevaluate   []byte   // a re-evaluation: the config.yaml written once the new results are (not saved)
	stale        []string // a re-evaluation: the directories of the old evaluation, removed then
	tokensPerSec float64
}

// trainLoop runs the optimisation from st.Step to the configured number of steps, appending to
// metrics.jsonl and the event file (ev) and checkpointing every train.checkpoint_every steps, at
// the end, and when the context is cancelled.
func trainLoop(ctx context.Context, cfg config.Config, task data.Task, m *model.Model, adam *Adam, st *trainState, dir string, ev *events, opt Options) error {
	defer interrupt.Saving(ctx)() // a signal waits for the checkpoint this loop saves when cancelled
	tc := cfg.Train
	stream := data.Train{Task: task, MinLen: cfg.Task.MinLen, MaxLen: cfg.Task.MaxLen, BatchSize: tc.BatchSize, Seed: cfg.Seed}
	params := m.Params()
	rnd, randomized := samplerOf(m)
	buildOpt := evalBuildOptions(m) // with randomized positions, MaxPos
	buildOpt.Grad = true
	ckpt := filepath.Join(dir, "checkpoint.bin")
	graphs := model.NewCache(m, buildOpt, config.GraphCacheBytes)
	defer graphs.Close()
	var validator func(*model.Model) (map[string]float64, error)
	if tc.ValEvery > 0 {
		var err error
		if validator, err = kindOf(task).validator(cfg); err != nil {
			return err
		}
	}
	if err := rundir.Inside(dir, filepath.Join(dir, "metrics.jsonl")); err != nil { // appended to, not replaced
		return err
	}
	mf, err := os.OpenFile(filepath.Join(dir, "metrics.jsonl"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("run directory: %w", err)
	}
	defer mf.Close()
	enc := json.NewEncoder(mf)
	pr := NewProgress(opt.Progress, opt.TTY, tc.Steps, "train "+cfg.Name)
	start := time.Now()
	startTokens := st.Tokens
	elapsed := func() float64 { return st.elapsed + time.Since(start).Seconds() }
	save := func() error { return SaveCheckpoint(ckpt, m, adam, st) }
	diverged := func(step int, reason string) error {
		return &DivergedError{Dir: dir, Divergence: Divergence{Step: step, Reason: reason, Fix: divergenceFix(cfg, step)}}
	}
	explodes := DivergedLossFactor * pmath.Log(float64(max(task.Vocab(), 2))) // amd64's bits on every CPU
	es := tc.EarlyStop
	for ; st.Step < tc.Steps && !st.Stopped; st.Step++ {
		step := st.Step
		if err := ctx.Err(); err != nil {
			if serr := save(); serr != nil {
				return fmt.Errorf("%w at step %d, and the checkpoint failed: %v", ErrInterrupted, step, serr)
			}
			return fmt.Errorf("%w at step %d of %d: checkpoint saved in %s; run the same command with -resume to continue", ErrInterrupted, step, tc.Steps, dir)
		}
		b, err := stream.Batch(step)
		if err != nil {
			return err
		}
		g, err := graphs.Get(b.B, b.T)
		if err != nil {
			return err
		}
		var pos []int // nil: 0..T-1
		if randomized {
			pos = rnd.Batch(position.PositionRNG(cfg.Seed, position.TrainStream, uint64(step)), b.B, b.T)
		}
		loss, err := g.Run(model.Input{Tokens: b.Inputs, Targets: b.Targets, Weights: b.Weights, Positions: pos,
			PositionRNG: position.PositionRNG(cfg.Seed, position.TokenStream, uint64(step))})
		if err != nil {
			return fmt.Errorf("step %d: %w", step+1, err)
		}
		if math.IsNaN(loss) || math.IsInf(loss, 0) {
			return diverged(step+1, fmt.Sprintf("the loss is %v", loss))
		}
		if loss > explodes {
			return diverged(step+1, fmt.Sprintf("the loss is %.3g, past %d × ln(vocabulary) = %.3g (it exploded)", loss, DivergedLossFactor, explodes))
		}
		grads := g.Grads()
		norm := GradNorm(grads)
		if math.IsNaN(norm) || math.IsInf(norm, 0) {
			return diverged(step+1, fmt.Sprintf("the gradient of %s is not finite", nonFinite(params, grads)))
		}
		scale := 1.0
		if tc.GradClip > 0 && norm > tc.GradClip {
			scale = tc.GradClip / norm
		}
		lr := LR(step, tc.Steps, tc.WarmupSteps, tc.LR, tc.MinLRRatio)
		if err := adam.Update(params, grads, lr, scale); err != nil {
			return err
		}
		st.Tokens += b.B * b.T
		st.Window = append(st.Window, loss)
		last := step == tc.Steps-1
		stop := false
		if (step+1)%tc.LogEvery == 0 || last {
			el := elapsed()
			st.LastLoss = mean(st.Window)
			st.Window = st.Window[:0]
			rec := Metric{Step: step + 1, Loss: st.LastLoss, LR: lr, GradNorm: norm, TokPerSec: float64(st.Tokens-startTokens) / time.Since(start).Seconds(), Elapsed: el}
			if tc.ValEvery > 0 && ((step+1)%tc.ValEvery == 0 || last) {
				v, err := validator(m) // an interruption waits for it
				if err != nil {
					return err
				}
				for name, field := range rec.logged() {
					if x, ok := v[name]; ok {
						*field = &x
					}
				}
				if es.On() {
					improved, s := observe(es, st, step+1, v[es.Metric])
					if improved {
						if err := SaveCheckpoint(filepath.Join(dir, rundir.BestCheckpoint), m, adam, &trainState{Step: step + 1}); err != nil {
							return err
						}
					}
					stop = s
				}
			}
			if err := enc.Encode(rec); err != nil {
				return diskFull(fmt.Errorf("writing metrics.jsonl: %w", err))
			}
			if err := ev.train(rec); err != nil {
				return err
			}
			pr.Update(step+1, fmt.Sprintf("loss %.4f %.0f tok/s", st.LastLoss, rec.TokPerSec))
		}
		if stop {
			st.Step, st.Stopped = step+1, true // the loop ends; the final save holds it
			break
		}
		if tc.CheckpointEvery > 0 && (step+1)%tc.CheckpointEvery == 0 && !last {
			st.Step++ // the checkpoint holds the state after this step
			err := save()
			st.Step--
			if err != nil {
				return err
			}
		}
	}
	pr.Done()
	st.tokensPerSec = float64(st.Tokens-startTokens) / math.Max(time.Since(start).Seconds(), 1e-9)
	return save()
}

// divergenceFix names what to change for a run that diverged at step (1-based): the
// initialisation when the untrained model already fails (no update has been made, so the
// learning rate is not the cause), train.weight_decay when each update scales the weights by
// 1 − lr·weight_decay ≤ 0 at a sane learning rate, else the learning rate.
func divergenceFix(cfg config.Config, step int) string {
	tc := cfg.Train
	switch {
	case step == 1:
		var opts []string
		for _, k := range cfg.Position.OptionKeys() {
			opts = append(opts, "position."+k)
		}
		what := "the model's initialisation"
		if len(opts) > 0 {
			what = "the scheme's options (" + strings.Join(opts, ", ") + ")"
		}
		return fmt.Sprintf("the untrained model already gives it, before any update, so train.lr is not the cause: check %s", what)
	case tc.LR < 1 && tc.LR*tc.WeightDecay >= 1:
		return fmt.Sprintf("train.lr × train.weight_decay = %g ≥ 1 makes each update scale the weights by 1 − lr·weight_decay ≤ 0: lower train.weight_decay", tc.LR*tc.WeightDecay)
	}
	return "lower train.lr or set train.grad_clip"
}

func nonFinite(params []nn.Param, grads []*tensor.Dense) string {
	for i, g := range grads {
		if n := GradNorm([]*tensor.Dense{g}); math.IsNaN(n) || math.IsInf(n, 0) {
			return params[i].Name
		}
	}
	return "an unknown tensor"
}

// Summary is the mean score in a metric over the training lengths and over the lengths past
// them, NaN where there is none.
func (r *Result) Summary(name string) (inRange, beyond float64) {
	var in, past []float64
	for _, l := range r.Lengths {
		switch {
		case l.InRange:
			in = append(in, l.Score(name))
		case l.Length > r.MaxLen:
			past = append(past, l.Score(name))
		}
	}
	return mean(in), mean(past)
}

// onlyTemp tells whether a run directory's entries are all temporary files of atomic writes
// (rundir.IsTemp) that a killed process left.
func onlyTemp(entries []os.DirEntry) bool {
	for _, e := range entries {
		if e.IsDir() || !rundir.IsTemp(e.Name()) {
			return false
		}
	}
	return true
}

// mean is the mean of xs, summed in order; NaN for none.
func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}

// openRunDir prepares the run directory (locked by this process, holding entries: rundir.Open)
// and returns the training state to start from, or the results of a run that already finished
// (with Resume). An existing directory is replaced only
// with Force (which removes only what posformer wrote, and only from a posformer run directory)
// and continued only with Resume; a directory holding another config is never resumed (the out:
// field aside: the directory is the same however -out spells it).
func openRunDir(dir string, entries []os.DirEntry, resolved []byte, m *model.Model, adam *Adam, opt Options) (*trainState, *Result, error) {
	fp := rundir.Fingerprint(resolved)
	fresh := func() (*trainState, *Result, error) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, fmt.Errorf("cannot create the run directory %s: %w (choose a writable -out)", dir, err)
		}
		if err := rundir.WriteFileAtomic(filepath.Join(dir, "config.yaml"), resolved); err != nil {
			return nil, nil, err
		}
		if err := rundir.WriteFileAtomic(filepath.Join(dir, "metrics.jsonl"), nil); err != nil {
			return nil, nil, err
		}
		return &trainState{Config: fp}, nil, nil
	}
	switch {
	case len(entries) == 0:
		return fresh()
	case onlyTemp(entries) && (opt.Resume || opt.Force):
		// A process killed inside fresh's first write (config.yaml) leaves only its temporary
		// file: nothing of the run was written, so it starts as a fresh one.
		for _, e := range entries {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return nil, nil, fmt.Errorf("run directory: %w", err)
			}
		}
		return fresh()
	case opt.Force:
		if err := rundir.Clear(dir, entries); err != nil {
			return nil, nil, err
		}
		return fresh()
	case !opt.Resume:
		return nil, nil, fmt.Errorf("run directory %s already exists: pass -resume to continue it, -force to overwrite it, or choose another -out or name", dir)
	}
	old, err := regfile.ReadFile(filepath.Join(dir, "config.yaml"))
	if err != nil {
		return nil, nil, fmt.Errorf("cannot resume %s: %w; pass -force to start it over", dir, err)
	}
	if _, _, err := config.ReadWritten(filepath.Join(dir, "config.yaml")); errors.Is(err, config.ErrDamaged) {
		return nil, nil, fmt.Errorf("cannot resume %s: %w", dir, err)
	}
	reevaluate := false
	// The same config: the same bytes but for out: (rundir.SameConfig), or a file an earlier
	// posformer wrote that reads back as it.
	if oldPath := filepath.Join(dir, "config.yaml"); !rundir.SameConfig(old, resolved) && !rundir.SameConfig(rewritten(oldPath, old), resolved) {
		if d := rundir.FingerprintDiff(rundir.Fingerprint(rewritten(oldPath, old)), fp); d != "" {
			return nil, nil, fmt.Errorf("cannot resume %s: it holds a run of a different config: %s; pass -force to start it over, or choose another -out or name", dir, d)
		}
		// Only evaluation settings changed: evaluate the trained weights again with them, once
		// the checkpoint is found to be theirs (below; a refusal keeps the old results).
		reevaluate = true
	}
	if res, err := ReadResult(dir); err == nil && !reevaluate {
		return nil, res, nil
	}
	// A process killed inside an atomic write leaves its temporary file (".name.tmp*"); the
	// renamed files are whole, so the leftovers are only litter.
	for _, e := range entries {
		if rundir.IsTemp(e.Name()) && !e.IsDir() {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
	st := &trainState{Config: fp}
	if err := LoadCheckpoint(filepath.Join(dir, "checkpoint.bin"), m, adam, st); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	if st.Config != fp {
		if !fingerprintless(*st) {
			return nil, nil, fmt.Errorf("cannot resume %s: its checkpoint.bin was trained with a different config than its config.yaml: %s; pass -force to start it over", dir, rundir.FingerprintDiff(st.Config, fp))
		}
		st.Config = fp
	}
	if reevaluate {
		// The old results stay until the new ones are written (finish): a re-evaluation
		// stopped part-way, or failing on a full disk, leaves the old results and the old
		// config.yaml, and -resume evaluates again.
		st.reevaluate = resolved
		for _, e := range entries { // the variants' results; inspect's and report's views of the old evaluation
			if e.IsDir() && (strings.HasPrefix(e.Name(), rundir.VariantDir("")) || e.Name() == "inspect" || e.Name() == "report") {
				st.stale = append(st.stale, e.Name())
			}
		}
		// The export's metadata holds the config: Run writes it again once the run is evaluated.
		st.reexport = fileExists(filepath.Join(dir, rundir.ExportName))
	}
	if st.elapsed, err = truncateMetrics(filepath.Join(dir, "metrics.jsonl"), st.Step); err != nil {
		return nil, nil, err
	}
	return st, nil, nil
}

// finish writes a run's results (WriteResults) and then ends a re-evaluation: config.yaml names
// the new evaluation settings, and the old evaluation's directories go (the variants not
// evaluated again, inspect's and report's views). The rest is for a re-evaluated run only.
func finish(dir string, res *Result, st *trainState, variants []config.EvalVariant) error {
	if err := WriteResults(dir, res); err != nil {
		return err
	}
	if st.reevaluate == nil {
		return nil
	}
	if err := rundir.WriteFileAtomic(filepath.Join(dir, "config.yaml"), st.reevaluate); err != nil {
		return err
	}
	for _, name := range st.stale {
		if slices.ContainsFunc(variants, func(v config.EvalVariant) bool { return rundir.VariantDir(v.Name) == name }) {
			continue // written again by this evaluation
		}
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			return fmt.Errorf("run directory: %w", err)
		}
	}
	return nil
}

// truncateMetrics drops the lines of metrics.jsonl logged after the checkpoint's step, so a
// resumed run's log has each step once. It returns the elapsed seconds of the last line kept.
func truncateMetrics(path string, step int) (float64, error) {
	src, err := regfile.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return 0, err
	}
	var keep []byte
	var elapsed float64
	for _, line := range bytes.SplitAfter(src, []byte("\n")) {
		var m Metric
		if len(bytes.TrimSpace(line)) == 0 || json.Unmarshal(line, &m) != nil || m.Step > step {
			continue // a torn last line or a step past the checkpoint
		}
		keep = append(keep, line...)
		elapsed = m.Elapsed
	}
	return elapsed, rundir.WriteFileAtomic(path, keep)
}
