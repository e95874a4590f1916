package data

import "math/rand/v2"

func init() {
	Register("missing_duplicate", func(opt Options) (Task, error) {
		if err := fixedAlphabet("missing_duplicate", 4, opt); err != nil {
			return nil, err
		}
		return missingDuplicateTask{}, nil
	})
}

// Tokens of the missing_duplicate task.
const (
	missZero  = FirstSymbol     // bit 0 (input and output)
	missOne   = FirstSymbol + 1 // bit 1
	missBlank = FirstSymbol + 2 // the omitted bit's placeholder
	missEmpty = FirstSymbol + 3 // padding of an odd length
)

// missingDuplicateTask is "missing_duplicate": Delétang et al.'s Missing Duplicate
// (context-sensitive), from google-deepmind/neural_networks_chomsky_hierarchy
// tasks/cs/missing_duplicate_string.py (commit 2b8eb4b; the sampler at lines 52-86, the sizes at
// 88-96).
//
//   - Tokens: bits 0 and 1 are FirstSymbol (2) and 3; the placeholder of the omitted bit is 4,
//     the padding of an odd length 5 (theirs: 0, 1, 2, 3).
//   - Input: a string s of ⌊L/2⌋ uniform bits written twice, ss, with one position, uniform over
//     the 2⌊L/2⌋, replaced by the placeholder; for odd L the padding token ends it. L = 1 is their
//     special case (lines 52-62): the input is the bit 1 and so is the answer.
//   - Output: one bit token, the omitted bit. OutputLen(L) = 1.
//   - Vocab: FirstSymbol + 4 = 6; an output token takes 2 values. The alphabet is fixed.
//
// For example 0 1 1 0 0 _ 1 0 (L = 8) gives 1 (their docstring's).
type missingDuplicateTask struct{}

func (missingDuplicateTask) Name() string       { return "missing_duplicate" }
func (missingDuplicateTask) Vocab() int         { return missEmpty + 1 }
func (missingDuplicateTask) OutputLen(int) int  { return 1 }
func (missingDuplicateTask) OutputClasses() int { return 2 }
func (missingDuplicateTask) Generate(rng *rand.Rand, L int) Example {
	checkLen(L)
	if L == 1 {
		return Example{Input: []int{missOne}, Output: []int{missOne}}
	}
	h := L / 2
	in := make([]int, L)
	for i := range h {
		in[i] = missZero + rng.IntN(2)
		in[h+i] = in[i]
	}
	idx := rng.IntN(2 * h)
	out := in[idx]
	in[idx] = missBlank
	if L%2 == 1 {
		in[L-1] = missEmpty
	}
	return Example{Input: in, Output: []int{out}}
}

// Baseline: the omitted bit is uniform for L ≥ 2, always 1 for L = 1.
func (missingDuplicateTask) Baseline(L int) Baseline {
	if L == 1 {
		return Baseline{Token: 1, Exact: 1}
	}
	return singleSlot([]float64{0.5, 0.5})
}
