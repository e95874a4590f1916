package data

import "math/rand/v2"

func init() {
	Register("modular_arithmetic", func(opt Options) (Task, error) {
		if err := fixedAlphabet("modular_arithmetic", modulus+3, opt); err != nil {
			return nil, err
		}
		return modArithTask{}, nil
	})
}

// Tokens of the modular_arithmetic task.
const (
	modulus  = 5
	modDigit = FirstSymbol           // digit d (0 .. 4) is token modDigit + d
	modPlus  = FirstSymbol + modulus // +
	modMinus = modPlus + 1           // −
	modTimes = modPlus + 2           // ×
)

// modArithTask is "modular_arithmetic": Deletang et al.'s Modular Arithmetic
// (Simple), a regular task: evaluate an expression without brackets mod 5.
// (The paper's bracketed variant, which is deterministic context-free, is not
// implemented.)
//
//   - Tokens: digits 0 .. 4 are FirstSymbol .. FirstSymbol+4 (2 .. 6); the
//     operators +, − and × are FirstSymbol+5, +6 and +7 (7, 8, 9).
//   - Input: an expression of exactly L tokens; L is the number of tokens
//     (operands and operators), like the paper's length. For odd L = 2k+1 it is
//     d_0 op_1 d_1 ... op_k d_k: k+1 digits drawn uniformly from 0 .. 4 and k
//     binary operators drawn uniformly from {+, −, ×}. For even L = 2k the
//     same is preceded by a unary sign drawn uniformly from {+, −}:
//     sign d_0 op_1 d_1 ... op_{k-1} d_{k-1} (k digits; L = 2 is "+d" or "−d").
//     The sign applies to the first operand. So every L >= 1 is a valid
//     expression whose every token counts; the paper instead shortens an even
//     length to L−1, which would break "every input of a batch has length L".
//   - Output: one token, the value of the expression mod 5 as a digit token,
//     with the usual precedence: × binds tighter than + and −, and operators
//     of equal precedence apply left to right (a − b − c = (a − b) − c).
//     E.g. 1+2×3 = 7 ≡ 2, 1−1−1 = −1 ≡ 4, −3×2+1 = −5 ≡ 0. OutputLen(L) = 1.
//   - Vocab: FirstSymbol + 8 = 10. The alphabet (and the modulus) is fixed:
//     Options.Symbols must be unset (see fixedAlphabet).
type modArithTask struct{}

func (modArithTask) Name() string       { return "modular_arithmetic" }
func (modArithTask) Vocab() int         { return modTimes + 1 }
func (modArithTask) OutputLen(int) int  { return 1 }
func (modArithTask) OutputClasses() int { return modulus }
func (modArithTask) Generate(rng *rand.Rand, L int) Example {
	checkLen(L)
	in := make([]int, L)
	start := 0
	if L%2 == 0 {
		in[0] = modPlus + rng.IntN(2) // unary + or −
		start = 1
	}
	for i := start; i < L; i++ {
		if (i-start)%2 == 0 {
			in[i] = modDigit + rng.IntN(modulus)
		} else {
			in[i] = modPlus + rng.IntN(3)
		}
	}
	return Example{Input: in, Output: []int{modDigit + evalMod(in)}}
}

// evalMod evaluates a well-formed expression of the task (an optional unary
// sign, then digit (op digit)*) mod 5 in one left-to-right pass: sum holds the
// finished terms, term the product being built and sign the sign of the
// current term. It returns the value in 0 .. modulus-1.
func evalMod(in []int) int {
	sum, term, sign := 0, 0, 1
	op := modPlus // the operator before the next digit; a leading sign sets it
	first := true
	for _, tok := range in {
		if tok >= modPlus {
			op = tok
			continue
		}
		d := tok - modDigit
		if op == modTimes {
			term = term * d % modulus
			continue
		}
		// + or − (binary, or the unary sign of the first operand): a new term.
		if !first {
			sum = (sum + sign*term) % modulus
		}
		first = false
		term, sign = d, 1
		if op == modMinus {
			sign = -1
		}
	}
	sum = (sum + sign*term) % modulus
	return (sum + modulus) % modulus
}

// Baseline: exact, the distribution of the value, which × skews towards 0: evalMod's pass as a
// chain over (the finished terms' sum, the signed term being built) mod 5, each operator and
// digit uniform.
func (modArithTask) Baseline(L int) Baseline {
	var p [modulus][modulus]float64 // [sum, term]
	signs := []int{1}
	if L%2 == 0 {
		signs = []int{1, modulus - 1} // the unary + or −
	}
	for _, s := range signs {
		for d := range modulus {
			p[0][s*d%modulus] += 1 / float64(len(signs)*modulus)
		}
	}
	for range (L - 1) / 2 { // the (op, digit) pairs
		var next [modulus][modulus]float64
		for sum, row := range p {
			for term, q := range row {
				q /= 3 * modulus
				for d := range modulus {
					next[sum][term*d%modulus] += q                     // ×
					next[(sum+term)%modulus][d] += q                   // +
					next[(sum+term)%modulus][(modulus-d)%modulus] += q // −
				}
			}
		}
		p = next
	}
	v := make([]float64, modulus)
	for sum, row := range p {
		for term, q := range row {
			v[(sum+term)%modulus] += q
		}
	}
	return singleSlot(v)
}
