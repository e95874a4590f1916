package train

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"time"

	"github.com/posformer/posformer/model"
)

// SpeedOptions are the sizes and counts of a speed measurement (`train bench`).
type SpeedOptions struct {
	Batch, Len    int // the training graph's batch and sequence length
	Steps, Warmup int // timed and untimed training steps (Warmup also untimed forward passes)
	Chunks        int // timed chunks: every figure is the median over them
	EvalIters     int // timed forward passes per evaluation length
}

// FLOPs is the work of a forward pass (times 3 for a training step) as
// python/posformer_torch.py counts it: 2 FLOPs per dense parameter (every parameter but the
// token embedding, for the schemes without parameters of their own) per token, plus
// 4·B·T²·d_model per layer for attention's two products.
func FLOPs(c model.Config, batch, T int) float64 {
	D, V, L := float64(c.DModel), float64(c.Vocab), float64(c.Layers)
	dense := model.Params(c, 0) - V*D // every parameter but the token embedding
	tokens := float64(batch * T)
	return 2*dense*tokens + 4*tokens*float64(T)*D*L
}

// speedInput is a batch of random tokens (next-token targets, every position scored).
func speedInput(batch, length, vocab int) model.Input {
	rng := rand.New(rand.NewPCG(1, 2))
	n := batch * length
	in := model.Input{Tokens: make([]int, n), Targets: make([]int, n), Weights: make([]float64, n)}
	for i := range in.Tokens {
		in.Tokens[i], in.Targets[i], in.Weights[i] = rng.IntN(vocab), rng.IntN(vocab), 1
	}
	return in
}

// timeChunks runs f n times in k timed chunks (as evenly split as possible) and returns each
// chunk's seconds per run.
func timeChunks(n, k int, f func() error) ([]float64, error) {
	var out []float64
	for c := 0; c < k; c++ {
		size := n/k + min(max(n%k-c, 0), 1)
		start := time.Now()
		for i := 0; i < size; i++ {
			if err := f(); err != nil {
				return nil, err
			}
		}
		out = append(out, time.Since(start).Seconds()/float64(size))
	}
	return out, nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Measure times m and returns its BENCH line: with train, training steps (forward, backward,
// AdamW) at o.Len, reporting tokens per second, milliseconds, allocations and FLOPs per step,
// the medians over o.Chunks timed chunks of o.Steps after o.Warmup untimed steps; else forward
// passes (no gradients) at length T, reporting tokens per second and GFLOP/s, the medians over
// o.Chunks timed chunks of o.EvalIters after at least one untimed pass. Every batch is random
// tokens.
func Measure(m *model.Model, scheme string, train bool, T int, o SpeedOptions) (string, error) {
	if train {
		T = o.Len
	}
	g, err := m.Build(o.Batch, T, model.BuildOptions{Grad: train})
	if err != nil {
		return "", err
	}
	defer g.Close()
	in := speedInput(o.Batch, T, m.Cfg.Vocab)
	run := func() error { _, err := g.Run(in); return err }
	n, warmup := o.EvalIters, max(o.Warmup, 1)
	if train {
		adam := NewAdam(m.Params(), 0.9, 0.999, 1e-8, 0)
		forward := run
		run = func() error {
			if err := forward(); err != nil {
				return err
			}
			return adam.Update(m.Params(), g.Grads(), 1e-3, 1)
		}
		n, warmup = o.Steps, o.Warmup
	}
	for range warmup {
		if err := run(); err != nil {
			return "", err
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	per, err := timeChunks(n, o.Chunks, run)
	if err != nil {
		return "", err
	}
	runtime.ReadMemStats(&after)
	fl := FLOPs(m.Cfg, o.Batch, T)
	if !train {
		tps := float64(o.Batch*T) / median(per)
		return fmt.Sprintf("BENCH eval scheme=%s T=%d tok/s=%.0f GFLOP/s=%.2f", scheme, T, tps, fl*tps/float64(o.Batch*T)/1e9), nil
	}
	ms, steps := median(per)*1e3, float64(n)
	return fmt.Sprintf("BENCH train scheme=%s tok/s=%.0f ms/step=%.2f alloc_MB/step=%.2f allocs/step=%.0f GFLOP/step=%.4f GFLOP/s=%.2f",
		scheme, float64(o.Batch*T)/(ms/1e3), ms,
		float64(after.TotalAlloc-before.TotalAlloc)/1e6/steps, float64(after.Mallocs-before.Mallocs)/steps, 3*fl/1e9, 3*fl/1e6/ms), nil
}
