package data

import (
	"math/big"
	"math/rand/v2"
)

func init() {
	Register("compute_sqrt", func(opt Options) (Task, error) {
		if err := fixedAlphabet("compute_sqrt", 2, opt); err != nil {
			return nil, err
		}
		return computeSqrtTask{}, nil
	})
}

// computeSqrtTask is "compute_sqrt": Delétang et al.'s Compute Sqrt (context-sensitive), from
// google-deepmind/neural_networks_chomsky_hierarchy tasks/cs/compute_sqrt.py (commit 2b8eb4b; the
// sampler at lines 42-59, the output length at 71-72).
//
//   - Tokens: bit 0 is FirstSymbol (2), bit 1 is 3, in the input and the output.
//   - Input: a number uniform over [1, 2^L − 1] written big-endian (most significant bit first)
//     with exactly L bits, so it may start with zeros.
//   - Output: ⌊√x⌋ big-endian in exactly OutputLen(L) = ⌈L/2⌉ bits (it is below 2^⌈L/2⌉).
//   - Vocab: FirstSymbol + 2 = 4; an output token takes 2 values. The alphabet is fixed.
//
// For example 100101 (37) gives 110 (6) and 111 (7) gives 10 (2), their docstring's examples
// (it prints 101 for 6, a slip: the code gives 110).
type computeSqrtTask struct{}

func (computeSqrtTask) Name() string        { return "compute_sqrt" }
func (computeSqrtTask) Vocab() int          { return binOne + 1 }
func (computeSqrtTask) OutputLen(L int) int { return (L + 1) / 2 }
func (computeSqrtTask) OutputClasses() int  { return 2 }
func (computeSqrtTask) Generate(rng *rand.Rand, L int) Example {
	checkLen(L)
	in := nonzeroBits(rng, L) // uniform over the nonzero L-bit strings, read big-endian
	x := new(big.Int)
	for _, tok := range in {
		x.Lsh(x, 1)
		x.SetBit(x, 0, uint(tok-binZero))
	}
	r := new(big.Int).Sqrt(x)
	out := make([]int, (L+1)/2)
	for i := range out {
		out[i] = binZero + int(r.Bit(len(out)-1-i))
	}
	return Example{Input: in, Output: out}
}
