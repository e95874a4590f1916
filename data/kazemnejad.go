package data

import (
	"math/rand/v2"
	"slices"
)

// The copy and reverse variants of Kazemnejad et al. 2023 ("The Impact of Positional Encoding on
// Length Generalization in Transformers"), from their dataset builders
// (McGill-NLP/length-generalization, scripts/dataset_builders/make_copy_dataset.py and
// make_reverse_dataset.py). Their split names, and ours:
//
//	rsc   repeat_single_char      copy_repeat      a×L → a×L
//	rsc2x repeat_single_2x_char   copy_repeat_2x   a×L → a×2L
//	cmc   copy_multi_char         copy             (their alphabet: 100 symbols, task.symbols: 100)
//	cmc2x copy_multi_char_2x      copy_twice       x → x NEXT x
//	mc    multi_char              reverse          (100 symbols)
//	mc2x  multi_char_2x           reverse_twice    x → rev(x) NEXT rev(x)
//	mcrv  multi_char_rev_cop      reverse_copy     x → rev(x) NEXT x
//
// In every split their length (`seq_length`, the `cat` of an example) is the number of source
// tokens, as L is here. Their `[NEXT]` marker between the two halves is the task's own token
// NEXT = FirstSymbol + Symbols, the last of its vocabulary. The `rdc` split (repeat_double_char,
// "Replace a with b in a a a" → "b b b") is not implemented: its prompt names the target symbol
// before the L repeated ones, and posformer's L is the whole input's length.
func init() {
	register := func(name string, mk func(alphabet) Task) {
		Register(name, func(opt Options) (Task, error) {
			a, err := newAlphabet(opt)
			if err != nil {
				return nil, err
			}
			return mk(a), nil
		})
	}
	register("copy_repeat", func(a alphabet) Task { return repeatTask{a, 1} })
	register("copy_repeat_2x", func(a alphabet) Task { return repeatTask{a, 2} })
	register("copy_twice", func(a alphabet) Task { return twiceTask{"copy_twice", a, false, false} })
	register("reverse_twice", func(a alphabet) Task { return twiceTask{"reverse_twice", a, true, true} })
	register("reverse_copy", func(a alphabet) Task { return twiceTask{"reverse_copy", a, true, false} })
}

// repeatTask is copy_repeat (times 1, their rsc) and copy_repeat_2x (times 2, their rsc2x):
//
//   - Input: one symbol a, drawn uniformly from the alphabet, repeated L times.
//   - Output: a repeated times·L times: OutputLen(L) = times·L.
//   - Vocab: FirstSymbol + Symbols.
type repeatTask struct {
	alphabet
	times int
}

func (r repeatTask) Name() string {
	if r.times == 2 {
		return "copy_repeat_2x"
	}
	return "copy_repeat"
}
func (r repeatTask) OutputLen(L int) int { return r.times * L }
func (r repeatTask) Generate(rng *rand.Rand, L int) Example {
	checkLen(L)
	a := FirstSymbol + rng.IntN(r.symbols)
	in := slices.Repeat([]int{a}, L)
	return Example{Input: in, Output: slices.Repeat([]int{a}, r.times*L)}
}

// twiceTask is copy_twice (their cmc2x), reverse_twice (mc2x) and reverse_copy (mcrv):
//
//   - Input: L symbols drawn uniformly and independently from the alphabet.
//   - Output: first half, NEXT, second half, each half the input (reversed for reverse_twice's
//     both halves and reverse_copy's first): OutputLen(L) = 2L + 1.
//   - Vocab: FirstSymbol + Symbols + 1; NEXT = FirstSymbol + Symbols.
type twiceTask struct {
	name string
	alphabet
	revFirst, revSecond bool
}

func (t twiceTask) Name() string        { return t.name }
func (t twiceTask) Vocab() int          { return t.alphabet.Vocab() + 1 }
func (t twiceTask) OutputLen(L int) int { return 2*L + 1 }

// Next is the token between the two halves of the output.
func (t twiceTask) Next() int { return t.alphabet.Vocab() }

func (t twiceTask) Generate(rng *rand.Rand, L int) Example {
	in := t.draw(rng, L)
	half := func(rev bool) []int {
		h := slices.Clone(in)
		if rev {
			slices.Reverse(h)
		}
		return h
	}
	out := make([]int, 0, 2*L+1)
	out = append(out, half(t.revFirst)...)
	out = append(out, t.Next())
	return Example{Input: in, Output: append(out, half(t.revSecond)...)}
}

// Baseline: a slot is uniform over the alphabet and all are one symbol, so each possible answer
// has the probability 1/k.
func (r repeatTask) Baseline(int) Baseline { return uniformBaseline(r.symbols, 1/float64(r.symbols)) }

// Baseline: the 2L symbol slots are uniform, NEXT is always right; the two halves are one string,
// so each possible answer has the probability k^−L.
func (t twiceTask) Baseline(L int) Baseline {
	return Baseline{Token: (2*float64(L)/float64(t.symbols) + 1) / float64(2*L+1), Exact: pow(t.symbols, L)}
}
