package main

import (
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/internal/presence"
	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/position"
	"github.com/posformer/posformer/train"
	"github.com/posformer/posformer/train/config"
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
}

// runBench measures training steps (forward, backward, Adam) and forward-only evaluation of a
// model, and prints one BENCH line per measurement, last, on stdout:
//
//	BENCH train scheme=sinusoidal tok/s=N ms/step=N alloc_MB/step=N allocs/step=N GFLOP/step=N GFLOP/s=N
//	BENCH eval scheme=sinusoidal T=64 tok/s=N GFLOP/s=N
//
// Each figure is the median over -chunks timed chunks, after -warmup untimed steps.
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
	// Every model field comes from a flag (with its own default): written, never replaced.
	o.cfg.Written = presence.Of("vocab", "d_model", "heads", "layers", "d_ff", "dtype", "init_seed")
	fmt.Fprintf(stderr, "bench: %s GOMAXPROCS=%d matmul=%s; model layers=%d d_model=%d heads=%d d_ff=%d vocab=%d %s; batch=%d len=%d\n",
		runtime.Version(), runtime.GOMAXPROCS(0), ops.Backend(), o.cfg.Layers, o.cfg.DModel, o.cfg.Heads, o.cfg.DFF, o.cfg.Vocab, o.dtype, o.batch, o.length)
	if w := ops.BLASWarning(); w != "" {
		fmt.Fprintln(stderr, "bench: warning:", w)
	}
	var lines []string
	for _, scheme := range o.schemes {
		m, err := model.New(o.cfg, position.Spec{Kind: scheme})
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		if o.train {
			line, err := benchTrain(m, scheme, o)
			if err != nil {
				return fmt.Errorf("bench: %s: %w", scheme, err)
			}
			progress(stderr, line)
			lines = append(lines, line)
		}
		for _, T := range o.evalLens {
			line, err := benchEval(m, scheme, T, o)
			if err != nil {
				return fmt.Errorf("bench: %s at T=%d: %w", scheme, T, err)
			}
			progress(stderr, line)
			lines = append(lines, line)
		}
	}
	for _, l := range lines {
		fmt.Fprintln(stdout, l)
	}
	return nil
}

// progress reports a finished measurement on stderr (the BENCH lines all go to stdout at the end).
func progress(w io.Writer, line string) {
	fmt.Fprintln(w, "bench: measured", strings.TrimPrefix(line, "BENCH "))
}

func (o *benchOptions) check() error {
	const big = 1 << 30 // counts of steps and iterations: only time bounds them
	for _, f := range []struct {
		name     string
		v        int
		min, max int
	}{{"layers", o.cfg.Layers, 1, 256}, {"d-model", o.cfg.DModel, 1, 1 << 14}, {"heads", o.cfg.Heads, 1, 1 << 14}, {"d-ff", o.cfg.DFF, 1, 1 << 16},
		{"vocab", o.cfg.Vocab, 2, 1 << 20}, {"batch", o.batch, 1, 1 << 14}, {"len", o.length, 1, 1 << 15}, {"steps", o.steps, 1, big},
		{"warmup", o.warmup, 0, big}, {"chunks", o.chunks, 1, big}, {"eval-iters", o.evalIters, 1, big}} {
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

// benchFLOPs is the work of a forward pass (times 3 for a training step) as
// python/posformer_torch.py counts it: 2 FLOPs per dense parameter (every parameter but the
// token embedding, for the schemes without parameters of their own) per token, plus
// 4·B·T²·d_model per layer for attention's two products.
func benchFLOPs(c model.Config, batch, T int) float64 {
	D, V, L := float64(c.DModel), float64(c.Vocab), float64(c.Layers)
	dense := model.Params(c, 0) - V*D // every parameter but the token embedding
	tokens := float64(batch * T)
	return 2*dense*tokens + 4*tokens*float64(T)*D*L
}

// checkMemory refuses sizes whose graphs (model.GraphBytes, for the most demanding of the
// schemes) would not fit in config.MaxMemoryBytes, naming the flags, before anything is allocated.
func (o *benchOptions) checkMemory() error {
	cfg := o.cfg
	cfg.Dtype = o.dtype
	need := func(T int, grad bool) int64 {
		var b int64
		for _, s := range o.schemes {
			b = max(b, model.GraphBytes(cfg, model.Shape{Batch: o.batch, Len: T, Grad: grad, Hooks: position.HooksOfKind(s)}))
		}
		return b
	}
	limit := config.MaxMemoryBytes
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

// benchInput is a batch of random tokens (next-token targets, every position scored).
func benchInput(batch, length, vocab int) model.Input {
	rng := rand.New(rand.NewPCG(1, 2))
	n := batch * length
	in := model.Input{Tokens: make([]int, n), Targets: make([]int, n), Weights: make([]float64, n)}
	for i := range in.Tokens {
		in.Tokens[i], in.Targets[i], in.Weights[i] = rng.IntN(vocab), rng.IntN(vocab), 1
	}
	return in
}

// chunkSizes splits n iterations into k chunks as evenly as possible.
func chunkSizes(n, k int) []int {
	s := make([]int, k)
	for i := range s {
		s[i] = n / k
		if i < n%k {
			s[i]++
		}
	}
	return s
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func benchTrain(m *model.Model, scheme string, o benchOptions) (string, error) {
	g, err := m.Build(o.batch, o.length, model.BuildOptions{Grad: true})
	if err != nil {
		return "", err
	}
	defer g.Close()
	in := benchInput(o.batch, o.length, o.cfg.Vocab)
	adam := train.NewAdam(m.Params(), 0.9, 0.999, 1e-8, 0)
	step := func() error {
		if _, err := g.Run(in); err != nil {
			return err
		}
		return adam.Update(m.Params(), g.Grads(), 1e-3, 1)
	}
	for i := 0; i < o.warmup; i++ {
		if err := step(); err != nil {
			return "", err
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var msPerStep []float64
	for _, n := range chunkSizes(o.steps, o.chunks) {
		start := time.Now()
		for i := 0; i < n; i++ {
			if err := step(); err != nil {
				return "", err
			}
		}
		msPerStep = append(msPerStep, float64(time.Since(start).Nanoseconds())/1e6/float64(n))
	}
	runtime.ReadMemStats(&after)
	ms := median(msPerStep)
	steps := float64(o.steps)
	fl := 3 * benchFLOPs(o.cfg, o.batch, o.length)
	return fmt.Sprintf("BENCH train scheme=%s tok/s=%.0f ms/step=%.2f alloc_MB/step=%.2f allocs/step=%.0f GFLOP/step=%.4f GFLOP/s=%.2f",
		scheme, float64(o.batch*o.length)/(ms/1e3), ms,
		float64(after.TotalAlloc-before.TotalAlloc)/1e6/steps, float64(after.Mallocs-before.Mallocs)/steps, fl/1e9, fl/1e6/ms), nil
}

func benchEval(m *model.Model, scheme string, T int, o benchOptions) (string, error) {
	g, err := m.Build(o.batch, T, model.BuildOptions{})
	if err != nil {
		return "", err
	}
	defer g.Close()
	in := benchInput(o.batch, T, o.cfg.Vocab)
	for i := 0; i < max(o.warmup, 1); i++ {
		if _, err := g.Run(in); err != nil {
			return "", err
		}
	}
	var tokPerSec []float64
	for _, n := range chunkSizes(o.evalIters, o.chunks) {
		start := time.Now()
		for i := 0; i < n; i++ {
			if _, err := g.Run(in); err != nil {
				return "", err
			}
		}
		tokPerSec = append(tokPerSec, float64(o.batch*T*n)/time.Since(start).Seconds())
	}
	tps := median(tokPerSec)
	fl := benchFLOPs(o.cfg, o.batch, T)
	return fmt.Sprintf("BENCH eval scheme=%s T=%d tok/s=%.0f GFLOP/s=%.2f", scheme, T, tps, fl*tps/float64(o.batch*T)/1e9), nil
}
