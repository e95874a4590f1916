package data

import (
	"math/big"
	"slices"
	"testing"
)

// Tokens of modular_arithmetic_brackets: digits 0..4 = 2..6, + − × = 7, 8, 9, ( ) = 10, 11.
var bracketTok = map[rune]int{'0': 2, '1': 3, '2': 4, '3': 5, '4': 6, '+': 7, '-': 8, '*': 9, '(': 10, ')': 11}

func bracketTokensOf(expr string, tok map[rune]int) []int {
	var in []int
	for _, c := range expr {
		in = append(in, tok[c])
	}
	return in
}

// exprParser evaluates an expression exactly (no modulus) by recursive descent with the usual
// precedence: expr = term {(+|−) term}, term = factor {× factor}, factor = −factor | (expr) |
// digit. tok names the task's tokens; x, when set, is the value of the unknown.
type exprParser struct {
	in           []int
	pos          int
	digit0       int // token of the digit 0
	plus, minus  int
	times        int // -1 when the task has no ×
	open, close_ int
	unknown, x   int // the unknown's token (-1: none) and its value
	bad          bool
}

func (p *exprParser) peek() int {
	if p.pos < len(p.in) {
		return p.in[p.pos]
	}
	return -2
}

func (p *exprParser) expr() *big.Int {
	v := p.term()
	for p.peek() == p.plus || p.peek() == p.minus {
		op := p.in[p.pos]
		p.pos++
		w := p.term()
		if op == p.plus {
			v = new(big.Int).Add(v, w)
		} else {
			v = new(big.Int).Sub(v, w)
		}
	}
	return v
}

func (p *exprParser) term() *big.Int {
	v := p.factor()
	for p.times >= 0 && p.peek() == p.times {
		p.pos++
		v = new(big.Int).Mul(v, p.factor())
	}
	return v
}

func (p *exprParser) factor() *big.Int {
	switch tok := p.peek(); {
	case tok == p.minus:
		p.pos++
		return new(big.Int).Neg(p.factor())
	case tok == p.open:
		p.pos++
		v := p.expr()
		if p.peek() != p.close_ {
			p.bad = true
		}
		p.pos++
		return v
	case tok == p.unknown:
		p.pos++
		return big.NewInt(int64(p.x))
	case tok >= p.digit0 && tok < p.digit0+5:
		p.pos++
		return big.NewInt(int64(tok - p.digit0))
	}
	p.bad = true
	p.pos++
	return new(big.Int)
}

// evalBrackets evaluates a whole token string; ok is false unless it parses to its end.
func evalBrackets(p exprParser) (v *big.Int, ok bool) {
	v = p.expr()
	return v, !p.bad && p.pos == len(p.in)
}

func bracketParser(in []int) exprParser {
	return exprParser{in: in, digit0: 2, plus: 7, minus: 8, times: 9, open: 10, close_: 11, unknown: -1}
}

// wantModBrackets is the reference for modular_arithmetic_brackets: the exact value mod 5.
func wantModBrackets(in []int) []int {
	v, ok := evalBrackets(bracketParser(in))
	if !ok {
		return nil
	}
	return []int{2 + int(new(big.Int).Mod(v, big.NewInt(5)).Int64())}
}

func TestModularArithmeticBracketsExamples(t *testing.T) {
	for _, tc := range []struct {
		expr  string
		exact int64
	}{
		{"3", 3}, {"-3", -3}, {"(3)", 3}, {"(-3)", -3},
		{"(1+2)", 3}, {"(4*(-3))", -12}, {"((-0)--2)", 2}, {"((1-4)*(2+(-3)))", 3},
		{"(((4*4)*4)-(-1))", 65},
	} {
		in := bracketTokensOf(tc.expr, bracketTok)
		v, ok := evalBrackets(bracketParser(in))
		if !ok || v.Int64() != tc.exact {
			t.Errorf("evaluate(%s) = %v (parsed %v), want %d", tc.expr, v, ok, tc.exact)
		}
		want := 2 + ((tc.exact%5)+5)%5
		if got := wantModBrackets(in); len(got) != 1 || int64(got[0]) != want {
			t.Errorf("reference(%s) = %v, want token %d", tc.expr, got, want)
		}
	}
}

// TestModularArithmeticBrackets: every drawn input parses as a fully bracketed expression, the
// three operators and every value occur, and the lengths 1..4 are the four small forms.
func TestModularArithmeticBrackets(t *testing.T) {
	task := mustNew(t, "modular_arithmetic_brackets", Options{})
	small := map[int]string{1: "d", 2: "-d", 3: "(d)", 4: "(-d)"}
	ops, values := map[int]int{}, map[int]int{}
	for L := 1; L <= 60; L++ {
		for _, e := range drawExamples(task, L, 200, 6) {
			if _, ok := evalBrackets(bracketParser(e.Input)); !ok {
				t.Fatalf("L=%d: %v does not parse", L, e.Input)
			}
			if L >= 5 && (e.Input[0] != 10 || e.Input[L-1] != 11) {
				t.Fatalf("L=%d: %v is not bracketed", L, e.Input)
			}
			if form, ok := small[L]; ok {
				shape := make([]rune, L)
				for i, tok := range e.Input {
					shape[i] = map[int]rune{7: '+', 8: '-', 9: '*', 10: '(', 11: ')'}[tok]
					if tok <= 6 {
						shape[i] = 'd'
					}
				}
				if string(shape) != form {
					t.Fatalf("L=%d: %v, want the form %s", L, e.Input, form)
				}
			}
			for _, tok := range e.Input[1:] {
				ops[tok]++
			}
			values[e.Output[0]]++
		}
	}
	for tok := 7; tok <= 9; tok++ {
		if ops[tok] < 1000 {
			t.Errorf("operator %d drawn %d times", tok, ops[tok])
		}
	}
	for tok := 2; tok <= 6; tok++ {
		if values[tok] < 1000 {
			t.Errorf("value %d: %d of 12,000 answers", tok, values[tok])
		}
	}
	if !slices.Equal(wantModBrackets(bracketTokensOf("(1+2)", bracketTok)), []int{5}) {
		t.Error("reference of (1+2) is not 3")
	}
}
