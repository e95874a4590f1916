package data

import (
	"math/rand/v2"
	"slices"
)

func init() {
	Register("bucket_sort", func(opt Options) (Task, error) {
		a, err := newAlphabet(opt)
		if err != nil {
			return nil, err
		}
		return bucketSortTask{a}, nil
	})
}

// bucketSortTask is "bucket_sort": Deletang et al.'s Bucket Sort
// (context-sensitive): sort a string over a fixed, small alphabet.
//
//   - Input: L symbols drawn uniformly and independently from the alphabet
//     FirstSymbol .. FirstSymbol+Symbols-1 ([Options.Symbols], default
//     DefaultSymbols like every task here; the paper uses Symbols = 5, i.e.
//     task.symbols: 5).
//   - Output: the input sorted in increasing order, duplicates kept:
//     OutputLen(L) = L.
//   - Vocab: FirstSymbol + Symbols.
//
// This is the same transduction, with the same input distribution, as the
// "sort" task: for equal Options and the same rng the two give identical
// examples; only the name differs. It is registered under the paper's name so
// that runs can follow the paper's task list ("bucket" refers to the finite
// alphabet, over which sorting is counting into one bucket per symbol). Set
// task.symbols: 5 for the paper's setting.
type bucketSortTask struct{ alphabet }

func (bucketSortTask) Name() string        { return "bucket_sort" }
func (bucketSortTask) OutputLen(L int) int { return L }
func (b bucketSortTask) Generate(rng *rand.Rand, L int) Example {
	in := b.draw(rng, L)
	out := slices.Clone(in)
	slices.Sort(out)
	return Example{Input: in, Output: out}
}

// Baseline: exact, sort's (sortedBaseline).
func (b bucketSortTask) Baseline(L int) Baseline { return sortedBaseline(b.symbols, L) }
