package data

import "math/rand/v2"

func init() {
	Register("modular_arithmetic_brackets", func(opt Options) (Task, error) {
		if err := fixedAlphabet("modular_arithmetic_brackets", modulus+5, opt); err != nil {
			return nil, err
		}
		return modBracketsTask{}, nil
	})
}

// Tokens of modular_arithmetic_brackets: modular_arithmetic's digits and operators, then the
// brackets.
const (
	modOpen  = modTimes + 1 // (
	modClose = modTimes + 2 // )
)

// modBracketsTask is "modular_arithmetic_brackets": Delétang et al.'s Modular Arithmetic
// (deterministic context-free), from google-deepmind/neural_networks_chomsky_hierarchy
// tasks/dcf/modular_arithmetic_brackets.py (commit 2b8eb4b; the generator at lines 30-89,
// mult=True as experiments/constants.py:90-92 builds it for the paper).
//
//   - Tokens: digits 0 .. 4 are 2 .. 6 and + − × are 7, 8, 9, as in modular_arithmetic; ( and )
//     are 10 and 11.
//   - Input: an expression of exactly L tokens drawn as their generator draws it, recursively:
//     L = 1 is a digit d, 2 is −d, 3 is (d), 4 is (−d), digits uniform over 0 .. 4; L ≥ 5 is
//     ( e₁ op e₂ ) with the length of e₁ uniform over [1, L−4], e₂ the rest, op uniform over
//     {+, −, ×}. Every bracket is written, so no precedence is needed.
//   - Output: one digit token, the value mod 5. OutputLen(L) = 1.
//   - Vocab: FirstSymbol + 10 = 12; an output token takes 5 values. The alphabet is fixed.
//
// Their input alphabet has 11 symbols (it reserves x for solve_equation); this one has no x.
type modBracketsTask struct{}

func (modBracketsTask) Name() string       { return "modular_arithmetic_brackets" }
func (modBracketsTask) Vocab() int         { return modClose + 1 }
func (modBracketsTask) OutputLen(int) int  { return 1 }
func (modBracketsTask) OutputClasses() int { return modulus }
func (modBracketsTask) Generate(rng *rand.Rand, L int) Example {
	checkLen(L)
	expr, val := bracketExpr(rng, L, true)
	in := make([]int, L)
	for i, c := range expr {
		in[i] = bracketTokens[c]
	}
	return Example{Input: in, Output: []int{modDigit + val}}
}

// bracketTokens maps the characters of bracketExpr to the task's tokens.
var bracketTokens = map[byte]int{
	'0': modDigit, '1': modDigit + 1, '2': modDigit + 2, '3': modDigit + 3, '4': modDigit + 4,
	'+': modPlus, '-': modMinus, '*': modTimes, '(': modOpen, ')': modClose,
}

// bracketExpr draws an expression of exactly L characters over 0-4 + - * ( ) and returns it
// with its value mod 5, as generate_one_expression_and_result does (modular_arithmetic_brackets.py
// lines 30-89, the same draws in the same order); mult allows × among the operators.
func bracketExpr(rng *rand.Rand, L int, mult bool) ([]byte, int) {
	digit := func() (byte, int) {
		d := rng.IntN(modulus)
		return byte('0' + d), d
	}
	switch L {
	case 1:
		c, d := digit()
		return []byte{c}, d
	case 2:
		c, d := digit()
		return []byte{'-', c}, (modulus - d) % modulus
	case 3:
		c, d := digit()
		return []byte{'(', c, ')'}, d
	case 4:
		c, d := digit()
		return []byte{'(', '-', c, ')'}, (modulus - d) % modulus
	}
	left := 1 + rng.IntN(L-4)
	a, x := bracketExpr(rng, left, mult)
	b, y := bracketExpr(rng, L-3-left, mult)
	ops := 2
	if mult {
		ops = 3
	}
	var op byte
	var v int
	switch rng.IntN(ops) {
	case 0:
		op, v = '+', (x+y)%modulus
	case 1:
		op, v = '-', (x-y+modulus)%modulus
	default:
		op, v = '*', x*y%modulus
	}
	e := make([]byte, 0, L)
	e = append(e, '(')
	e = append(e, a...)
	e = append(e, op)
	e = append(e, b...)
	return append(e, ')'), v
}

// Baseline: exact, the distribution of the value, which × skews towards 0, by bracketExpr's
// recursion: uniform for L ≤ 4 (d, −d, (d), (−d)); for L ≥ 5 the mixture, over the left length
// and the operator, of the two parts' values combined.
func (modBracketsTask) Baseline(L int) Baseline {
	return singleSlot(bracketValues(L, true)[L])
}

// bracketValues returns, for every length up to L, the distribution of bracketExpr's value mod 5
// (mult allows ×).
func bracketValues(L int, mult bool) [][]float64 {
	ops := 2
	if mult {
		ops = 3
	}
	p := make([][]float64, L+1)
	for n := 1; n <= L; n++ {
		p[n] = make([]float64, modulus)
		if n <= 4 {
			for v := range p[n] {
				p[n][v] = 1 / float64(modulus)
			}
			continue
		}
		w := 1 / float64((n-4)*ops)
		for left := 1; left <= n-4; left++ {
			a, b := p[left], p[n-3-left]
			for x, px := range a {
				for y, py := range b {
					q := px * py * w
					p[n][(x+y)%modulus] += q
					p[n][(x-y+modulus)%modulus] += q
					if mult {
						p[n][x*y%modulus] += q
					}
				}
			}
		}
	}
	return p
}
