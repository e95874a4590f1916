package train

import (
	"math"
	"testing"

	"github.com/posformer/posformer/internal/nn"
	"gorgonia.org/tensor"
)

// TestAdamFirstStep: after one step the bias-corrected moments are g and g², so every weight
// moves by lr·g/(|g|+eps) ≈ lr·sign(g), whatever the gradient's scale.
func TestAdamFirstStep(t *testing.T) {
	w := nn.FromFloat64(tensor.Float64, []float64{1, 2, 3, 4}, 2, 2)
	g := nn.FromFloat64(tensor.Float64, []float64{1e-3, -5, 100, -1e-6}, 2, 2)
	params := []nn.Param{{Name: "w", Value: w}}
	a := NewAdam(params, 0.9, 0.999, 1e-12, 0)
	if err := a.Update(params, []*tensor.Dense{g}, 0.1, 1); err != nil {
		t.Fatal(err)
	}
	want := []float64{0.9, 2.1, 2.9, 4.1}
	for i, x := range w.Data().([]float64) {
		if math.Abs(x-want[i]) > 1e-5 {
			t.Fatalf("w[%d] = %v, want %v", i, x, want[i])
		}
	}
}

// TestAdamConverges minimises Σ (w−c)² with its exact gradient.
func TestAdamConverges(t *testing.T) {
	c := []float64{3, -2, 0.5}
	w := nn.FromFloat64(tensor.Float32, []float64{0, 0, 0}, 3)
	params := []nn.Param{{Name: "w", Value: w}}
	a := NewAdam(params, 0.9, 0.999, 1e-8, 0)
	g := nn.FromFloat64(tensor.Float32, []float64{0, 0, 0}, 3)
	for step := 0; step < 2000; step++ {
		wd, gd := w.Data().([]float32), g.Data().([]float32)
		for i := range wd {
			gd[i] = 2 * (wd[i] - float32(c[i]))
		}
		if err := a.Update(params, []*tensor.Dense{g}, LR(step, 2000, 100, 0.05, 0.01), 1); err != nil {
			t.Fatal(err)
		}
	}
	for i, x := range w.Data().([]float32) {
		if math.Abs(float64(x)-c[i]) > 1e-3 {
			t.Fatalf("w[%d] = %v, want %v", i, x, c[i])
		}
	}
}

// TestWeightDecayOnlyOnMatrices: with a zero gradient, decay shrinks a weight matrix by lr·wd
// and leaves biases and the embedding table alone.
func TestWeightDecayOnlyOnMatrices(t *testing.T) {
	params := []nn.Param{
		{Name: "block0.mlp.w1", Value: nn.Full(tensor.Float64, 1, 2, 2)},
		{Name: "block0.mlp.b1", Value: nn.Full(tensor.Float64, 1, 2)},
		{Name: "tok_emb", Value: nn.Full(tensor.Float64, 1, 2, 2)},
		{Name: "pos.learned.table", Value: nn.Full(tensor.Float64, 1, 2, 2)},
	}
	grads := []*tensor.Dense{nn.Full(tensor.Float64, 0, 2, 2), nn.Full(tensor.Float64, 0, 2), nn.Full(tensor.Float64, 0, 2, 2), nn.Full(tensor.Float64, 0, 2, 2)}
	a := NewAdam(params, 0.9, 0.999, 1e-8, 0.5)
	if err := a.Update(params, grads, 0.1, 1); err != nil {
		t.Fatal(err)
	}
	want := []float64{0.95, 1, 1, 1}
	for i, p := range params {
		if got := p.Value.Data().([]float64)[0]; math.Abs(got-want[i]) > 1e-12 {
			t.Errorf("%s: %v after decay, want %v", p.Name, got, want[i])
		}
	}
}

func TestLRSchedule(t *testing.T) {
	const steps, warm, peak, ratio = 100, 10, 1.0, 0.1
	if got := LR(warm-1, steps, warm, peak, ratio); got != peak {
		t.Errorf("end of warm-up: %v, want %v", got, peak)
	}
	if got := LR(steps-1, steps, warm, peak, ratio); math.Abs(got-peak*ratio) > 1e-12 {
		t.Errorf("last step: %v, want %v", got, peak*ratio)
	}
	prev := 0.0
	for s := 0; s < steps; s++ {
		lr := LR(s, steps, warm, peak, ratio)
		if s < warm && !(lr > prev) || s >= warm && !(lr <= prev) || lr <= 0 {
			t.Fatalf("step %d: lr %v after %v: warm-up must rise, decay must fall", s, lr, prev)
		}
		prev = lr
	}
}

func TestGradNorm(t *testing.T) {
	g := []*tensor.Dense{nn.FromFloat64(tensor.Float32, []float64{3, 0}, 2), nn.FromFloat64(tensor.Float32, []float64{4}, 1)}
	if n := GradNorm(g); n != 5 {
		t.Fatalf("norm %v, want 5", n)
	}
}
