package data

import (
	"math/big"
	"slices"
	"testing"
)

// Tokens of binary_multiplication: 0 = 2, 1 = 3, × = 4.

// wantBinaryProduct is the reference for binary_multiplication: the product, computed with big
// integers, in L little-endian bits.
func wantBinaryProduct(in []int) []int {
	a, b, ok := splitPlus(in) // × has the token of binary_addition's +
	if !ok {
		return nil
	}
	return bigLE(new(big.Int).Mul(leBig(a), leBig(b)), len(in))
}

func TestBinaryMultiplicationExamples(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		// Their docstring's examples (4 × 22 = 88, 9 × 32 = 288), without their terminator.
		{"001+01101", "000110100"},
		{"1001+000001", "00000100100"},
		{"+", "0"},
		{"1+", "00"},
		{"+1", "00"},
		{"1+1", "100"},
		{"11+11", "10010"},
		{"111+111", "1000110"},
	} {
		in, want := bitTokens(tc.in), bitTokens(tc.out)
		if got := wantBinaryProduct(in); !slices.Equal(got, want) {
			t.Errorf("reference(%s) = %v, want %v", tc.in, got, want)
		}
		a, b, _ := splitPlus(in)
		if got := mulLittleEndian(a, b, len(in)); !slices.Equal(got, want) {
			t.Errorf("mulLittleEndian(%s) = %v, want %v", tc.in, got, want)
		}
	}
}

// TestBinaryMultiplication: the operands are drawn as binary_addition's (every split, nonzero
// operands) and the last output bit is always 0.
func TestBinaryMultiplication(t *testing.T) {
	task := mustNew(t, "binary_multiplication", Options{})
	for L := 3; L <= 30; L++ {
		splits := map[int]int{}
		for _, e := range drawExamples(task, L, 300, 14) {
			a, b, ok := splitPlus(e.Input)
			if !ok || leBig(a).Sign() == 0 || leBig(b).Sign() == 0 {
				t.Fatalf("L=%d: %v is not two nonzero operands", L, e.Input)
			}
			splits[len(a)]++
			if e.Output[L-1] != 2 {
				t.Fatalf("L=%d: output %v does not end in 0", L, e.Output)
			}
		}
		for n := 1; n <= L-2; n++ {
			if splits[n] == 0 {
				t.Errorf("L=%d: split %d never drawn", L, n)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("mulLittleEndian did not panic on a product wider than its width")
		}
	}()
	mulLittleEndian(bitTokens("11"), bitTokens("11"), 3)
}
