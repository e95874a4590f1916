package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
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
	cfg          model.Config
	speed        train.SpeedOptions
	schemes      []string
	evalLens     []int
	schemesFlag  string
	evalLensFlag string
	dtype        string
	task         string
	train        bool
	peak         int
	entries      []benchEntry // what -schemes names, in order
}

// ints are bench's integer flags: each one's variable, default, bounds and help.
func (o *benchOptions) ints() []intFlag {
	const big = 1 << 30 // counts of steps and iterations: only time bounds them
	return []intFlag{{&o.cfg.Layers, "layers", 2, 1, 256, "transformer blocks"}, {&o.cfg.DModel, "d-model", 64, 1, 1 << 14, "model width"},
		{&o.cfg.Heads, "heads", 4, 1, 1 << 14, "attention heads (must divide -d-model)"}, {&o.cfg.DFF, "d-ff", 256, 1, 1 << 16, "MLP hidden width"},
		{&o.cfg.Vocab, "vocab", 16, 2, 1 << 20, "vocabulary size"}, {&o.speed.Batch, "batch", 32, 1, 1 << 14, "sequences per batch"},
		{&o.speed.Len, "len", 64, 1, 1 << 15, "training sequence length"},
		{&o.speed.Steps, "steps", 60, 1, big, "timed training steps per scheme (split into -chunks chunks)"},
		{&o.speed.Warmup, "warmup", 5, 0, big, "untimed training steps (and evaluation passes) before timing"},
		{&o.speed.Chunks, "chunks", 5, 1, big, "timed chunks; the figures are medians over chunks"},
		{&o.speed.EvalIters, "eval-iters", 20, 1, big, "timed forward passes per evaluation length (split into -chunks chunks)"},
		{&o.peak, "peak", 2048, 0, 8192, "side of the float32 products that measure the machine's matrix-product peak first (0: skip)"}}
}

// intFlag is an integer flag with its bounds.
type intFlag struct {
	p             *int
	name          string
	def, min, max int
	usage         string
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
//	RATIO train scheme=sinusoidal ms/step=N to_none=N alloc_MB/step=N
//	RATIO eval scheme=sinusoidal T=64 tok/s=N to_none=N
//
// Each figure is the median over -chunks timed chunks, after -warmup untimed steps; of_peak is
// GFLOP/s over the peak (float32 models only). -schemes names kinds, variants (bench_schemes.go:
// rope+log_scaling, rope+randomized, and rope's scalings, measured at -eval-lens only) or all;
// when none is among them, a RATIO line per measurement gives its time over none's
// (ratioLines). The tokens are random over -vocab; abacus and coupled number -task's digits.
func runBench(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o benchOptions
	for _, f := range o.ints() {
		fs.IntVar(f.p, f.name, f.def, f.usage)
	}
	fs.StringVar(&o.schemesFlag, "schemes", "sinusoidal,rope", "comma-separated position schemes ("+strings.Join(position.Kinds(), ", ")+
		"), variants ("+strings.Join(variantNames(), ", ")+"), or all: every scheme and variant")
	fs.StringVar(&o.task, "task", "addition", "the task whose digit tokens abacus and coupled number (the tokens stay random over -vocab): addition (digits 2..11, -vocab at least 13); empty: none")
	fs.StringVar(&o.evalLensFlag, "eval-lens", "64,128,256,512", "comma-separated forward-only sequence lengths (empty: none)")
	fs.StringVar(&o.dtype, "dtype", "float32", "float32 or float64")
	fs.BoolVar(&o.train, "train", true, "measure training steps (-train=false: only the evaluations at -eval-lens)")
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
		runtime.Version(), runtime.GOMAXPROCS(0), ops.Backend(), o.cfg.Layers, o.cfg.DModel, o.cfg.Heads, o.cfg.DFF, o.cfg.Vocab, o.dtype, o.speed.Batch, o.speed.Len)
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
	var results []benchResult
	for _, e := range o.entries {
		m, err := model.New(o.cfg, e.spec)
		if err != nil {
			return fmt.Errorf("bench: %s: %w", e.name, err)
		}
		m.TrainLen = o.speed.Len // the evaluations beyond -len are beyond training (rope's scalings act there)
		lens := o.evalLens
		if o.train && !e.evalOnly {
			lens = append([]int{0}, lens...) // 0: the training steps, at -len
		}
		for _, T := range lens {
			line, err := train.Measure(m, e.name, T == 0, T, o.speed)
			if err != nil && T == 0 {
				return fmt.Errorf("bench: %s: %w", e.name, err)
			} else if err != nil {
				return fmt.Errorf("bench: %s at T=%d: %w", e.name, T, err)
			}
			line = ofPeak(line, ratioPeak)
			progress(stderr, line)
			lines = append(lines, line)
			results = append(results, benchResult{line: line, name: e.name, T: T})
		}
	}
	lines = append(lines, ratioLines(results)...)
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

func (o *benchOptions) check() error {
	for _, f := range o.ints() {
		if *f.p < f.min || *f.p > f.max {
			return fmt.Errorf("-%s must be between %d and %d, got %d", f.name, f.min, f.max, *f.p)
		}
	}
	if o.cfg.DModel%o.cfg.Heads != 0 {
		return fmt.Errorf("-heads %d does not divide -d-model %d", o.cfg.Heads, o.cfg.DModel)
	}
	if sp := o.speed; sp.Steps < sp.Chunks || sp.EvalIters < sp.Chunks && o.evalLensFlag != "" {
		return fmt.Errorf("-steps (%d) and -eval-iters (%d) must be at least -chunks (%d)", sp.Steps, sp.EvalIters, sp.Chunks)
	}
	if o.dtype != "float32" && o.dtype != "float64" {
		return fmt.Errorf("-dtype must be float32 or float64, got %q", o.dtype)
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
	if err := o.parseSchemes(); err != nil {
		return err
	}
	return o.checkMemory()
}

// checkMemory refuses sizes whose graphs (model.GraphBytes, for the most demanding of the
// schemes) would not fit, naming the flags, before anything is allocated: in posformer's limit
// (setup.MaxMemoryBytes), or in what the process's own limits leave (setup.ProcessRoom: ulimit -v,
// a cgroup's memory.max), as training checks its runs. One graph is alive at a time (Measure
// closes each), beside the model's weights, Adam's moments and their gradients.
func (o *benchOptions) checkMemory() error {
	cfg := o.cfg
	cfg.Dtype = o.dtype
	need := func(T int, grad bool) int64 {
		var b int64
		for _, e := range o.entries {
			if grad && e.evalOnly {
				continue
			}
			spec := e.spec.WithDefaults()
			d := cfg.SchemeDims()
			sh := model.Shape{Batch: o.speed.Batch, Len: T, Grad: grad, Hooks: position.KindHooks(spec.Kind), Extra: int64(position.ParamCount(spec, d))}
			if spec.Randomized {
				sh.MaxPos = spec.MaxRandom
			}
			b = max(b, model.GraphBytes(cfg, sh)+model.ParamCount(cfg, sh.Extra)*int64(8+8+8+8)) // weights, gradient, Adam's two float64 moments
		}
		return b
	}
	limit, what := setup.MaxMemoryBytes, fmt.Sprintf("posformer's limit of %.3g GB", float64(setup.MaxMemoryBytes)/1e9)
	if room, w, ok := setup.ProcessRoom(0); ok && room-setup.RuntimeBytes < limit {
		limit, what = room-setup.RuntimeBytes, w
	}
	if b := need(o.speed.Len, true); o.train && b > limit {
		return fmt.Errorf("-len %d with -batch %d, -d-model %d, -heads %d and -layers %d needs about %.3g GB for a training step, more than %s; lower one of them",
			o.speed.Len, o.speed.Batch, o.cfg.DModel, o.cfg.Heads, o.cfg.Layers, float64(b)/1e9, what)
	}
	for _, T := range o.evalLens {
		if b := need(T, false); b > limit {
			return fmt.Errorf("-eval-lens: %d with -batch %d, -d-model %d and -layers %d needs about %.3g GB for a forward pass, more than %s; lower it or -batch",
				T, o.speed.Batch, o.cfg.DModel, o.cfg.Layers, float64(b)/1e9, what)
		}
	}
	return nil
}
