package data

import "math/rand/v2"

func init() {
	Register("parity", func(opt Options) (Task, error) {
		if err := fixedAlphabet("parity", 2, opt); err != nil {
			return nil, err
		}
		return parityTask{}, nil
	})
}

// Tokens of the parity task.
const (
	parityZero = FirstSymbol     // bit 0
	parityOne  = FirstSymbol + 1 // bit 1
)

// parityTask is "parity": Deletang et al.'s Parity Check (regular).
//
//   - Input: L bits drawn uniformly and independently; bit 0 is token
//     FirstSymbol (2), bit 1 is FirstSymbol+1 (3). L is the number of bits.
//   - Output: one token, the number of 1s in the input mod 2, written as a bit
//     with the same two tokens (3 iff the count of 1s is odd): OutputLen(L) = 1.
//   - Vocab: FirstSymbol + 2 = 4. The alphabet is fixed: Options.Symbols must
//     be unset (see fixedAlphabet).
type parityTask struct{}

func (parityTask) Name() string       { return "parity" }
func (parityTask) Vocab() int         { return FirstSymbol + 2 }
func (parityTask) OutputLen(int) int  { return 1 }
func (parityTask) OutputClasses() int { return 2 }
func (parityTask) Generate(rng *rand.Rand, L int) Example {
	in := alphabet{symbols: 2}.draw(rng, L)
	return Example{Input: in, Output: []int{parity(in)}}
}

// parity returns the parity-bit token of a string of bit tokens.
func parity(in []int) int {
	p := 0
	for _, tok := range in {
		p ^= tok - parityZero
	}
	return parityZero + p
}
