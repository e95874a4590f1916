package train

import (
	"fmt"
	"testing"

	"github.com/posformer/posformer/model"
)

// TestFLOPs: the FLOP count of a training step is python/posformer_torch.py's for the same
// model: issue 15's (4 layers, d_model 256, 8 heads, d_ff 1024, vocab 16, batch 32, T 128),
// for which `posformer_torch.py bench` printed dense_params=3163664 and GFLOP/step=84.1927.
func TestFLOPs(t *testing.T) {
	c := model.Config{Vocab: 16, DModel: 256, Heads: 8, Layers: 4, DFF: 1024}
	want := 3 * (2*3163664*32*128 + 4*32*128*128*256*4)
	if got := 3 * FLOPs(c, 32, 128); got != float64(want) || fmt.Sprintf("%.4f", got/1e9) != "84.1927" {
		t.Errorf("FLOPs: %.0f FLOP per step, want %d (84.1927 GFLOP, PyTorch's count)", got, want)
	}
}
