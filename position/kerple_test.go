package position_test

import (
	"math"
	"testing"

	"github.com/posformer/posformer/position"
	"gorgonia.org/tensor"
)

// TestKerpleBias: the bias is −r₁·log(1 + r₂·d) with d = i − j (|i − j| bidirectional), r₁, r₂
// start in the paper's ranges (U(0, 2), U(0, 1), above the floor), it is 0 on the diagonal,
// falls with distance, and its table row p is the bias at distance p.
func TestKerpleBias(t *testing.T) {
	for _, bidir := range []bool{false, true} {
		dims := position.Dims{DModel: 16, Heads: 4, Dtype: tensor.Float64, Seed: 5, Bidirectional: bidir}
		k := mustNew(t, position.Spec{Kind: "kerple"}, dims).(*position.Kerple)
		r1, r2 := k.R()
		for h := range r1 {
			if !(r1[h] > position.KerpleFloor && r1[h] <= 2 && r2[h] > position.KerpleFloor && r2[h] <= 1) {
				t.Errorf("head %d starts at r₁ = %v, r₂ = %v; want r₁ in (ε, 2], r₂ in (ε, 1]", h, r1[h], r2[h])
			}
		}
		const T = 6
		got := biasValues(t, k, T)
		for h := 0; h < 4; h++ {
			for i := 0; i < T; i++ {
				for j := 0; j < T; j++ {
					d := float64(i - j)
					if bidir {
						d = math.Abs(d)
					} else if j > i {
						d = 0 // hidden by the mask; the op leaves 0
					}
					want := -r1[h] * math.Log1p(r2[h]*d)
					if g := got[(h*T+i)*T+j]; math.Abs(g-want) > 1e-15 {
						t.Fatalf("bidirectional %v: bias[%d,%d,%d] = %v, want %v", bidir, h, i, j, g, want)
					}
				}
			}
		}
		tab, err := k.Table(T)
		if err != nil {
			t.Fatal(err)
		}
		for p, row := range tab.Rows {
			for h, v := range row {
				if want := -r1[h] * math.Log1p(r2[h]*float64(p)); math.Abs(v-want) > 1e-15 || (p > 0 && !(v < tab.Rows[p-1][h])) {
					t.Errorf("table row %d head %d: %v, want %v, below the row before", p, h, v, want)
				}
			}
		}
	}
}
