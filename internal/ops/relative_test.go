package ops

import (
	"math"
	"math/rand/v2"
	"testing"

	"gorgonia.org/tensor"
)

// TestRelativeSinusoidSameBits: the encodings with each distance's row computed once and kept give
// the bits of SinusoidRow row by row, in float64 and float32, for positions 0..T−1 and randomized
// increasing positions, repeated and fresh (past the kept rows' bound).
func TestRelativeSinusoidSameBits(t *testing.T) {
	const batch, T, dim = 3, 6, 10
	rng := rand.New(rand.NewPCG(5, 5))
	omega := SinusoidFreqs(10000, dim)
	var runs [][]float64
	plain := make([]float64, batch*T)
	for i := range plain {
		plain[i] = float64(i % T)
	}
	runs = append(runs, plain, plain)
	for k := range 400 {
		p := make([]float64, batch*T)
		for b := range batch {
			for i := 1; i < T; i++ {
				p[b*T+i] = p[b*T+i-1] + float64(1+rng.IntN(3+10*k))
			}
		}
		runs = append(runs, p)
	}
	runs = append(runs, plain)
	for _, dt := range []tensor.Dtype{tensor.Float64, tensor.Float32} {
		op := &relSinOp{base: newBase("RelativeSinusoid", 1), batch: batch, t: T, dim: dim, omega: omega}
		for k, pos := range runs {
			pv := tensor.New(tensor.WithShape(batch*T), tensor.WithBacking(append([]float64(nil), pos...)))
			if dt == tensor.Float32 {
				pv = tensor.New(tensor.WithShape(batch*T), tensor.WithBacking(narrow(pos)))
			}
			out, err := op.Do(pv)
			if err != nil {
				t.Fatal(err)
			}
			want := tensor.New(tensor.Of(dt), tensor.WithShape(batch*(2*T-1), dim))
			row := make([]float64, dim)
			for b := range batch {
				for d := -(T - 1); d < T; d++ {
					SinusoidRow(row, signedDistance(pos, b, T, d), omega)
					setFrom64(want, (b*(2*T-1)+d+T-1)*dim, row)
				}
			}
			got, w := out.(*tensor.Dense), want
			for i := range w.Size() {
				g, e := toF64(got.Data(), i), toF64(w.Data(), i)
				if math.Float64bits(g) != math.Float64bits(e) {
					t.Fatalf("%v run %d: element %d is %v, want %v (same bits)", dt, k, i, g, e)
				}
			}
		}
	}
}

func toF64(data any, i int) float64 {
	if d, ok := data.([]float32); ok {
		return float64(d[i])
	}
	return data.([]float64)[i]
}
