package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/posformer/posformer/position"
)

// TestEvalSameBitsAsTraining: an evaluation graph (attention by blocks of rows, a RowBiaser's
// bias evaluated inside the attention) computes the logits of a training graph's forward pass
// (every head's weights kept, the bias as a [H, T, T] tensor) bit for bit, for every scheme
// (fire also with its threshold L below the positions, where the normaliser moves with the
// query), in float32 and float64, at a length of several blocks of rows.
func TestEvalSameBitsAsTraining(t *testing.T) {
	const B, T = 2, 61
	vs := append(append([]variant{}, schemes...), variant{name: "fire_small_L", spec: position.Spec{Kind: "fire"}.With("init_l", 3.0)})
	for _, dtype := range []string{"float32", "float64"} {
		for _, v := range vs {
			m := tinyVariant(t, v, dtype)
			if r, ok := m.Scheme.(position.Sampler); ok {
				if _, on := r.Randomization(); on {
					continue // positions drawn per graph
				}
			}
			if v.spec.Kind == "learned" {
				continue // a table of 16 rows
			}
			perturb(m, 7, 0.3)
			rng := rand.New(rand.NewPCG(3, 4))
			in := randomInput(rng, B, T, m.Cfg.Vocab)
			eval, train := logitsOf(t, m, B, T, BuildOptions{}, in), logitsOf(t, m, B, T, BuildOptions{Grad: true}, in)
			for i := range train {
				if math.Float64bits(eval[i]) != math.Float64bits(train[i]) {
					t.Fatalf("%s %s: logit %d is %v in evaluation, %v in training", dtype, v.name, i, eval[i], train[i])
				}
			}
		}
	}
}
