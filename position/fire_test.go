package position_test

import (
	"math"
	"strings"
	"testing"

	"github.com/posformer/posformer/position"
	"gorgonia.org/tensor"
)

// refFIRE is FIRE's bias for query i and key j ≤ i written out from the paper (Li et al. 2024,
// §3.2 and the Appendix's implementation), with the MLP's weights read from θ in FIRE's layout
// (W1, b1, W2 [width, heads], b2, c, m).
func refFIRE(th []float64, width, heads int, L0 float64, i, j int) []float64 {
	c, m := th[2*width+width*heads+heads], th[2*width+width*heads+heads+1]
	psi := func(x float64) float64 { return math.Log(math.Abs(c)*x + 1) }
	x := psi(float64(i-j)) / (psi(math.Max(float64(i), math.Abs(m)*L0)) + 1e-6)
	out := make([]float64, heads)
	for h := range out {
		out[h] = th[2*width+width*heads+h]
		for k := 0; k < width; k++ {
			out[h] += th[2*width+k*heads+h] * math.Max(0, th[k]*x+th[width+k])
		}
	}
	return out
}

// TestFIREBias: FIRE's bias is the paper's formula (against refFIRE) with the threshold L both
// above and below the query positions (progressive interpolation from i > L on), starts from c =
// init_c and L = init_l, its gradient (c and L included) matches finite differences in both
// regimes, and the bidirectional form is refused naming model.bidirectional.
func TestFIREBias(t *testing.T) {
	dims := position.Dims{DModel: 16, Heads: 4, Dtype: tensor.Float64, Seed: 9}
	def := mustNew(t, position.Spec{Kind: "fire"}, dims).(*position.FIRE)
	if def.C() != 0.1 || def.L() != 512 || def.Width != 32 {
		t.Errorf("defaults: c %v, L %v, width %d; want the paper's 0.1, 512, 32", def.C(), def.L(), def.Width)
	}
	for _, L := range []float64{512, 2.5} {
		f := mustNew(t, position.Spec{Kind: "fire"}.With("init_l", L).With("mlp_width", 6), dims).(*position.FIRE)
		const T = 7
		got := biasValues(t, f, T)
		th := f.Params()[0].Value.Data().([]float64)
		for i := 0; i < T; i++ {
			for j := 0; j <= i; j++ {
				want := refFIRE(th, 6, 4, L, i, j)
				for h := range want {
					if g := got[(h*T+i)*T+j]; math.Abs(g-want[h]) > 1e-12 {
						t.Fatalf("L %v: bias[%d,%d,%d] = %v, want %v", L, h, i, j, g, want[h])
					}
				}
			}
		}
		checkBiasGradient(t, f, f, 4, T)
	}
	_, err := position.New(position.Spec{Kind: "fire"}, position.Dims{DModel: 16, Heads: 4, Dtype: tensor.Float64, Bidirectional: true})
	if err == nil || !strings.Contains(err.Error(), "model.bidirectional") {
		t.Errorf("bidirectional fire: %v, want an error naming model.bidirectional", err)
	}
	for _, bad := range []struct {
		key  string
		v    any
		want string
	}{{"mlp_width", 0, "position.mlp_width"}, {"init_c", 0, "position.init_c"}, {"init_l", -1, "position.init_l"}} {
		if _, err := position.New(position.Spec{Kind: "fire"}.With(bad.key, bad.v), dims); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s = %v: %v", bad.key, bad.v, err)
		}
	}
}
