package data

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBucketSort(t *testing.T) {
	// The paper's setting: 5 symbols.
	task := mustNew(t, "bucket_sort", Options{Symbols: 5})
	if task.Vocab() != 7 {
		t.Errorf("Vocab() = %d, want 7", task.Vocab())
	}
	seen := map[int]bool{}
	for _, L := range []int{1, 2, 8, 40} {
		if task.OutputLen(L) != L {
			t.Errorf("OutputLen(%d) = %d, want %d", L, task.OutputLen(L), L)
		}
		for _, e := range drawExamples(task, L, 100, 5) {
			for _, tok := range e.Input {
				seen[tok] = true
			}
			if !slices.IsSorted(e.Output) {
				t.Fatalf("output %v not sorted", e.Output)
			}
			// A permutation of the input: the symbol counts agree.
			for s := 2; s < 7; s++ {
				if cin, cout := countOf(e.Input, s), countOf(e.Output, s); cin != cout {
					t.Fatalf("input %v has %d of symbol %d, output %v has %d", e.Input, cin, s, e.Output, cout)
				}
			}
		}
	}
	if len(seen) != 5 {
		t.Errorf("drew symbols %v, want 2..6", seen)
	}
	// Hand example from the paper (symbols 0..4 are tokens 2..6): 10204112 -> 00111224.
	if got := wantSorted([]int{3, 2, 4, 2, 6, 3, 3, 4}); !slices.Equal(got, []int{2, 2, 3, 3, 3, 4, 4, 6}) {
		t.Errorf("reference sort: got %v", got)
	}
}

// TestBucketSortIsSort: bucket_sort and sort are the same transduction with the
// same input distribution, so equal Options and rng give identical examples.
func TestBucketSortIsSort(t *testing.T) {
	for _, symbols := range []int{0, 2, 5, 100} {
		b := mustNew(t, "bucket_sort", Options{Symbols: symbols})
		s := mustNew(t, "sort", Options{Symbols: symbols})
		if b.Vocab() != s.Vocab() {
			t.Errorf("Symbols %d: Vocab %d vs sort's %d", symbols, b.Vocab(), s.Vocab())
		}
		rb, rs := rand.New(rand.NewPCG(9, 9)), rand.New(rand.NewPCG(9, 9))
		for L := 1; L <= 30; L++ {
			eb, es := b.Generate(rb, L), s.Generate(rs, L)
			if !slices.Equal(eb.Stream(), es.Stream()) {
				t.Fatalf("Symbols %d, L=%d: bucket_sort %v, sort %v", symbols, L, eb.Stream(), es.Stream())
			}
		}
	}
}

func countOf(s []int, tok int) int {
	n := 0
	for _, x := range s {
		if x == tok {
			n++
		}
	}
	return n
}
