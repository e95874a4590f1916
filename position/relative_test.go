package position_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/internal/ops"
	"github.com/posformer/posformer/position"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// relativeTable runs a relative scheme's RelativeTable for batch × T with the given positions
// (nil: 0..T−1 in every sequence) and returns its rows.
func relativeTable(t *testing.T, s position.Scheme, batch, T int, pos []float64) ([]float64, []int) {
	t.Helper()
	b := nn.NewBuilder(tensor.Float64)
	pn, _ := b.Input("pos", batch*T)
	pv := pn.Value().Data().([]float64)
	for i := range pv {
		pv[i] = float64(i % T)
	}
	if pos != nil {
		copy(pv, pos)
	}
	table, err := s.(position.RelativeKeyer).RelativeTable(position.Ctx{B: b, Batch: batch, Len: T, Pos: pn, MaxPos: T})
	if err != nil {
		t.Fatal(err)
	}
	vm := G.NewTapeMachine(b.G)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		t.Fatal(err)
	}
	return nn.Float64s(table.Value().(*tensor.Dense)), table.Shape()
}

// TestRelativeDistances: the table R of a relative scheme holds, in row d + T − 1, the encoding
// of the distance d = i − j: the same bits at every length T (so the term of a query and a key
// depends on their positions only through i − j), R_d = [sin(dω), cos(dω)], and R_{−d} is R_d
// with its sines negated; over lengths 1..40 and every distance.
func TestRelativeDistances(t *testing.T) {
	const D = 16
	s := mustNew(t, position.Spec{Kind: "relative"}, position.Dims{DModel: D, Heads: 2, Layers: 2, Dtype: tensor.Float64, Bidirectional: true})
	omega := position.Omega(10000, D)
	long, _ := relativeTable(t, s, 1, 40, nil)
	for T := 1; T <= 40; T++ {
		rows, shape := relativeTable(t, s, 1, T, nil)
		if shape[0] != 2*T-1 || shape[1] != D {
			t.Fatalf("T=%d: table %v, want [%d %d]", T, shape, 2*T-1, D)
		}
		for d := -(T - 1); d < T; d++ {
			row := rows[(d+T-1)*D : (d+T)*D]
			other := long[(d+39)*D : (d+40)*D]
			for k := range row {
				if math.Float64bits(row[k]) != math.Float64bits(other[k]) {
					t.Fatalf("T=%d, distance %d: R differs from T=40's: %v vs %v", T, d, row[k], other[k])
				}
			}
			for k, w := range omega {
				sn, cs := math.Sincos(float64(d) * w)
				if math.Abs(row[k]-sn) > 1e-15 || math.Abs(row[D/2+k]-cs) > 1e-15 {
					t.Fatalf("T=%d, distance %d, frequency %d: (%v, %v), want (%v, %v)", T, d, k, row[k], row[D/2+k], sn, cs)
				}
			}
		}
	}
}

// TestRelativeRandomizedDistances: with position.randomized, the trainer's positions are 0
// followed by n−1 sorted distinct draws from [1, max_random) (Randomization.Anchored), each value
// of [1, L) drawn about equally often; and the table of each sequence encodes distance ±d as
// ±r_d, r_d its (d+1)-th position.
func TestRelativeRandomizedDistances(t *testing.T) {
	const D, L, n, B = 8, 50, 10, 3
	s := mustNew(t, position.Spec{Kind: "relative", Randomized: true, MaxRandom: L}, position.Dims{DModel: D, Heads: 2, Dtype: tensor.Float64, Bidirectional: true})
	r, on := s.(position.Sampler).Randomization()
	if !on || !r.Anchored {
		t.Fatalf("Randomization() = %+v, %v; want anchored", r, on)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	count := make([]int, L)
	const draws = 20000
	for range draws {
		p := r.Sample(rng, n)
		if p[0] != 0 {
			t.Fatalf("first position %d, want 0", p[0])
		}
		for i := 1; i < n; i++ {
			if p[i] <= p[i-1] || p[i] >= L {
				t.Fatalf("positions %v are not increasing below %d", p, L)
			}
			count[p[i]]++
		}
	}
	want := float64(draws) * (n - 1) / (L - 1)
	for v := 1; v < L; v++ {
		if math.Abs(float64(count[v])-want) > 5*math.Sqrt(want) {
			t.Errorf("value %d drawn %d times, want about %.0f", v, count[v], want)
		}
	}
	pos := r.Batch(rng, B, n)
	pf := make([]float64, len(pos))
	for i, p := range pos {
		pf[i] = float64(p)
	}
	rows, shape := relativeTable(t, s, B, n, pf)
	if shape[0] != B*(2*n-1) {
		t.Fatalf("table %v, want %d rows", shape, B*(2*n-1))
	}
	omega := position.Omega(10000, D)
	want1 := make([]float64, D)
	for b := 0; b < B; b++ {
		for d := -(n - 1); d < n; d++ {
			delta := float64(pos[b*n+abs(d)])
			if d < 0 {
				delta = -delta
			}
			ops.SinusoidRow(want1, delta, omega)
			got := rows[(b*(2*n-1)+d+n-1)*D : (b*(2*n-1)+d+n)*D]
			if e := maxAbsDiff(got, want1); e > 1e-15 {
				t.Fatalf("sequence %d, distance %d: R differs from R_%g by %g", b, d, delta, e)
			}
		}
	}
	if err := s.(position.LengthChecker).CheckPositions(L + 1); err == nil {
		t.Errorf("CheckPositions(%d) accepted with max_random %d", L+1, L)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// TestALiBiRandomizedDistances: randomized ALiBi (Ruoss et al.'s NOISY_ALIBI) gives each
// sequence a bias table by distance, [B·H, 2T−1], whose distance ±d is the drawn r_d: −m_h·r_d,
// plus m_h/2 for the keys before the query in an encoder; causal and bidirectional.
func TestALiBiRandomizedDistances(t *testing.T) {
	const H, L, n, B = 4, 40, 9, 3
	for _, bidir := range []bool{false, true} {
		s := mustNew(t, position.Spec{Kind: "alibi", Randomized: true, MaxRandom: L}, position.Dims{DModel: 16, Heads: H, Dtype: tensor.Float64, Bidirectional: bidir})
		r, _ := s.(position.Sampler).Randomization()
		pos := r.Batch(rand.New(rand.NewPCG(3, 4)), B, n)
		b := nn.NewBuilder(tensor.Float64)
		pn, _ := b.Input("pos", B*n)
		for i, p := range pos {
			pn.Value().Data().([]float64)[i] = float64(p)
		}
		bias, err := s.(position.LogitBiaser).LogitBias(position.Ctx{B: b, Batch: B, Len: n, Pos: pn, MaxPos: L})
		if err != nil {
			t.Fatal(err)
		}
		vm := G.NewTapeMachine(b.G)
		if err := vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		got := nn.Float64s(bias.Value().(*tensor.Dense))
		vm.Close()
		if sh := bias.Shape(); sh[0] != B*H || sh[1] != 2*n-1 {
			t.Fatalf("bias %v, want [%d %d]", sh, B*H, 2*n-1)
		}
		m := position.ALiBiSlopes(H)
		for bi := 0; bi < B; bi++ {
			for h := 0; h < H; h++ {
				for d := -(n - 1); d < n; d++ {
					if !bidir && d < 0 {
						continue // masked keys
					}
					want := -m[h] * float64(pos[bi*n+abs(d)])
					if bidir && d > 0 {
						want += m[h] / 2
					}
					if x := got[(bi*H+h)*(2*n-1)+d+n-1]; math.Abs(x-want) > 1e-15 {
						t.Fatalf("bidirectional %v, sequence %d, head %d, distance %d: %v, want %v", bidir, bi, h, d, x, want)
					}
				}
			}
		}
	}
}
