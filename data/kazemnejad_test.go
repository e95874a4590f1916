package data

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func twicePlusOne(L int) int { return 2*L + 1 }

// nextVocab is the vocabulary of the tasks with a NEXT marker: the symbols and NEXT.
func nextVocab(symbols int) int { return FirstSymbol + symbols + 1 }

// wantTwice is the reference of copy_twice, reverse_twice and reverse_copy, written from
// Kazemnejad et al.'s builders: tgt = first + " [NEXT] " + second, where first and second are
// the tokens or tokens[::-1].
func wantTwice(revFirst, revSecond bool) func(in []int, symbols int) []int {
	return func(in []int, symbols int) []int {
		half := func(rev bool) []int {
			var h []int
			for i := range in {
				if rev {
					h = append(h, in[len(in)-1-i])
				} else {
					h = append(h, in[i])
				}
			}
			return h
		}
		next := FirstSymbol + symbols
		return append(append(half(revFirst), next), half(revSecond)...)
	}
}

// TestKazemnejadSplits checks one literal example of each split against the target its builder
// writes for the source "a b c" (make_copy_dataset.py, make_reverse_dataset.py).
func TestKazemnejadSplits(t *testing.T) {
	const a, b, c = 2, 3, 4
	next := FirstSymbol + DefaultSymbols
	for _, tc := range []struct {
		name string
		in   []int
		want []int
	}{
		{"copy_twice", []int{a, b, c}, []int{a, b, c, next, a, b, c}},
		{"reverse_twice", []int{a, b, c}, []int{c, b, a, next, c, b, a}},
		{"reverse_copy", []int{a, b, c}, []int{c, b, a, next, a, b, c}},
	} {
		task := mustNew(t, tc.name, Options{})
		if got := wantTwice(tc.name != "copy_twice", tc.name == "reverse_twice")(tc.in, DefaultSymbols); !slices.Equal(got, tc.want) {
			t.Errorf("%s: reference gives %v, the builder %v", tc.name, got, tc.want)
		}
		if n, ok := task.(interface{ Next() int }); !ok || n.Next() != next {
			t.Errorf("%s: NEXT token is not %d", tc.name, next)
		}
	}
}

// TestCopyRepeat: the repeat splits (rsc, rsc2x) repeat one symbol, and every symbol of the
// alphabet is drawn.
func TestCopyRepeat(t *testing.T) {
	for _, name := range []string{"copy_repeat", "copy_repeat_2x"} {
		task := mustNew(t, name, Options{Symbols: 5})
		rng := rand.New(rand.NewPCG(5, 5))
		seen := map[int]bool{}
		for range 200 {
			e := task.Generate(rng, 7)
			for _, tok := range slices.Concat(e.Input, e.Output) {
				if tok != e.Input[0] {
					t.Fatalf("%s: %v is not one repeated symbol", name, e.Stream())
				}
			}
			seen[e.Input[0]] = true
		}
		if len(seen) != 5 {
			t.Errorf("%s: drew %d distinct symbols of 5", name, len(seen))
		}
	}
}
