package data

import (
	"math/big"
	"testing"
)

// Tokens of solve_equation: digits 0..4 = 2..6, + − ( ) x = are 7..12.
var equationTok = map[rune]int{'0': 2, '1': 3, '2': 4, '3': 5, '4': 6, '+': 7, '-': 8, '(': 9, ')': 10, 'x': 11, '=': 12}

// solutions returns the digits x in 0..4 for which the left side of an equation (tokens before
// =) is congruent to its right side mod 5, by evaluating the left side with each x.
func solutions(in []int) []int {
	eq := len(in) - 2
	if eq < 1 || in[eq] != 12 {
		return nil
	}
	rhs := int64(in[eq+1] - 2)
	var xs []int
	for x := range 5 {
		p := exprParser{in: in[:eq], digit0: 2, plus: 7, minus: 8, times: -1, open: 9, close_: 10, unknown: 11, x: x}
		v, ok := evalBrackets(p)
		if ok && new(big.Int).Mod(new(big.Int).Sub(v, big.NewInt(rhs)), big.NewInt(5)).Sign() == 0 {
			xs = append(xs, x)
		}
	}
	return xs
}

// wantEquation is the reference for solve_equation: its one solution; L < 3 answers 0.
func wantEquation(in []int) []int {
	if len(in) < 3 {
		return []int{2}
	}
	xs := solutions(in)
	if len(xs) != 1 {
		return nil
	}
	return []int{2 + xs[0]}
}

func TestSolveEquationExamples(t *testing.T) {
	for _, tc := range []struct {
		eq string
		x  int
	}{
		{"x=3", 3}, {"-x=3", 2}, {"(x)=0", 0}, {"(-x)=4", 1},
		{"(x-(2+4))=0", 1}, {"(-0+-x)=3", 2}, {"((4-x)+(-1))=0", 3},
	} {
		in := bracketTokensOf(tc.eq, equationTok)
		if got := wantEquation(in); len(got) != 1 || got[0] != 2+tc.x {
			t.Errorf("reference(%s) = %v, want token %d", tc.eq, got, 2+tc.x)
		}
	}
}

// TestSolveEquation: every input of L >= 3 is an expression with exactly one x, then = and a
// digit, with exactly one solution; L < 3 is their degenerate all-zero input.
func TestSolveEquation(t *testing.T) {
	task := mustNew(t, "solve_equation", Options{})
	for L := 1; L <= 2; L++ {
		for _, e := range drawExamples(task, L, 10, 1) {
			for _, tok := range e.Input {
				if tok != 2 {
					t.Fatalf("L=%d: %v, want L zeros", L, e.Input)
				}
			}
		}
	}
	answers := map[int]int{}
	for L := 3; L <= 60; L++ {
		for _, e := range drawExamples(task, L, 200, 12) {
			xs := 0
			for _, tok := range e.Input {
				if tok == 11 {
					xs++
				}
			}
			if xs != 1 || len(solutions(e.Input)) != 1 {
				t.Fatalf("L=%d: %v has %d x and solutions %v", L, e.Input, xs, solutions(e.Input))
			}
			answers[e.Output[0]]++
		}
	}
	for tok := 2; tok <= 6; tok++ {
		if answers[tok] < 1500 {
			t.Errorf("answer %d: %d of 11,600", tok, answers[tok])
		}
	}
}
