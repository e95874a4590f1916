package data

import (
	"slices"
	"testing"
)

// wantParity is the reference for parity: tokens 2 and 3 are bits 0 and 1;
// the output is the count of 1s mod 2 as a bit token.
func wantParity(in []int) []int {
	ones := 0
	for _, tok := range in {
		if tok == 3 {
			ones++
		}
	}
	return []int{2 + ones%2}
}

func TestParity(t *testing.T) {
	task := mustNew(t, "parity", Options{})
	if task.Vocab() != 4 {
		t.Errorf("Vocab() = %d, want 4", task.Vocab())
	}
	for _, tc := range []struct{ in, out []int }{
		{[]int{2}, []int{2}},
		{[]int{3}, []int{3}},
		{[]int{3, 3}, []int{2}},
		{[]int{2, 3, 2, 2}, []int{3}},
		{[]int{3, 2, 3, 3, 2}, []int{3}},
		{[]int{3, 3, 3, 3, 2, 2}, []int{2}},
	} {
		if got := []int{parity(tc.in)}; !slices.Equal(got, tc.out) || !slices.Equal(wantParity(tc.in), tc.out) {
			t.Errorf("parity(%v) = %v (reference %v), want %v", tc.in, got, wantParity(tc.in), tc.out)
		}
	}
	for _, L := range []int{1, 2, 3, 4, 17, 64} {
		if task.OutputLen(L) != 1 {
			t.Errorf("OutputLen(%d) = %d, want 1", L, task.OutputLen(L))
		}
	}
	// Inputs are uniform bit strings: at L = 3 all 8 strings appear, and both
	// answers come up about equally often at every length.
	strings := map[[3]int]bool{}
	for _, e := range drawExamples(task, 3, 400, 1) {
		strings[[3]int(e.Input)] = true
	}
	if len(strings) != 8 {
		t.Errorf("L=3: drew %d distinct inputs, want all 8", len(strings))
	}
	for _, L := range []int{1, 2, 9, 40} {
		odd := 0
		for _, e := range drawExamples(task, L, 1000, 2) {
			if e.Output[0] == 3 {
				odd++
			}
		}
		if odd < 400 || odd > 600 {
			t.Errorf("L=%d: %d of 1000 outputs odd, want about half", L, odd)
		}
	}
}
