package train

import (
	"math"
	"math/rand/v2"
	"runtime"
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

// TestAdamUpdateSameBits: Update (one range over all parameters, split over the workers, float32
// eight at a time where the CPU allows) gives, on 1 and 2 cores, the bits of the per-parameter
// scalar update it replaced, for float32 parameters of odd sizes with and without weight decay,
// over several steps with a clipping scale.
func TestAdamUpdateSameBits(t *testing.T) {
	sizes := []struct {
		name string
		dims []int
	}{{"tok_emb", []int{16, 9}}, {"block0.attn.wq", []int{37, 29}}, {"block0.attn.bq", []int{29}}, {"block0.mlp.w1", []int{64, 300}}, {"block0.ln1.g", []int{3}}}
	run := func(procs int) [][]float32 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		rng := rand.New(rand.NewPCG(7, 8))
		var params []nn.Param
		var grads []*tensor.Dense
		for _, s := range sizes {
			params = append(params, nn.Param{Name: s.name, Value: nn.Normal(tensor.Float32, rng, 1, s.dims...)})
			grads = append(grads, nn.Full(tensor.Float32, 0, s.dims...))
		}
		a := NewAdam(params, 0.9, 0.98, 1e-8, 0.1)
		for step := 0; step < 3; step++ {
			for _, g := range grads {
				for i := range g.Data().([]float32) {
					g.Data().([]float32)[i] = float32(rng.NormFloat64() * 1e-2)
				}
			}
			if err := a.Update(params, grads, 1e-3, 0.5); err != nil {
				t.Fatal(err)
			}
		}
		out := make([][]float32, len(params))
		for i, p := range params {
			out[i] = append([]float32(nil), p.Value.Data().([]float32)...)
		}
		return out
	}
	// The reference: the update as it was, parameter by parameter, element by element.
	rng := rand.New(rand.NewPCG(7, 8))
	var ws, gs [][]float32
	var decay []bool
	for _, s := range sizes {
		p := nn.Param{Name: s.name, Value: nn.Normal(tensor.Float32, rng, 1, s.dims...)}
		ws = append(ws, p.Value.Data().([]float32))
		gs = append(gs, make([]float32, len(ws[len(ws)-1])))
		decay = append(decay, len(s.dims) == 2 && s.name != "tok_emb")
	}
	ms, vs := make([][]float64, len(ws)), make([][]float64, len(ws))
	for i := range ws {
		ms[i], vs[i] = make([]float64, len(ws[i])), make([]float64, len(ws[i]))
	}
	for step := 1; step <= 3; step++ {
		for _, g := range gs {
			for i := range g {
				g[i] = float32(rng.NormFloat64() * 1e-2)
			}
		}
		bc1, bc2 := 1-math.Pow(0.9, float64(step)), 1-math.Pow(0.98, float64(step))
		for i, w := range ws {
			wd := 0.0
			if decay[i] {
				wd = 0.1
			}
			m, v := ms[i], vs[i]
			for j := range w {
				gj := float64(gs[i][j]) * 0.5
				m[j] = float64(0.9*m[j]) + float64((1-0.9)*gj)
				v[j] = float64(0.98*v[j]) + float64(float64((1-0.98)*gj)*gj)
				x := float64(w[j])
				x -= float64(1e-3 * (m[j]/bc1/(math.Sqrt(v[j]/bc2)+1e-8) + float64(wd*x)))
				w[j] = float32(x)
			}
		}
	}
	for _, procs := range []int{1, 2} {
		got := run(procs)
		for i := range ws {
			for j := range ws[i] {
				if math.Float32bits(got[i][j]) != math.Float32bits(ws[i][j]) {
					t.Fatalf("GOMAXPROCS=%d: %s[%d] = %v, the element-wise update gives %v", procs, sizes[i].name, j, got[i][j], ws[i][j])
				}
			}
		}
	}
}

// TestAdamRefusesSizeMismatch: a parameter whose values, gradient or moments differ in length is
// an error naming it and every size, and nothing is updated (not even the step count); a longer
// parameter or gradient than its moments is refused too, not updated in part.
func TestAdamRefusesSizeMismatch(t *testing.T) {
	for _, c := range []struct {
		name  string
		w, g  int // lengths of the parameter and its gradient; the moments have 4
		wants string
	}{
		{"longer parameter", 6, 4, "adam: parameter w has 6 values, 4 gradients, moments of 4 and 4"},
		{"longer gradient", 4, 6, "adam: parameter w has 4 values, 6 gradients, moments of 4 and 4"},
		{"shorter gradient", 4, 3, "adam: parameter w has 4 values, 3 gradients, moments of 4 and 4"},
	} {
		w4 := nn.Full(tensor.Float32, 1, 4)
		a := NewAdam([]nn.Param{{Name: "w", Value: w4}}, 0.9, 0.999, 1e-8, 0)
		w := nn.Full(tensor.Float32, 1, c.w)
		g := nn.Full(tensor.Float32, 0.5, c.g)
		err := a.Update([]nn.Param{{Name: "w", Value: w}}, []*tensor.Dense{g}, 0.1, 1)
		if err == nil || err.Error() != c.wants {
			t.Errorf("%s: %v, want %q", c.name, err, c.wants)
		}
		for i, x := range w.Data().([]float32) {
			if x != 1 {
				t.Errorf("%s: w[%d] = %v after a refused update", c.name, i, x)
			}
		}
		if a.Step != 0 {
			t.Errorf("%s: step %d after a refused update", c.name, a.Step)
		}
	}
}
