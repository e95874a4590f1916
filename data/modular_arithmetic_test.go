package data

import (
	"math/big"
	"slices"
	"strings"
	"testing"
)

// Tokens of modular_arithmetic, spelled out independently of the task's
// constants: digits 0..4 are 2..6, + − × are 7, 8, 9.
var modTok = map[rune]int{'0': 2, '1': 3, '2': 4, '3': 5, '4': 6, '+': 7, '-': 8, '*': 9}

func modTokens(expr string) []int {
	in := make([]int, 0, len(expr))
	for _, c := range strings.ReplaceAll(expr, " ", "") {
		in = append(in, modTok[c])
	}
	return in
}

// evalExact evaluates an expression of modular_arithmetic tokens exactly, with
// no modular reduction, by the shunting-yard algorithm: × binds tighter than
// + and −, equal precedence associates left. A leading unary sign is read as
// 0 + x or 0 − x, which is the same as applying it to the first operand
// because × binds tighter than −.
func evalExact(in []int) *big.Int {
	if len(in) > 0 && in[0] >= 7 {
		in = append([]int{2}, in...)
	}
	prec := map[int]int{7: 1, 8: 1, 9: 2}
	var out []*big.Int // operand stack
	var ops []int      // operator stack
	apply := func() {
		op := ops[len(ops)-1]
		ops = ops[:len(ops)-1]
		a, b := out[len(out)-2], out[len(out)-1]
		out = out[:len(out)-2]
		r := new(big.Int)
		switch op {
		case 7:
			r.Add(a, b)
		case 8:
			r.Sub(a, b)
		case 9:
			r.Mul(a, b)
		}
		out = append(out, r)
	}
	for _, tok := range in {
		if tok < 7 {
			out = append(out, big.NewInt(int64(tok-2)))
			continue
		}
		for len(ops) > 0 && prec[ops[len(ops)-1]] >= prec[tok] {
			apply()
		}
		ops = append(ops, tok)
	}
	for len(ops) > 0 {
		apply()
	}
	if len(out) != 1 {
		panic("evalExact: malformed expression")
	}
	return out[0]
}

// wantModArith is the reference for modular_arithmetic: the exact value mod 5
// (big.Int.Mod is the Euclidean modulus, in 0..4) as a digit token.
func wantModArith(in []int) []int {
	v := new(big.Int).Mod(evalExact(in), big.NewInt(5))
	return []int{2 + int(v.Int64())}
}

func TestModularArithmeticExamples(t *testing.T) {
	for _, tc := range []struct {
		expr  string
		exact int64
	}{
		// The paper's examples (mod 5: 2, 4, 0).
		{"1 + 2 * 3", 7},
		{"1 - 1 - 1", -1},
		{"0 * 1 + 4 * 3 - 2", 10},
		// Precedence and left associativity.
		{"4", 4},
		{"2 * 3 * 4", 24},
		{"4 - 3 + 2", 3},
		{"4 - 3 * 2 + 1", -1},
		{"3 * 4 - 4 * 4 * 4 - 1", -53},
		{"1 - 2 - 3 * 4 * 0 - 4", -5},
		// Even lengths: a unary sign on the first operand.
		{"-3", -3},
		{"+3", 3},
		{"-3 * 2 + 1", -5},
		{"-4 - 4 * 3", -16},
		{"+0 * 4 - 1", -1},
	} {
		in := modTokens(tc.expr)
		if got := evalExact(in); got.Int64() != tc.exact {
			t.Errorf("evalExact(%s) = %v, want %d", tc.expr, got, tc.exact)
		}
		want := ((tc.exact % 5) + 5) % 5
		if got := evalMod(in); int64(got) != want {
			t.Errorf("evalMod(%s) = %d, want %d", tc.expr, got, want)
		}
		if got := wantModArith(in)[0]; int64(got) != 2+want {
			t.Errorf("reference(%s) = %d, want token %d", tc.expr, got, 2+want)
		}
	}
}

func TestModularArithmetic(t *testing.T) {
	task := mustNew(t, "modular_arithmetic", Options{})
	if task.Vocab() != 10 {
		t.Errorf("Vocab() = %d, want 10", task.Vocab())
	}
	values := map[int]int{}
	ops, signs, digits := map[int]int{}, map[int]int{}, map[int]int{}
	for L := 1; L <= 41; L++ {
		if task.OutputLen(L) != 1 {
			t.Errorf("OutputLen(%d) = %d, want 1", L, task.OutputLen(L))
		}
		for _, e := range drawExamples(task, L, 300, 8) {
			// Shape: an optional unary sign (even L only), then digits and
			// binary operators alternating, starting and ending with a digit.
			in := e.Input
			if L%2 == 0 {
				if in[0] != 7 && in[0] != 8 {
					t.Fatalf("L=%d: input %v does not start with a + or − sign", L, in)
				}
				signs[in[0]]++
				in = in[1:]
			}
			for i, tok := range in {
				isDigit := tok >= 2 && tok <= 6
				if isDigit != (i%2 == 0) || (!isDigit && (tok < 7 || tok > 9)) {
					t.Fatalf("L=%d: malformed expression %v", L, e.Input)
				}
				if isDigit {
					digits[tok]++
				} else {
					ops[tok]++
				}
			}
			if want := wantModArith(e.Input); !slices.Equal(e.Output, want) {
				t.Fatalf("L=%d: %v gives %v, want %v (exact value %v)", L, e.Input, e.Output, want, evalExact(e.Input))
			}
			values[e.Output[0]]++
		}
	}
	for tok := 2; tok <= 6; tok++ {
		if values[tok] < 1000 || digits[tok] < 10000 {
			t.Errorf("digit token %d: %d results, %d draws; want all values and digits common", tok, values[tok], digits[tok])
		}
	}
	for tok := 7; tok <= 9; tok++ {
		if ops[tok] < 10000 {
			t.Errorf("operator token %d drawn %d times", tok, ops[tok])
		}
	}
	if len(signs) != 2 || signs[7] < 2500 || signs[8] < 2500 {
		t.Errorf("unary signs %v over 6000 even-length examples, want about 3000 each of + and −", signs)
	}
}
