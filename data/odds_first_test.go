package data

import (
	"slices"
	"testing"
)

// wantOddsFirst is the reference for odds_first: the symbols at the even 1-based positions (2nd,
// 4th, ...), then those at the odd ones (1st, 3rd, ...), their code's order.
func wantOddsFirst(in []int) []int {
	var first, second []int
	for pos := 1; pos <= len(in); pos++ {
		if pos%2 == 0 {
			first = append(first, in[pos-1])
		} else {
			second = append(second, in[pos-1])
		}
	}
	return append(first, second...)
}

func TestOddsFirstExamples(t *testing.T) {
	task := mustNew(t, "odds_first", Options{Symbols: 2})
	tokens := func(s string) []int {
		var in []int
		for _, c := range s {
			in = append(in, 2+int(c-'0'))
		}
		return in
	}
	// Their docstring's inputs, in their code's order (strings[:, 1::2] then strings[:, ::2]):
	// 00110101 → 0111 0100 and 110 → 1 10 (the docstring prints 0100 0111 and 10 1).
	for _, tc := range []struct{ in, out string }{
		{"00110101", "01110100"}, {"110", "110"}, {"1", "1"}, {"10", "01"}, {"0111", "1101"},
	} {
		if got := wantOddsFirst(tokens(tc.in)); !slices.Equal(got, tokens(tc.out)) {
			t.Errorf("reference(%s) = %v, want %s", tc.in, got, tc.out)
		}
	}
	for _, e := range drawExamples(task, 8, 2000, 2) {
		if slices.Equal(e.Input, tokens("00110101")) {
			if !slices.Equal(e.Output, tokens("01110100")) {
				t.Errorf("00110101 gives %v", e.Output)
			}
			return
		}
	}
	t.Error("00110101 never drawn in 2000 examples of length 8")
}
