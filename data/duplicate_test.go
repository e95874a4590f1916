package data

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// wantDuplicate is the reference for duplicate: s ↦ ss.
func wantDuplicate(in []int) []int {
	out := make([]int, 2*len(in))
	for i, tok := range in {
		out[i], out[len(in)+i] = tok, tok
	}
	return out
}

func TestDuplicate(t *testing.T) {
	task := mustNew(t, "duplicate", Options{})
	if task.Vocab() != FirstSymbol+DefaultSymbols {
		t.Errorf("Vocab() = %d, want %d", task.Vocab(), FirstSymbol+DefaultSymbols)
	}
	for _, L := range []int{1, 2, 3, 10, 100} {
		if got := task.OutputLen(L); got != 2*L {
			t.Errorf("OutputLen(%d) = %d, want %d", L, got, 2*L)
		}
	}
	e := task.Generate(rand.New(rand.NewPCG(1, 1)), 5)
	if !slices.Equal(e.Output[:5], e.Input) || !slices.Equal(e.Output[5:], e.Input) {
		t.Errorf("output %v is not the input %v twice", e.Output, e.Input)
	}
	e.Output[0] = -1
	if e.Input[0] == -1 {
		t.Error("Output aliases Input")
	}
	// A binary alphabet (the paper's) draws both symbols and nothing else.
	bin := mustNew(t, "duplicate", Options{Symbols: 2})
	if bin.Vocab() != 4 {
		t.Errorf("Symbols 2: Vocab() = %d, want 4", bin.Vocab())
	}
	seen := map[int]int{}
	for _, e := range drawExamples(bin, 16, 200, 3) {
		for _, tok := range e.Input {
			seen[tok]++
		}
	}
	if len(seen) != 2 || seen[2] < 1400 || seen[3] < 1400 {
		t.Errorf("binary duplicate drew %v over 3200 symbols, want about 1600 each of 2 and 3", seen)
	}
}
