package data

import "math/rand/v2"

func init() {
	Register("odds_first", func(opt Options) (Task, error) {
		a, err := newAlphabet(opt)
		if err != nil {
			return nil, err
		}
		return oddsFirstTask{a}, nil
	})
}

// oddsFirstTask is "odds_first": Delétang et al.'s Odds First (context-sensitive), from
// google-deepmind/neural_networks_chomsky_hierarchy tasks/cs/odds_first.py (commit 2b8eb4b; the
// sampler at lines 51-60, the output length at 72-74).
//
//   - Input: L symbols drawn uniformly and independently from the alphabet FirstSymbol ..
//     FirstSymbol+Symbols-1 ([Options.Symbols], default DefaultSymbols; the paper uses 2, their
//     vocab_size default, line 43).
//   - Output: the symbols at the odd 0-based positions 1, 3, 5, ..., then those at the even
//     positions 0, 2, 4, ...: their code's order (line 58-59, strings[:, 1::2] then
//     strings[:, ::2]). Their docstring (lines 31-37) describes the other order, "s_1 s_3 s_5
//     ... s_2 s_4" counting from 1, and its example 00110101 → 0100 0111 follows it; the code,
//     which produced the paper's numbers, gives 0111 0100. OutputLen(L) = L.
//   - Vocab: FirstSymbol + Symbols.
type oddsFirstTask struct{ alphabet }

func (oddsFirstTask) Name() string        { return "odds_first" }
func (oddsFirstTask) OutputLen(L int) int { return L }
func (o oddsFirstTask) Generate(rng *rand.Rand, L int) Example {
	in := o.draw(rng, L)
	out := make([]int, 0, L)
	for i := 1; i < L; i += 2 {
		out = append(out, in[i])
	}
	for i := 0; i < L; i += 2 {
		out = append(out, in[i])
	}
	return Example{Input: in, Output: out}
}
