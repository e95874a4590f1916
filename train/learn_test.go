package train

import (
	"context"
	"testing"
)

// TestCanLearn: a tiny model fits copy of short sequences, for every scheme: the loss falls
// far below its start (ln 8 ≈ 2.08, chance over 8 symbols) and the in-range lengths are mostly
// solved exactly. NoPE has to discover positions through the causal mask alone and learns copy
// more slowly (Kazemnejad et al. 2023), so its bar in this budget is lower.
func TestCanLearn(t *testing.T) {
	if testing.Short() {
		t.Skip("trains four small models (about 15 s)")
	}
	for _, kind := range []string{"sinusoidal", "learned", "rope", "none"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			cfg := tinyConfig(t, t.TempDir(), "position.kind="+kind, "task.min_len=2", "task.max_len=5",
				"model.d_model=32", "model.layers=2", "model.heads=2", "model.d_ff=64",
				"train.steps=1000", "train.lr=0.003", "train.batch_size=32", "train.val_every=0",
				"eval.lengths=2..5", "eval.examples=64")
			res, err := Run(context.Background(), cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: final loss %.4f, in-range exact match %.3f", kind, res.FinalLoss, inRangeExact(res))
			maxLoss, minExact := 0.1, 0.9
			if kind == "none" {
				maxLoss, minExact = 0.3, 0.6
			}
			if res.FinalLoss > maxLoss || inRangeExact(res) < minExact {
				t.Errorf("%s did not learn copy: final loss %.4f, exact match %.3f", kind, res.FinalLoss, inRangeExact(res))
			}
		})
	}
}
