package metric_test

import (
	"math"
	"testing"

	"github.com/posformer/posformer/data"
	"github.com/posformer/posformer/internal/stats"
	"github.com/posformer/posformer/metric"
)

// TestChance: parity answers one of 2 values in one token; copy of 4 symbols answers L tokens,
// with or without an END token (a task without a baseline keeps the uniform guess);
// stack_manipulation's zero-padded answer has its baseline, the best constant answer's score,
// END slot included, in either format.
func TestChance(t *testing.T) {
	if e, tok := metric.Chance("parity", data.Options{Symbols: 8}, 30); e != 0.5 || tok != 0.5 {
		t.Errorf("parity: exact %g token %g, want 0.5, 0.5", e, tok)
	}
	// a language model has no answer to guess: no chance level (it was (1/8)^0 = 1 and 1/8)
	if e, tok := metric.Chance("lm", data.Options{Symbols: 8}, 64); !math.IsNaN(e) || !math.IsNaN(tok) {
		t.Errorf("lm: exact %g token %g, want NaN, NaN", e, tok)
	}
	// length 2: one bit then one action; POP (1/3) leaves END 0 0, PUSH (2/3) two bits then END.
	// The slots' majority answer 0 0 END scores 1/3, 2/3, 2/3 by slot; the most likely answer is
	// END 0 0, 1/3 (each two-bit answer has 2/3 · 1/4).
	for _, format := range []string{"", "slots"} {
		if e, tok := metric.Chance("stack_manipulation", data.Options{Symbols: 8, Format: format}, 2); math.Abs(e-1.0/3) > 1e-15 || math.Abs(tok-5.0/9) > 1e-15 {
			t.Errorf("stack_manipulation, length 2, format %q: exact %g token %g, want 1/3, 5/9 (not the uniform 1/27, 1/3)", format, e, tok)
		}
	}
	// END is a fourth slot, always right
	if e, tok := metric.Chance("stack_manipulation", data.Options{Symbols: 8, EndToken: true}, 2); math.Abs(e-1.0/3) > 1e-15 || math.Abs(tok-2.0/3) > 1e-15 {
		t.Errorf("stack_manipulation with END, length 2: exact %g token %g, want 1/3, (3·5/9 + 1)/4 = 2/3", e, tok)
	}
	for _, end := range []bool{false, true} {
		if e, tok := metric.Chance("copy", data.Options{Symbols: 4, EndToken: end}, 3); math.Abs(e-1.0/64) > 1e-15 || tok != 0.25 {
			t.Errorf("copy, 4 symbols, length 3, end token %v: exact %g token %g, want 1/64, 0.25", end, e, tok)
		}
	}
}

// TestChanceSkipsFixedAnswers: binary_addition's guessing is always right at lengths 1 to 3 (the
// answer is fixed), so no score clears chance there; the chance rule skips those lengths rather
// than ending the run of lengths.
func TestChanceSkipsFixedAnswers(t *testing.T) {
	perfect := func(L int) ([]float64, []float64, float64) {
		_, tok := metric.Chance("binary_addition", data.Options{}, L)
		return []float64{1, 1}, nil, tok
	}
	if got := stats.ExtrapolatesTo([]int{1, 2, 3, 4, 5, 8}, perfect); got != 8 {
		t.Errorf("binary_addition, perfect at lengths 1..8: extrapolates to %d, want 8", got)
	}
	if got := stats.ExtrapolatesTo([]int{1, 2, 3}, perfect); got != 0 {
		t.Errorf("binary_addition, only lengths 1..3 (guessing always right): extrapolates to %d, want 0", got)
	}
}

// TestRunFloor: a run's floor is the binomial variance of its score over the answers its
// examples give in the metric (one each in exact match), and 0 without examples.
func TestRunFloor(t *testing.T) {
	for _, x := range []float64{0, 0.2, 0.5, 1} {
		if got, want := metric.RunFloor(metric.ExactMatch, "copy", 4, 100, x), stats.BinomialVar(x, 100); got != want {
			t.Errorf("exact match %g of 100: floor %g, want %g", x, got, want)
		}
	}
	if got := metric.RunFloor(metric.ExactMatch, "copy", 4, 0, 0.5); got != 0 {
		t.Errorf("no examples: floor %g, want 0", got)
	}
}
