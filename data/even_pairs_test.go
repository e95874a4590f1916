package data

import (
	"testing"
)

// wantEvenPairs is the reference for even_pairs, straight from the definition:
// count the adjacent pairs ab and ba (a = 2, b = 3) and answer even (4) or
// odd (5).
func wantEvenPairs(in []int) []int {
	pairs := 0
	for i := 0; i+1 < len(in); i++ {
		if (in[i] == 2 && in[i+1] == 3) || (in[i] == 3 && in[i+1] == 2) {
			pairs++
		}
	}
	if pairs%2 == 0 {
		return []int{4}
	}
	return []int{5}
}

func TestEvenPairs(t *testing.T) {
	task := mustNew(t, "even_pairs", Options{})
	if task.Vocab() != 6 {
		t.Errorf("Vocab() = %d, want 6", task.Vocab())
	}
	// The paper's examples, with 0 = a and 1 = b: 001110 has one 10 and one 01
	// (even); 0101001 has two 10 and three 01 (odd).
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"a", 4}, {"b", 4}, {"ab", 5}, {"bb", 4}, {"aba", 4}, {"abb", 5},
		{"aabbba", 4}, {"abababbab", 5}, {"ababaab", 5},
	} {
		in := make([]int, len(tc.in))
		for i, c := range tc.in {
			in[i] = 2 + int(c-'a')
		}
		if got := wantEvenPairs(in)[0]; got != tc.want {
			t.Errorf("reference: %s gives %d, want %d", tc.in, got, tc.want)
		}
	}
	counts := map[int]int{}
	for _, L := range []int{1, 2, 3, 4, 5, 16, 63} {
		if task.OutputLen(L) != 1 {
			t.Errorf("OutputLen(%d) = %d, want 1", L, task.OutputLen(L))
		}
		for _, e := range drawExamples(task, L, 500, 4) {
			// The characterisation: even exactly when the first and last symbols agree.
			if (e.Input[0] == e.Input[L-1]) != (e.Output[0] == 4) {
				t.Fatalf("input %v: output %v, but first == last is %v", e.Input, e.Output, e.Input[0] == e.Input[L-1])
			}
			for _, tok := range e.Input {
				if tok != 2 && tok != 3 {
					t.Fatalf("input %v has a symbol other than a, b", e.Input)
				}
			}
			counts[e.Output[0]]++
		}
	}
	if counts[4] < 1800 || counts[5] < 1200 {
		t.Errorf("output counts %v over 3500 examples (L = 1 is always even)", counts)
	}
}
