package train

import (
	"testing"

	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/position"
)

// BenchmarkTrainStep is one training step (forward, backward, Adam) of the reference model:
// 2 layers, d_model 64, 4 heads, d_ff 256, vocab 16, batch 32, length 64, float32.
func BenchmarkTrainStep(b *testing.B) {
	for _, kind := range []string{"sinusoidal", "rope"} {
		b.Run(kind, func(b *testing.B) {
			m, err := model.New(model.Config{Vocab: 16, DModel: 64, Heads: 4, Layers: 2, DFF: 256, Seed: 1}, position.Spec{Kind: kind})
			if err != nil {
				b.Fatal(err)
			}
			const B, T = 32, 64
			g, err := m.Build(B, T, model.BuildOptions{Grad: true})
			if err != nil {
				b.Fatal(err)
			}
			defer g.Close()
			in := model.Input{Tokens: make([]int, B*T), Targets: make([]int, B*T), Weights: make([]float64, B*T)}
			for i := range in.Tokens {
				in.Tokens[i], in.Targets[i], in.Weights[i] = i%16, (i*7)%16, 1
			}
			adam := NewAdam(m.Params(), 0.9, 0.999, 1e-8, 0)
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
		})
	}
}
