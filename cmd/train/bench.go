package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/position"
	"github.com/posformer/posformer/setup"
	"github.com/posformer/posformer/train"
)

// benchOptions are the flags of `train bench`.
type benchOptions struct {
	cfg           model.Config
	batch, length int
	steps, warmup int
	chunks        int
	evalIters     int
	schemes       []string
	evalLens      []int
	schemesFlag   string
	evalLensFlag  string
	dtype         string
	train         bool
	peak          int
}

// runBench measures training steps (forward, backward, Adam) and forward-only evaluation of a
// model, and prints one BENCH line per measurement, last, on stdout, after the kernels each op
// family runs (ops.Kernels) and the machine's float32 matrix-product peak measured first
// (ops.SgemmPeak: -peak³ products on the same workers, best of 5; -peak 0 skips it):
//
//	KERNELS gemm_f32=avx2 gemm_f64=avx2 attention_softmax=avx2 gelu=avx2 cross_entropy=avx2 adam=avx2 layernorm_add_colsum=avx2
//	PEAK sgemm=2048 GFLOP/s=N
//	BENCH train scheme=sinusoidal tok/s=N ms/step=N alloc_MB/step=N allocs/step=N GFLOP/step=N GFLOP/s=N of_peak=N
//	BENCH eval scheme=sinusoidal T=64 tok/s=N GFLOP/s=N of_peak=N
//
// Each figure is the median over -chunks timed chunks, after -warmup untimed steps; of_peak is
// GFLOP/s over the peak (float32 models only).
func runBench(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o benchOptions
	fs.IntVar(&o.cfg.Layers, "layers", 2, "transformer blocks")
	fs.IntVar(&o.cfg.DModel, "d-model", 64, "model width")
	fs.IntVar(&o.cfg.Heads, "heads", 4, "attention heads (must divide -d-model)")
	fs.IntVar(&o.cfg.DFF, "d-ff", 256, "MLP hidden width")
	fs.IntVar(&o.cfg.Vocab, "vocab", 16, "vocabulary size")
	fs.IntVar(&o.batch, "batch", 32, "sequences per batch")
	fs.IntVar(&o.length, "len", 64, "training sequence length")
	fs.IntVar(&o.steps, "steps", 60, "timed training steps per scheme (split into -chunks chunks)")
	fs.IntVar(&o.warmup, "warmup", 5, "untimed training steps (and evaluation passes) before timing")
	fs.IntVar(&o.chunks, "chunks", 5, "timed chunks; the figures are medians over chunks")
	fs.IntVar(&o.evalIters, "eval-iters", 20, "timed forward passes per evaluation length (split into -chunks chunks)")
	fs.StringVar(&o.schemesFlag, "schemes", "sinusoidal,rope", "comma-separated position schemes: "+strings.Join(position.Kinds(), ", "))
	fs.StringVar(&o.evalLensFlag, "eval-lens", "64,128,256,512", "comma-separated forward-only sequence lengths (empty: none)")
	fs.StringVar(&o.dtype, "dtype", "float32", "float32 or float64")
	fs.BoolVar(&o.train, "train", true, "measure training steps (-train=false: only the evaluations at -eval-lens)")
	fs.IntVar(&o.peak, "peak", 2048, "side of the float32 products that measure the machine's matrix-product peak first (0: skip)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("bench: unexpected argument %q: %w (see train bench -h)", fs.Arg(0), errUsage)
	}
	if err := o.check(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	o.cfg.Dtype = o.dtype
	o.cfg.Seed = 1
	// Every model field comes from a flag (with its own default), checked above: none is 0, so
	// the model's defaults replace nothing.
	fmt.Fprintf(stderr, "bench: %s GOMAXPROCS=%d matmul=%s; model layers=%d d_model=%d heads=%d d_ff=%d vocab=%d %s; batch=%d len=%d\n",
		runtime.Version(), runtime.GOMAXPROCS(0), ops.Backend(), o.cfg.Layers, o.cfg.DModel, o.cfg.Heads, o.cfg.DFF, o.cfg.Vocab, o.dtype, o.batch, o.length)
	if w := ops.BLASWarning(); w != "" {
		fmt.Fprintln(stderr, "bench: warning:", w)
	}
	lines := []string{"KERNELS " + ops.Kernels()}
	peak := 0.0
	if o.peak > 0 {
		peak = ops.SgemmPeak(o.peak, 5)
		lines = append(lines, fmt.Sprintf("PEAK sgemm=%d GFLOP/s=%.1f", o.peak, peak))
		progress(stderr, lines[1])
	}
	ratioPeak := peak // a float32 peak: no of_peak for float64 models
	if o.dtype != "float32" {
		ratioPeak = 0
	}
	for _, scheme := range o.schemes {
		m, err := model.New(o.cfg, position.Spec{Kind: scheme})
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		if o.train {
			line, err := train.MeasureTrain(m, scheme, o.speed())
			if err != nil {
				return fmt.Errorf("bench: %s: %w", scheme, err)
			}
			line = ofPeak(line, ratioPeak)
			progress(stderr, line)
			lines = append(lines, line)
		}
		for _, T := range o.evalLens {
			line, err := train.MeasureEval(m, scheme, T, o.speed())
			if err != nil {
				return fmt.Errorf("bench: %s at T=%d: %w", scheme, T, err)
			}
			line = ofPeak(line, ratioPeak)
			progress(stderr, line)
			lines = append(lines, line)
		}
	}
	for _, l := range lines {
		fmt.Fprintln(stdout, l)
	}
	return nil
}

// ofPeak appends of_peak=, the line's GFLOP/s over peak, to a BENCH line (unchanged when the
// peak was not measured).
func ofPeak(line string, peak float64) string {
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, "GFLOP/s="); ok && peak > 0 {
			if x, err := strconv.ParseFloat(v, 64); err == nil {
				return fmt.Sprintf("%s of_peak=%.2f", line, x/peak)
			}
		}
	}
	return line
}

// progress reports a finished measurement on stderr (the BENCH lines all go to stdout at the end).
func progress(w io.Writer, line string) {
	fmt.Fprintln(w, "bench: measured", strings.TrimPrefix(line, "BENCH "))
}

// speed is the measurement's sizes and counts.
func (o *benchOptions) speed() train.SpeedOptions {
	return train.SpeedOptions{Batch: o.batch, Len: o.length, Steps: o.steps, Warmup: o.warmup, Chunks: o.chunks, EvalIters: o.evalIters}
}

func (o *benchOptions) check() error {
	const big = 1 << 30 // counts of steps and iterations: only time bounds them
	for _, f := range []struct {
		name     string
		v        int
		min, max int
	}{{"layers", o.cfg.Layers, 1, 256}, {"d-model", o.cfg.DModel, 1, 1 << 14}, {"heads", o.cfg.Heads, 1, 1 << 14}, {"d-ff", o.cfg.DFF, 1, 1 << 16},
		{"vocab", o.cfg.Vocab, 2, 1 << 20}, {"batch", o.batch, 1, 1 << 14}, {"len", o.length, 1, 1 << 15}, {"steps", o.steps, 1, big},
		{"warmup", o.warmup, 0, big}, {"chunks", o.chunks, 1, big}, {"eval-iters", o.evalIters, 1, big}, {"peak", o.peak, 0, 8192}} {
		if f.v < f.min || f.v > f.max {
			return fmt.Errorf("-%s must be between %d and %d, got %d", f.name, f.min, f.max, f.v)
		}
	}
	if o.cfg.DModel%o.cfg.Heads != 0 {
		return fmt.Errorf("-heads %d does not divide -d-model %d", o.cfg.Heads, o.cfg.DModel)
	}
	if o.steps < o.chunks || o.evalIters < o.chunks && o.evalLensFlag != "" {
		return fmt.Errorf("-steps (%d) and -eval-iters (%d) must be at least -chunks (%d)", o.steps, o.evalIters, o.chunks)
	}
	if o.dtype != "float32" && o.dtype != "float64" {
		return fmt.Errorf("-dtype must be float32 or float64, got %q", o.dtype)
	}
	for _, s := range strings.Split(o.schemesFlag, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if !slices.Contains(position.Kinds(), s) {
			return fmt.Errorf("-schemes: unknown scheme %q (known: %s)", s, strings.Join(position.Kinds(), ", "))
		}
		o.schemes = append(o.schemes, s)
	}
	if len(o.schemes) == 0 {
		return fmt.Errorf("-schemes is empty; name at least one of %s", strings.Join(position.Kinds(), ", "))
	}
	for _, s := range strings.Split(o.evalLensFlag, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		T, err := strconv.Atoi(s)
		if err != nil || T < 1 || T > 1<<15 {
			return fmt.Errorf("-eval-lens: %q is not a length between 1 and %d", s, 1<<15)
		}
		o.evalLens = append(o.evalLens, T)
	}
	if !o.train && len(o.evalLens) == 0 {
		return fmt.Errorf("-train=false with an empty -eval-lens measures nothing; give -eval-lens or drop -train=false")
	}
	return o.checkMemory()
}

// checkMemory refuses sizes whose graphs (model.GraphBytes, for the most demanding of the
// schemes) would not fit in setup.MaxMemoryBytes, naming the flags, before anything is allocated.
func (o *benchOptions) checkMemory() error {
	cfg := o.cfg
	cfg.Dtype = o.dtype
	need := func(T int, grad bool) int64 {
		var b int64
		for _, s := range o.schemes {
			b = max(b, model.GraphBytes(cfg, model.Shape{Batch: o.batch, Len: T, Grad: grad, Hooks: position.KindHooks(s)}))
		}
		return b
	}
	limit := setup.MaxMemoryBytes
	if b := need(o.length, true); o.train && b > limit {
		return fmt.Errorf("-len %d with -batch %d, -d-model %d, -heads %d and -layers %d needs about %.3g GB for a training step, more than posformer's limit of %.3g GB; lower one of them",
			o.length, o.batch, o.cfg.DModel, o.cfg.Heads, o.cfg.Layers, float64(b)/1e9, float64(limit)/1e9)
	}
	for _, T := range o.evalLens {
		if b := need(T, false); b > limit {
			return fmt.Errorf("-eval-lens: %d with -batch %d, -d-model %d and -layers %d needs about %.3g GB for a forward pass, more than posformer's limit of %.3g GB; lower it or -batch",
				T, o.batch, o.cfg.DModel, o.cfg.Layers, float64(b)/1e9, float64(limit)/1e9)
		}
	}
	return nil
}
