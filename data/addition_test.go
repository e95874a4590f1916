package data

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func init() {
	specs["addition"] = taskSpec{want: wantDecimalSum, outLen: func(L int) int { return L/2 + 1 }, vocab: fixedVocab(13), symbols: fixedSymbols}
}

// Tokens of addition, spelled out: digit d = 2 + d, + = 12.

// decimalBig reads least-significant-first digit tokens as a number.
func decimalBig(digits []int) *big.Int {
	v := new(big.Int)
	for i := len(digits) - 1; i >= 0; i-- {
		v.Mul(v, big.NewInt(10))
		v.Add(v, big.NewInt(int64(digits[i]-2)))
	}
	return v
}

// wantDecimalSum is the reference for addition: the sum, computed with big integers, written
// least significant digit first in one digit more than the first operand has.
func wantDecimalSum(in []int) []int {
	i := slices.Index(in, 12)
	if i < 0 || slices.Contains(in[i+1:], 12) {
		return nil
	}
	s := new(big.Int).Add(decimalBig(in[:i]), decimalBig(in[i+1:])).String()
	out := make([]int, i+1)
	for j := range out {
		out[j] = 2 // zero padding
		if j < len(s) {
			out[j] = 2 + int(s[len(s)-1-j]-'0')
		}
	}
	if len(s) > len(out) {
		return nil
	}
	return out
}

func decimalTokens(s string) []int {
	var in []int
	for _, c := range s {
		if c == '+' {
			in = append(in, 12)
		} else {
			in = append(in, 2+int(c-'0'))
		}
	}
	return in
}

// TestAdditionExamples: the reference on the doc comment's example and the edge cases
// (TestTasksCorrect checks Generate against the reference).
func TestAdditionExamples(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		{"274+519", "7831"}, // 472 + 915 = 1387, the doc comment's
		{"+", "0"},
		{"9+", "90"},
		{"9+9", "81"},
		{"99+9", "801"}, // 99 + 9 = 108
		{"999+999", "8991"},
		{"000+000", "0000"},
		{"1234+567", "68050"}, // 4321 + 765 = 5086, padded to 5 digits
	} {
		in, want := decimalTokens(tc.in), decimalTokens(tc.out)
		if got := wantDecimalSum(in); !slices.Equal(got, want) {
			t.Errorf("reference(%s) = %v, want %v", tc.in, got, want)
		}
	}
}

// TestAdditionOperands: at odd L both operands have (L − 1)/2 digits, at even L the first one
// more; every digit of each operand takes every value about equally often (uniform over
// [0, 10^w)), including the most significant, which is what zero padding means.
func TestAdditionOperands(t *testing.T) {
	task := additionTask{}
	rng := rand.New(rand.NewPCG(3, 4))
	for L := 1; L <= 41; L++ {
		counts := make([][10]int, L)
		const n = 2000
		for range n {
			e := task.Generate(rng, L)
			i := slices.Index(e.Input, 12)
			if na, nb := i, L-1-i; na != L/2 || nb != (L-1)/2 {
				t.Fatalf("L=%d: operands of %d and %d digits, want %d and %d", L, na, nb, L/2, (L-1)/2)
			}
			for j, tok := range e.Input {
				if j != i {
					counts[j][tok-2]++
				}
			}
		}
		for j, c := range counts {
			if j == L/2 {
				continue
			}
			for d, k := range c {
				if k < n/10-100 || k > n/10+100 { // ±7.5 standard errors
					t.Fatalf("L=%d: input digit %d is %d in %d of %d draws, want about %d", L, j, d, k, n, n/10)
				}
			}
		}
	}
}

// TestDigit0: the addition task declares its digits through every format; other tasks have none.
func TestDigit0(t *testing.T) {
	for _, opt := range []Options{{}, {EndToken: true}, {Format: FormatSlots}} {
		task := mustNew(t, "addition", opt)
		d0, ok := Digit0(task)
		if !ok || d0 != 2 {
			t.Errorf("%+v: Digit0 = %d, %v; want 2, true", opt, d0, ok)
		}
		e := task.Generate(rand.New(rand.NewPCG(1, 2)), 9)
		for _, tok := range slices.Concat(e.Input, e.Output) {
			if digit := tok >= d0 && tok < d0+10; !digit && tok != 12 && tok != 13 {
				t.Errorf("%+v: token %d is neither a digit, + nor the format's END", opt, tok)
			}
		}
	}
	for _, name := range []string{"binary_addition", "copy", "modular_arithmetic"} {
		if _, ok := Digit0(mustNew(t, name, Options{})); ok {
			t.Errorf("%s has Digit0", name)
		}
	}
}

func TestAdditionName(t *testing.T) {
	if s := strings.Join(Names(), " "); !strings.Contains(s, "addition binary_addition") {
		t.Errorf("Names() = %s", s)
	}
}
