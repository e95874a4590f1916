package data

import "math/rand/v2"

func init() {
	Register("duplicate", func(opt Options) (Task, error) {
		a, err := newAlphabet(opt)
		if err != nil {
			return nil, err
		}
		return duplicateTask{a}, nil
	})
}

// duplicateTask is "duplicate": Deletang et al.'s Duplicate String
// (context-sensitive), s ↦ ss.
//
//   - Input: L symbols drawn uniformly and independently from the alphabet
//     FirstSymbol .. FirstSymbol+Symbols-1 ([Options.Symbols], default
//     DefaultSymbols; the paper uses Symbols = 2). L is the length of s.
//   - Output: the input written twice, s_1..s_L s_1..s_L, with no separator
//     between the copies: OutputLen(L) = 2L.
//   - Vocab: FirstSymbol + Symbols.
type duplicateTask struct{ alphabet }

func (duplicateTask) Name() string        { return "duplicate" }
func (duplicateTask) OutputLen(L int) int { return 2 * L }
func (d duplicateTask) Generate(rng *rand.Rand, L int) Example {
	in := d.draw(rng, L)
	out := make([]int, 0, 2*L)
	out = append(out, in...)
	return Example{Input: in, Output: append(out, in...)}
}

// Baseline: a slot is uniform over the alphabet, but the answer's two halves are one string, so
// each possible answer has the probability k^−L, not k^−2L.
func (d duplicateTask) Baseline(L int) Baseline { return uniformBaseline(d.symbols, pow(d.symbols, L)) }
