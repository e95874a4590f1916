package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExtrapolatesTo: the longest length up to which every tested length is clearly above
// chance; a later recovery does not count, and a first length at chance gives 0.
func TestExtrapolatesTo(t *testing.T) {
	lengths := []int{1, 2, 4, 8, 16}
	for _, c := range []struct {
		name   string
		scores map[int][]float64
		chance float64
		want   int
	}{
		// one seed: the score itself must exceed chance + 0.05.
		{"one seed", map[int][]float64{1: {1}, 2: {0.9}, 4: {0.56}, 8: {0.55}, 16: {0.9}}, 0.5, 4},
		{"at chance from the start", map[int][]float64{1: {0.5}, 2: {1}, 4: {1}, 8: {1}, 16: {1}}, 0.5, 0},
		// three seeds 0.6 ± 0.1: the interval's lower end (0.6 − 4.303·0.1/√3 = 0.352) is not above 0.55.
		{"noisy seeds", map[int][]float64{1: {1, 1, 1}, 2: {0.5, 0.6, 0.7}, 4: {1, 1, 1}, 8: {1, 1, 1}, 16: {1, 1, 1}}, 0.5, 1},
		{"all above", map[int][]float64{1: {1, 1}, 2: {1, 1}, 4: {1, 1}, 8: {0.9, 0.9}, 16: {0.2, 0.2}}, 0.001, 16},
		// two seeds scoring alike: no zero-width interval, the runs' sampling error counts. At
		// 16, 0.2 of 100 examples each: floor 0.0016, so 0.2 − 12.71·√(0.0016/2) = −0.16.
		{"alike seeds, their sampling error", map[int][]float64{1: {1, 1}, 2: {1, 1}, 4: {1, 1}, 8: {0.9, 0.9}, 16: {0.2, 0.2}}, 0.001, 8},
	} {
		got := ExtrapolatesTo(lengths, func(L int) ([]float64, []float64, float64) {
			var fl []float64
			if c.name == "alike seeds, their sampling error" {
				for _, x := range c.scores[L] {
					fl = append(fl, BinomialVar(x, 100))
				}
			}
			return c.scores[L], fl, c.chance
		})
		if got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	// the floor never moves a one-seed verdict: the score itself
	if !AboveChance([]float64{0.2}, []float64{0.5}, 0.1) || AtChance([]float64{0.2}, []float64{0.5}, 0.1) {
		t.Error("one seed at 0.2 against chance 0.1: want clearly above, not at chance, whatever the floor")
	}
	// three seeds at 0 of 100 examples are within noise of chance 0 (0 + 4.303·√(4.9e-5/3) =
	// 0.017); two are not (12.71·√(4.9e-5/2) = 0.063: t's one degree of freedom)
	zero := BinomialVar(0, 100)
	if !AtChance([]float64{0, 0, 0}, []float64{zero, zero, zero}, 0) || AtChance([]float64{0, 0}, []float64{zero, zero}, 0) {
		t.Error("seeds at 0 of 100 examples: want within noise of chance 0 with three seeds, not with two")
	}
	// a length whose chance is within ChanceMargin of 1 tells nothing: skipped, not the end
	always := func(L int) ([]float64, []float64, float64) {
		if L <= 3 {
			return []float64{1, 1}, nil, 1
		}
		return []float64{1, 1}, nil, 0.5
	}
	if got := ExtrapolatesTo([]int{1, 2, 3, 4, 5, 8}, always); got != 8 {
		t.Errorf("perfect at 1..8, chance 1 at 1..3: extrapolates to %d, want 8", got)
	}
	if got := ExtrapolatesTo([]int{1, 2, 3}, always); got != 0 {
		t.Errorf("only lengths whose chance is 1: extrapolates to %d, want 0", got)
	}
}

// TestAboveAtChanceExclusive: over many random score sets, a set is never both clearly above
// chance and within noise of it, and with one run both follow the score alone.
func TestAboveAtChanceExclusive(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 9))
	for i := 0; i < 2000; i++ {
		xs, fl := make([]float64, 1+r.IntN(6)), []float64(nil)
		for j := range xs {
			xs[j] = r.Float64()
			fl = append(fl, BinomialVar(xs[j], 1+r.IntN(200)))
		}
		chance := r.Float64() * 0.9
		above, at := AboveChance(xs, fl, chance), AtChance(xs, fl, chance)
		if above && at {
			t.Fatalf("%v (floors %v) against chance %g: both above and at chance", xs, fl, chance)
		}
		if len(xs) == 1 && (above != (xs[0] > chance+ChanceMargin) || at != (xs[0] <= chance+ChanceMargin)) {
			t.Fatalf("one run %g against chance %g: above %v at %v, want the score's own verdict", xs[0], chance, above, at)
		}
	}
}

// TestNewStat: over many random samples, the mean and the (n−1) standard deviation are
// MeanVar's, min and max bound every value and are values; no values give NaN.
func TestNewStat(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		xs := make([]float64, 1+r.IntN(12))
		for j := range xs {
			xs[j] = r.NormFloat64()*3 + 1
		}
		s := NewStat(xs)
		m, v := MeanVar(xs)
		if len(xs) == 1 {
			v = 0
		}
		near(t, "mean", s.Mean, m, 1e-12)
		near(t, "std", s.Std, math.Sqrt(v), 1e-12)
		if s.N != len(xs) {
			t.Fatalf("N %d, want %d", s.N, len(xs))
		}
		var hasMin, hasMax bool
		for _, x := range xs {
			if x < s.Min || x > s.Max {
				t.Fatalf("%g outside [%g, %g]", x, s.Min, s.Max)
			}
			hasMin, hasMax = hasMin || x == s.Min, hasMax || x == s.Max
		}
		if !hasMin || !hasMax {
			t.Fatalf("min %g or max %g is none of %v", s.Min, s.Max, xs)
		}
	}
	if s := NewStat(nil); !math.IsNaN(s.Mean) || !math.IsNaN(s.Std) || !math.IsNaN(s.Min) || !math.IsNaN(s.Max) || s.N != 0 {
		t.Errorf("NewStat(nil) = %+v, want NaNs and N 0", s)
	}
}
