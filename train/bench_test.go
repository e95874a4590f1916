package train

import (
	"fmt"
	"testing"

	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/position"
)

// benchInput is a batch of fixed tokens and targets, every position scored.
func benchInput(n int) model.Input {
	in := model.Input{Tokens: make([]int, n), Targets: make([]int, n), Weights: make([]float64, n)}
	for i := range in.Tokens {
		in.Tokens[i], in.Targets[i], in.Weights[i] = i%16, (i*7)%16, 1
	}
	return in
}

func benchModel(b *testing.B, kind string) *model.Model {
	m, err := model.New(model.Config{Vocab: 16, DModel: 64, Heads: 4, Layers: 2, DFF: 256, Seed: 1}, position.Spec{Kind: kind})
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// BenchmarkTrainStep is one training step (forward, backward, Adam) of the reference model:
// 2 layers, d_model 64, 4 heads, d_ff 256, vocab 16, batch 32, length 64, float32.
func BenchmarkTrainStep(b *testing.B) {
	for _, kind := range []string{"sinusoidal", "rope"} {
		b.Run(kind, func(b *testing.B) { benchStep(b, benchModel(b, kind), 32, 64) })
	}
}

// BenchmarkTrainStepDefault is one training step of the default experiment's model
// (configs/default.yaml: 4 layers, d_model 128, 4 heads, d_ff 512) on a batch of 32 sequences
// of length 13 (input length 6 of copy with its end token), float32: the step a grid of small
// models repeats. Run it with -cpu 1 for a run of a grid sharing the cores (-jobs 2 on 2 cores).
func BenchmarkTrainStepDefault(b *testing.B) {
	for _, kind := range []string{"none", "rope"} {
		b.Run(kind, func(b *testing.B) {
			m, err := model.New(model.Config{Vocab: 16, DModel: 128, Heads: 4, Layers: 4, DFF: 512, Seed: 1}, position.Spec{Kind: kind})
			if err != nil {
				b.Fatal(err)
			}
			benchStep(b, m, 32, 13)
		})
	}
}

// benchStep times training steps (forward, backward, Adam) of m on a batch of B sequences of
// length T.
func benchStep(b *testing.B, m *model.Model, B, T int) {
	g, err := m.Build(B, T, model.BuildOptions{Grad: true})
	if err != nil {
		b.Fatal(err)
	}
	defer g.Close()
	in := benchInput(B * T)
	adam := NewAdam(m.Params(), 0.9, 0.999, 1e-8, 0)
	// One untimed step: the first run allocates the ops' buffers, the first update touches
	// Adam's moments (at research scale 50 MB of new pages: about 70 ms of wall time here,
	// which a 6-step benchmark counted as 11 ms a step).
	if _, err := g.Run(in); err != nil {
		b.Fatal(err)
	}
	if err := adam.Update(m.Params(), g.Grads(), 1e-3, 1); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := g.Run(in); err != nil {
			b.Fatal(err)
		}
		if err := adam.Update(m.Params(), g.Grads(), 1e-3, 1); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(B*T)*float64(b.N)/b.Elapsed().Seconds(), "tok/s")
}

// BenchmarkEval is one forward pass (no gradient) of the reference model on a batch of 32
// sequences of length T = 64..512, as PyTorch's reference measures evaluation.
func BenchmarkEval(b *testing.B) {
	for _, kind := range []string{"sinusoidal", "rope"} {
		for _, T := range []int{64, 128, 256, 512} {
			b.Run(fmt.Sprintf("%s/T=%d", kind, T), func(b *testing.B) {
				m := benchModel(b, kind)
				const B = 32
				g, err := m.Build(B, T, model.BuildOptions{})
				if err != nil {
					b.Fatal(err)
				}
				defer g.Close()
				in := benchInput(B * T)
				if _, err := g.Run(in); err != nil { // the first run allocates the ops' buffers
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := g.Run(in); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(B*T)*float64(b.N)/b.Elapsed().Seconds(), "tok/s")
			})
		}
	}
}

// BenchmarkTrainStepLarge is one training step of issue 15's research-scale model: 4 layers,
// d_model 256, 8 heads, d_ff 1024, vocab 16, batch 32, length 128, float32, sinusoidal.
func BenchmarkTrainStepLarge(b *testing.B) {
	m, err := model.New(model.Config{Vocab: 16, DModel: 256, Heads: 8, Layers: 4, DFF: 1024, Seed: 1}, position.Spec{Kind: "sinusoidal"})
	if err != nil {
		b.Fatal(err)
	}
	benchStep(b, m, 32, 128)
}
