package train

import (
	"testing"

	"github.com/posformer/posformer/model"
	"github.com/posformer/posformer/position"
)

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
			const B, T = 32, 13
			g, err := m.Build(B, T, model.BuildOptions{Grad: true})
			if err != nil {
				b.Fatal(err)
			}
			defer g.Close()
			in := benchInput(B * T)
			adam := NewAdam(m.Params(), 0.9, 0.999, 1e-8, 0)
			if _, err := g.Run(in); err != nil { // the first run allocates the ops' buffers
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
		})
	}
}
