package data

import (
	"math"
	"math/rand/v2"
)

func init() {
	Register("addition", func(opt Options) (Task, error) {
		if err := fixedAlphabet("addition", 11, opt); err != nil {
			return nil, err
		}
		return additionTask{}, nil
	})
}

// Tokens of the addition task.
const (
	decDigit = FirstSymbol      // digit d (0 .. 9) is token decDigit + d
	decPlus  = FirstSymbol + 10 // +
)

// additionTask is "addition": decimal addition with the operands and the sum written least
// significant digit first (reversed), as McLeish et al. 2024 (Abacus) train it; Cho et al. 2024
// (position coupling) reverse the sum only, writing the operands most significant digit first
// (docs/tasks.md).
//
//   - Tokens: digit d is FirstSymbol + d (2 .. 11), + is FirstSymbol + 10 (12).
//   - Input: a + b as L tokens: n_a = ⌈(L−1)/2⌉ digits of a, the + token, n_b = ⌊(L−1)/2⌋
//     digits of b. At odd L = 2n + 1 both operands have n digits (the papers' test: operands
//     of equal length), at even L the first has one more. Every digit is uniform over 0 .. 9,
//     so an operand is uniform over [0, 10^w) written with exactly w digits: a shorter number
//     is zero-padded at its most significant end, as Cho et al. pad (McLeish et al. draw
//     numbers of each length without padding). L = 1 is "+" (0 + 0).
//   - Output: a + b, least significant digit first, zero-padded to n_a + 1 digits (the carry
//     out of the top digit is always written). The framework's answer has a length fixed by
//     L, which is why the sum is padded, as Cho et al.'s is.
//   - Vocab: FirstSymbol + 11 = 13; the alphabet is fixed (Options.Symbols must be unset).
//   - Digital: the digits are the tokens FirstSymbol .. FirstSymbol + 9 (position schemes
//     that number digits, abacus and coupled, read them).
//
// For example L = 7 (3-digit operands): 472 + 915 = 1387 is the input 274+519 and the output
// 7831.
type additionTask struct{}

func (additionTask) Name() string        { return "addition" }
func (additionTask) Vocab() int          { return decPlus + 1 }
func (additionTask) OutputLen(L int) int { return additionWidths(L) + 1 }
func (additionTask) OutputClasses() int  { return 10 }
func (additionTask) Digit0() int         { return decDigit }
func (additionTask) Generate(rng *rand.Rand, L int) Example {
	checkLen(L)
	na := additionWidths(L)
	in := make([]int, L)
	for i := range in {
		in[i] = decDigit + rng.IntN(10)
	}
	in[na] = decPlus
	a, b := in[:na], in[na+1:]
	out := make([]int, na+1)
	carry := 0
	for i := range out {
		s := carry
		if i < len(a) {
			s += a[i] - decDigit
		}
		if i < len(b) {
			s += b[i] - decDigit
		}
		out[i], carry = decDigit+s%10, s/10
	}
	return Example{Input: in, Output: out}
}

// additionWidths is n_a, the digits of the first (longer) operand at input length L.
func additionWidths(L int) int { return L / 2 }

// Baseline: exact. Every output digit below the top one is uniform and independent of the
// others (a digit of the longer operand is uniform, whatever the rest), so its majority class
// scores 1/10; the top digit is the carry out, 1 with probability p: for operands of n digits
// each (N = 10^n pairs per operand), p = (N − 1)/(2N) (the pairs with a + b ≥ N are half of
// those off the diagonal a + b = N − 1); for n + 1 and n digits (M = 10^n), p = (M − 1)/(20M)
// (a ≥ 10M − b: b pairs for each b). The most likely sum is taken by 10^{n_b} pairs out of
// 10^{n_a + n_b}, so exact match is 10^{−n_a}.
func (additionTask) Baseline(L int) Baseline {
	na, nb := additionWidths(L), (L-1)/2
	var p float64
	if na == nb {
		N := math.Pow(10, float64(na))
		p = (N - 1) / (2 * N)
	} else {
		M := math.Pow(10, float64(nb))
		p = (M - 1) / (20 * M)
	}
	return Baseline{Token: (0.1*float64(na) + 1 - p) / float64(na+1), Exact: math.Pow(10, -float64(na))}
}

// Digital is the optional hook of a task written in decimal digits, each number least
// significant digit first: the token of digit d is Digit0() + d (d = 0 .. 9), and a number is a
// maximal run of digit tokens. The position schemes that number digits (abacus, coupled) need it.
type Digital interface {
	Digit0() int
}

var _ Digital = additionTask{}

// Digit0 returns the token of digit 0 of a task with the [Digital] hook (in either format, with
// or without task.end_token), and false for a task without it.
func Digit0(t Task) (int, bool) {
	if d, ok := unwrapFormat(t).(Digital); ok {
		return d.Digit0(), true
	}
	return 0, false
}

// Glyphs: the digits 0 .. 9, then + (Digit0's layout), as inspect and the report write them.
func (additionTask) Glyphs() string { return "0123456789+" }

var _ Glyphed = additionTask{}
