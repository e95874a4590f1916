package ops

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestEmbedSplitSameBits: the embedding's gather and its gradient's scatter-add, split over the
// workers (rows; columns in blocks of eight), give the bits of the serial loops on 1, 2 and 3
// workers, with repeated indices, in float32 and float64.
func TestEmbedSplitSameBits(t *testing.T) {
	testEmbedSplit[float32](t)
	testEmbedSplit[float64](t)
}

func testEmbedSplit[F Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 26))
	const rows, n = 7, 3000
	for _, d := range []int{5, 64, 259} {
		table, g := randSlice[F](rng, rows*d), randSlice[F](rng, n*d)
		idx := make([]F, n)
		for r := range idx {
			idx[r] = F(rng.IntN(rows))
		}
		wantG, wantS := make([]F, n*d), make([]F, rows*d)
		for r, v := range idx {
			i := int(v)
			copy(wantG[r*d:(r+1)*d], table[i*d:(i+1)*d])
			for j := 0; j < d; j++ {
				wantS[i*d+j] += g[r*d+j]
			}
		}
		for _, w := range []int{1, 2, 3} {
			gotG, gotS := randSlice[F](rng, n*d), randSlice[F](rng, rows*d)
			withWorkers(t, w, func() {
				if err := gather(table, idx, gotG, rows, d); err != nil {
					t.Fatal(err)
				}
				if err := scatter(idx, g, gotS, rows, d); err != nil {
					t.Fatal(err)
				}
			})
			what := fmt.Sprintf("%T d=%d on %d workers", F(0), d, w)
			sameBits(t, what+": gather", gotG, wantG)
			sameBits(t, what+": scatter", gotS, wantS)
		}
	}
}
