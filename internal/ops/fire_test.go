package ops

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// fireTheta is a random θ for FIRE: the MLP's weights ~ N(0, scale), c and m of either sign
// around 0.1 and 1.
func fireTheta(rng *rand.Rand, l FIRELayout, scale float64) []float64 {
	th := randn(rng, l.Size(), scale)
	th[l.C()] = (0.05 + 0.2*rng.Float64()) * float64(1-2*rng.IntN(2))
	th[l.M()] = (0.5 + rng.Float64()) * float64(1-2*rng.IntN(2))
	return th
}

// refFIREBias is FIRE's bias written out from the paper's formula in float64 (Li et al. 2024,
// §3.2 and the appendix's listing).
func refFIREBias(th []float64, l FIRELayout, L0 float64, i, j, h int) float64 {
	c, m := th[l.C()], th[l.M()]
	psi := func(x float64) float64 { return math.Log(math.Abs(c)*x + 1) }
	x := psi(float64(i-j)) / (psi(math.Max(float64(i), math.Abs(m)*L0)) + FIREEps)
	out := th[l.B2()+h]
	for k := 0; k < l.Width; k++ {
		out += th[l.W2()+k*l.Heads+h] * math.Max(0, th[l.W1()+k]*x+th[l.B1()+k])
	}
	return out
}

// runFIREBias runs FIREBias on θ in dtype dt and returns its [H, T, T] values as float64.
func runFIREBias(t *testing.T, f *FIRE, th []float64, dt tensor.Dtype, T int) []float64 {
	t.Helper()
	g := G.NewGraph()
	var v *tensor.Dense
	if dt == tensor.Float32 {
		v = tensor.New(tensor.WithShape(len(th)), tensor.WithBacking(to32(th)))
	} else {
		v = tensor.New(tensor.WithShape(len(th)), tensor.WithBacking(append([]float64(nil), th...)))
	}
	n := G.NewTensor(g, dt, 1, G.WithShape(len(th)), G.WithValue(v), G.WithName("theta"))
	out, err := FIREBias(n, f, T)
	if err != nil {
		t.Fatal(err)
	}
	G.Must(G.Sum(out))
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return float64s(out.Value())
}

// TestFIREBiasValues: FIREBias is the paper's formula (refFIREBias) within rounding, in float64
// (1e-12) and float32 (1e-5 of the largest bias), with the threshold L below, inside and above
// the positions, c and m of either sign, 1 to 9 heads (whole and partial groups of four) and
// widths 1 to 33, at lengths that end inside a chunk of sixteen keys and on one; 0 above the
// diagonal.
func TestFIREBiasValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 24; trial++ {
		l := FIRELayout{Heads: 1 + trial%9, Width: []int{1, 5, 32, 33}[trial%4]}
		L0 := []float64{2.5, 20, 512}[trial%3]
		T := []int{1, 16, 37}[trial%3]
		th := fireTheta(rng, l, 1)
		for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
			got := runFIREBias(t, NewFIRE(l.Heads, l.Width, L0, dt), th, dt, T)
			tol, top := 1e-12, 0.0
			if dt == tensor.Float32 {
				for _, x := range got {
					top = max(top, math.Abs(x))
				}
				tol = 1e-5 * max(top, 1)
			}
			for h := 0; h < l.Heads; h++ {
				for i := 0; i < T; i++ {
					for j := 0; j < T; j++ {
						g := got[(h*T+i)*T+j]
						want := 0.0
						if j <= i {
							want = refFIREBias(th, l, L0, i, j, h)
						}
						if math.Abs(g-want) > tol {
							t.Fatalf("trial %d %v (H %d, width %d, L %v): bias[%d,%d,%d] = %v, want %v", trial, dt, l.Heads, l.Width, L0, h, i, j, g, want)
						}
					}
				}
			}
		}
	}
}

// TestFIRERowsSameBits: the rows an evaluation takes (BiasRow, into float64) and the pairs one
// at a time (Bias) have FIREBias's bits, in float32 and float64, for every row of T = 70 (whole
// chunks, a partial one, none), 1 to 6 heads; BiasRow also past the query (keys up to i + 3).
func TestFIRERowsSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const T = 70
	for _, H := range []int{1, 3, 4, 6} {
		l := FIRELayout{Heads: H, Width: 7}
		th := fireTheta(rng, l, 1)
		for _, dt := range []tensor.Dtype{tensor.Float32, tensor.Float64} {
			f := NewFIRE(H, 7, 30, dt)
			want := runFIREBias(t, f, th, dt, T)
			row, b := make([]float64, H*(T+3)), make([]float64, H)
			for i := 0; i < T; i++ {
				n := min(i+1+rng.IntN(3), T+3)
				f.BiasRow(th, i, n, row, T+3)
				for j := 0; j < n; j++ {
					f.Bias(th, i, j, b)
					for h := range b {
						if math.Float64bits(row[h*(T+3)+j]) != math.Float64bits(b[h]) {
							t.Fatalf("%v H %d: query %d key %d head %d: BiasRow %v, Bias %v (same bits)", dt, H, i, j, h, row[h*(T+3)+j], b[h])
						}
						if j <= i && math.Float64bits(b[h]) != math.Float64bits(want[(h*T+i)*T+j]) {
							t.Fatalf("%v H %d: query %d key %d head %d: Bias %v, FIREBias %v (same bits)", dt, H, i, j, h, b[h], want[(h*T+i)*T+j])
						}
					}
				}
			}
		}
	}
}

// TestFIREBiasGradient: FIREBias's gradient (W1, b1, W2, b2, c and m) matches central finite
// differences in float64, with L above the positions (m's gradient flows) and below (c's alone
// through the normaliser), for 1, 4 and 5 heads, at lengths with a partial chunk of keys.
func TestFIREBiasGradient(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, c := range []struct {
		H, W, T int
		L0      float64
	}{{1, 3, 5, 512}, {4, 6, 20, 2.5}, {5, 5, 19, 9}, {4, 32, 33, 64}} {
		l := FIRELayout{Heads: c.H, Width: c.W}
		th := fireTheta(rng, l, 0.7)
		f := NewFIRE(c.H, c.W, c.L0, tensor.Float64)
		checkOp(t, fmt.Sprintf("FIREBias H%d W%d T%d L%v", c.H, c.W, c.T, c.L0), []input{{[]int{l.Size()}, th, true}}, func(in []*G.Node) (*G.Node, error) {
			return FIREBias(in[0], f, c.T)
		})
	}
}

// TestFIREBiasGradPair: BiasGrad (one pair) matches central finite differences of Bias in
// float64, for pairs across the threshold, the diagonal and the first key.
func TestFIREBiasGradPair(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	l := FIRELayout{Heads: 3, Width: 5}
	th := fireTheta(rng, l, 0.7)
	f := NewFIRE(3, 5, 6, tensor.Float64)
	g := randn(rng, 3, 1)
	for _, p := range [][2]int{{0, 0}, {3, 1}, {5, 5}, {9, 0}, {20, 7}} {
		dth := make([]float64, l.Size())
		f.BiasGrad(th, p[0], p[1], g, dth)
		b := make([]float64, 3)
		loss := func() float64 {
			f.Bias(th, p[0], p[1], b)
			return b[0]*g[0] + b[1]*g[1] + b[2]*g[2]
		}
		const step = 1e-6
		for k := range th {
			x := th[k]
			th[k] = x + step
			up := loss()
			th[k] = x - step
			down := loss()
			th[k] = x
			if num := (up - down) / (2 * step); math.Abs(num-dth[k]) > 1e-7*max(1, math.Abs(num)) {
				t.Errorf("pair %v: ∂/∂θ[%d] = %v, finite differences %v", p, k, dth[k], num)
			}
		}
	}
}

// TestFIREBiasRefused: FIREBias refuses a θ of the wrong size or of the other dtype than its FIRE's.
func TestFIREBiasRefused(t *testing.T) {
	g := G.NewGraph()
	th := G.NewTensor(g, tensor.Float64, 1, G.WithShape(10), G.WithName("th"))
	if _, err := FIREBias(th, NewFIRE(2, 3, 5, tensor.Float64), 4); err == nil {
		t.Error("θ of 10 values for a FIRE of 18: no error")
	}
	th = G.NewTensor(g, tensor.Float64, 1, G.WithShape(18), G.WithName("th2"))
	if _, err := FIREBias(th, NewFIRE(2, 3, 5, tensor.Float32), 4); err == nil {
		t.Error("a float64 θ for a float32 FIRE: no error")
	}
}

// fireGradOf runs FIREBias's gradient of Σ bias∘R on θ in dtype dt and returns it as float64.
func fireGradOf(t *testing.T, f *FIRE, th, r []float64, dt tensor.Dtype, T int) []float64 {
	t.Helper()
	g := G.NewGraph()
	mk := func(name string, x []float64, shape ...int) *G.Node {
		var v *tensor.Dense
		if dt == tensor.Float32 {
			v = tensor.New(tensor.WithShape(shape...), tensor.WithBacking(to32(x)))
		} else {
			v = tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float64(nil), x...)))
		}
		return G.NewTensor(g, dt, len(shape), G.WithShape(shape...), G.WithValue(v), G.WithName(name))
	}
	tn := mk("theta", th, len(th))
	out, err := FIREBias(tn, f, T)
	if err != nil {
		t.Fatal(err)
	}
	loss := G.Must(G.Sum(G.Must(G.HadamardProd(out, mk("R", r, f.Heads(), T, T)))))
	grads, err := G.Grad(loss, tn)
	if err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return float64s(grads[0].Value())
}

// TestFIREBiasGradFloat32: in float32 (the vector kernels on amd64) FIREBias's gradient is the
// float64 gradient within 1e-4 of its largest entry, for 1 to 6 heads and lengths of whole and
// partial chunks, twice in a row with the same bits (nothing carried over between runs).
func TestFIREBiasGradFloat32(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct{ H, W, T int }{{1, 4, 9}, {4, 32, 64}, {6, 9, 37}} {
		l := FIRELayout{Heads: c.H, Width: c.W}
		th := fireTheta(rng, l, 0.7)
		for i := range th[:l.C()] { // θ as a float32 graph holds it, so both sides see one function
			th[i] = float64(float32(th[i]))
		}
		r := randn(rng, c.H*c.T*c.T, 1)
		want := fireGradOf(t, NewFIRE(c.H, c.W, 20, tensor.Float64), th, r, tensor.Float64, c.T)
		f32 := NewFIRE(c.H, c.W, 20, tensor.Float32)
		got := fireGradOf(t, f32, th, r, tensor.Float32, c.T)
		again := fireGradOf(t, f32, th, r, tensor.Float32, c.T)
		top := 0.0
		for _, x := range want {
			top = max(top, math.Abs(x))
		}
		for k := range want {
			if math.Abs(got[k]-want[k]) > 1e-4*top {
				t.Errorf("H %d W %d T %d: float32 ∂/∂θ[%d] = %v, float64 %v", c.H, c.W, c.T, k, got[k], want[k])
			}
			if math.Float64bits(got[k]) != math.Float64bits(again[k]) {
				t.Errorf("H %d W %d T %d: ∂/∂θ[%d] = %v, then %v (same bits)", c.H, c.W, c.T, k, got[k], again[k])
			}
		}
	}
}
