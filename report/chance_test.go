package report

import (
	"math"
	"testing"

	"github.com/posformer/posformer/config"
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
					fl = append(fl, RunFloor("exact_match", "copy", L, 100, x))
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
	zero := RunFloor("exact_match", "copy", 4, 100, 0)
	if !AtChance([]float64{0, 0, 0}, []float64{zero, zero, zero}, 0) || AtChance([]float64{0, 0}, []float64{zero, zero}, 0) {
		t.Error("seeds at 0 of 100 examples: want within noise of chance 0 with three seeds, not with two")
	}
	// binary_addition: guessing is always right at lengths 1 to 3 (the answer is fixed), so no
	// score clears chance there; those lengths are skipped, not the end of the run of lengths.
	var c config.Config
	c.Task.Name = "binary_addition"
	perfect := func(L int) ([]float64, []float64, float64) { _, tok := Chance(c, L); return []float64{1, 1}, nil, tok }
	if got := ExtrapolatesTo([]int{1, 2, 3, 4, 5, 8}, perfect); got != 8 {
		t.Errorf("binary_addition, perfect at lengths 1..8: extrapolates to %d, want 8", got)
	}
	if got := ExtrapolatesTo([]int{1, 2, 3}, perfect); got != 0 {
		t.Errorf("binary_addition, only lengths 1..3 (guessing always right): extrapolates to %d, want 0", got)
	}
}

// TestChance: parity answers one of 2 values in one token; copy of 4 symbols answers L tokens,
// with or without an END token (a task without a baseline keeps the uniform guess);
// stack_manipulation's zero-padded answer has its baseline, the best constant answer's score,
// END slot included, in either format.
func TestChance(t *testing.T) {
	var c config.Config
	c.Task.Name, c.Task.Symbols = "parity", 8
	if e, tok := Chance(c, 30); e != 0.5 || tok != 0.5 {
		t.Errorf("parity: exact %g token %g, want 0.5, 0.5", e, tok)
	}
	// a language model has no answer to guess: no chance level (it was (1/8)^0 = 1 and 1/8)
	c.Task.Name = "lm"
	if e, tok := Chance(c, 64); !math.IsNaN(e) || !math.IsNaN(tok) {
		t.Errorf("lm: exact %g token %g, want NaN, NaN", e, tok)
	}
	c.Task.Name = "parity"
	// length 2: one bit then one action; POP (1/3) leaves END 0 0, PUSH (2/3) two bits then END.
	// The slots' majority answer 0 0 END scores 1/3, 2/3, 2/3 by slot; the most likely answer is
	// END 0 0, 1/3 (each two-bit answer has 2/3 · 1/4).
	c.Task.Name, c.Task.Symbols = "stack_manipulation", 8
	for _, format := range []string{"", "slots"} {
		c.Task.Format = format
		if e, tok := Chance(c, 2); math.Abs(e-1.0/3) > 1e-15 || math.Abs(tok-5.0/9) > 1e-15 {
			t.Errorf("stack_manipulation, length 2, format %q: exact %g token %g, want 1/3, 5/9 (not the uniform 1/27, 1/3)", format, e, tok)
		}
	}
	c.Task.Format, c.Task.EndToken = "", true // END is a fourth slot, always right
	if e, tok := Chance(c, 2); math.Abs(e-1.0/3) > 1e-15 || math.Abs(tok-2.0/3) > 1e-15 {
		t.Errorf("stack_manipulation with END, length 2: exact %g token %g, want 1/3, (3·5/9 + 1)/4 = 2/3", e, tok)
	}
	for _, end := range []bool{false, true} {
		c.Task.Name, c.Task.Symbols, c.Task.EndToken = "copy", 4, end
		if e, tok := Chance(c, 3); math.Abs(e-1.0/64) > 1e-15 || tok != 0.25 {
			t.Errorf("copy, 4 symbols, length 3, end token %v: exact %g token %g, want 1/64, 0.25", end, e, tok)
		}
	}
}
