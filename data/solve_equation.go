package data

import "math/rand/v2"

func init() {
	Register("solve_equation", func(opt Options) (Task, error) {
		if err := fixedAlphabet("solve_equation", modulus+6, opt); err != nil {
			return nil, err
		}
		return solveEquationTask{}, nil
	})
}

// Tokens of solve_equation: digits 0 .. 4, then + − ( ) x =, no ×.
const (
	eqDigit = FirstSymbol // digit d is token eqDigit + d
	eqPlus  = eqDigit + 5 // +
	eqMinus = eqPlus + 1  // −
	eqOpen  = eqPlus + 2  // (
	eqClose = eqPlus + 3  // )
	eqX     = eqPlus + 4  // the unknown x
	eqEqual = eqPlus + 5  // =
)

// solveEquationTask is "solve_equation": Delétang et al.'s Solve Equation (deterministic
// context-free), from google-deepmind/neural_networks_chomsky_hierarchy tasks/dcf/solve_equation.py
// (commit 2b8eb4b; the generator at lines 31-67, the alphabet at 90-99, lengths below 3 at
// 143-151).
//
//   - Tokens: digits 0 .. 4 are 2 .. 6; + − ( ) x = are 7 .. 12 (their order; theirs has no ×,
//     and neither has this one).
//   - Input: for L ≥ 3, an expression of L − 2 tokens drawn as modular_arithmetic_brackets
//     draws it but with + and − only (their mult=False, so that x has one solution), one of its
//     digits replaced by x, then = and the expression's value mod 5: e.g. (x−(2+4))=0. The digit
//     is theirs: a position uniform over the expression, then the next digit at or after it,
//     wrapping around (so a digit after a run of brackets and operators is likelier). L = 1, 2
//     are their degenerate inputs: L digits 0, answer 0.
//   - Output: one digit token, the value of x (the replaced digit). OutputLen(L) = 1.
//   - Vocab: FirstSymbol + 11 = 13; an output token takes 5 values. The alphabet is fixed.
type solveEquationTask struct{}

func (solveEquationTask) Name() string       { return "solve_equation" }
func (solveEquationTask) Vocab() int         { return eqEqual + 1 }
func (solveEquationTask) OutputLen(int) int  { return 1 }
func (solveEquationTask) OutputClasses() int { return modulus }
func (solveEquationTask) Generate(rng *rand.Rand, L int) Example {
	checkLen(L)
	in := make([]int, L)
	if L < 3 {
		for i := range in {
			in[i] = eqDigit
		}
		return Example{Input: in, Output: []int{eqDigit}}
	}
	expr, val := bracketExpr(rng, L-2, false)
	idx := rng.IntN(L - 2)
	for expr[idx] < '0' || expr[idx] > '9' {
		idx = (idx + 1) % (L - 2)
	}
	x := int(expr[idx] - '0')
	for i, c := range expr {
		in[i] = equationTokens[c]
	}
	in[idx] = eqX
	in[L-2], in[L-1] = eqEqual, eqDigit+val
	return Example{Input: in, Output: []int{eqDigit + x}}
}

// equationTokens maps the characters of bracketExpr (without ×) to the task's tokens.
var equationTokens = map[byte]int{
	'0': eqDigit, '1': eqDigit + 1, '2': eqDigit + 2, '3': eqDigit + 3, '4': eqDigit + 4,
	'+': eqPlus, '-': eqMinus, '(': eqOpen, ')': eqClose,
}

// Baseline: x is a digit of the expression, and which one is chosen depends on the brackets and
// operators only, so its value is uniform over 0 .. 4 for L ≥ 3; below, the answer is always 0.
func (solveEquationTask) Baseline(L int) Baseline {
	if L < 3 {
		return Baseline{Token: 1, Exact: 1}
	}
	return singleSlot([]float64{0.2, 0.2, 0.2, 0.2, 0.2})
}
