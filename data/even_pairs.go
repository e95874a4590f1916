package data

import "math/rand/v2"

func init() {
	Register("even_pairs", func(opt Options) (Task, error) {
		if err := fixedAlphabet("even_pairs", 4, opt); err != nil {
			return nil, err
		}
		return evenPairsTask{}, nil
	})
}

// Tokens of the even_pairs task.
const (
	pairsA    = FirstSymbol     // input symbol a
	pairsB    = FirstSymbol + 1 // input symbol b
	pairsEven = FirstSymbol + 2 // output: the number of ab and ba pairs is even
	pairsOdd  = FirstSymbol + 3 // output: it is odd
)

// evenPairsTask is "even_pairs": Deletang et al.'s Even Pairs (regular).
//
//   - Input: L symbols from {a, b} drawn uniformly and independently; a is
//     token FirstSymbol (2), b is FirstSymbol+1 (3). L is the string length.
//   - Output: one token saying whether the number of adjacent pairs "ab" and
//     "ba" (positions i, i+1 holding different symbols, counted together) is
//     even: "even" (FirstSymbol+2 = 4) or "odd" (FirstSymbol+3 = 5), the paper's
//     classes 0 and 1. OutputLen(L) = 1. The count is even exactly when the
//     first and last symbols are equal, so L = 1 (no pairs) gives "even".
//   - Vocab: FirstSymbol + 4 = 6. The alphabet is fixed: Options.Symbols must
//     be unset (see fixedAlphabet).
//
// The answer has its own two tokens rather than reusing a and b, since it is
// a class and not a symbol of the string.
type evenPairsTask struct{}

func (evenPairsTask) Name() string       { return "even_pairs" }
func (evenPairsTask) Vocab() int         { return FirstSymbol + 4 }
func (evenPairsTask) OutputLen(int) int  { return 1 }
func (evenPairsTask) OutputClasses() int { return 2 }
func (evenPairsTask) Generate(rng *rand.Rand, L int) Example {
	in := alphabet{symbols: 2}.draw(rng, L)
	out := pairsOdd
	if in[0] == in[L-1] {
		out = pairsEven
	}
	return Example{Input: in, Output: []int{out}}
}

// Baseline: the answer is uniform for L ≥ 2 (the first and last symbols independent), always
// even for L = 1.
func (evenPairsTask) Baseline(L int) Baseline {
	if L == 1 {
		return Baseline{Token: 1, Exact: 1}
	}
	return singleSlot([]float64{0.5, 0.5})
}
