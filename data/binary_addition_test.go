package data

import (
	"math"
	"math/big"
	"slices"
	"strings"
	"testing"
)

// Tokens of binary_addition, spelled out: 0 = 2, 1 = 3, + = 4.

// leBig reads little-endian bit tokens as a number.
func leBig(bits []int) *big.Int {
	v := new(big.Int)
	for i := len(bits) - 1; i >= 0; i-- {
		v.Lsh(v, 1)
		if bits[i] == 3 {
			v.SetBit(v, 0, 1)
		}
	}
	return v
}

// bigLE writes v as width little-endian bit tokens.
func bigLE(v *big.Int, width int) []int {
	out := make([]int, width)
	for i := range out {
		out[i] = 2 + int(v.Bit(i))
	}
	return out
}

// splitPlus returns the bit tokens before and after the single + of in.
func splitPlus(in []int) (a, b []int, ok bool) {
	i := slices.Index(in, 4)
	if i < 0 || slices.Contains(in[i+1:], 4) {
		return nil, nil, false
	}
	return in[:i], in[i+1:], true
}

// wantBinarySum is the reference for binary_addition: the sum, computed with
// big integers, in L+1 little-endian bits.
func wantBinarySum(in []int) []int {
	a, b, ok := splitPlus(in)
	if !ok {
		return nil
	}
	return bigLE(new(big.Int).Add(leBig(a), leBig(b)), len(in)+1)
}

func bitTokens(s string) []int {
	in := make([]int, 0, len(s))
	for _, c := range strings.ReplaceAll(s, " ", "") {
		in = append(in, map[rune]int{'0': 2, '1': 3, '+': 4}[c])
	}
	return in
}

func TestBinaryAdditionExamples(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		// The paper's examples (4 + 22 = 26, 9 + 32 = 41), padded to L+1 bits.
		{"001+01101", "0101100000"},
		{"1001+000001", "100101000000"},
		{"+", "00"},
		{"1+", "100"},
		{"+1", "100"},
		{"1+1", "0100"},
		{"11+1", "00100"},
		{"111+111", "01110000"},
		{"1+1111111", "0000000100"},
	} {
		in, want := bitTokens(tc.in), bitTokens(tc.out)
		if got := wantBinarySum(in); !slices.Equal(got, want) {
			t.Errorf("reference(%s) = %v, want %v", tc.in, got, want)
		}
		a, b, _ := splitPlus(in)
		if got := addLittleEndian(a, b, len(in)+1); !slices.Equal(got, want) {
			t.Errorf("addLittleEndian(%s) = %v, want %v", tc.in, got, want)
		}
	}
}

func TestBinaryAddition(t *testing.T) {
	task := mustNew(t, "binary_addition", Options{})
	if task.Vocab() != 5 {
		t.Errorf("Vocab() = %d, want 5", task.Vocab())
	}
	for L := 1; L <= 70; L++ {
		if got := task.OutputLen(L); got != L+1 {
			t.Errorf("OutputLen(%d) = %d, want %d", L, got, L+1)
		}
		splits := map[int]int{} // bits of the first operand
		for _, e := range drawExamples(task, L, 200, 10) {
			a, b, ok := splitPlus(e.Input)
			if !ok {
				t.Fatalf("L=%d: input %v does not have exactly one +", L, e.Input)
			}
			splits[len(a)]++
			if L >= 3 && (len(a) == 0 || len(b) == 0 || leBig(a).Sign() == 0 || leBig(b).Sign() == 0) {
				t.Fatalf("L=%d: input %v has an empty or zero operand", L, e.Input)
			}
			for _, op := range [][]int{a, b} {
				if len(op) > 0 && leBig(op).Sign() == 0 {
					t.Fatalf("L=%d: input %v has a zero operand", L, e.Input)
				}
			}
			if want := wantBinarySum(e.Input); !slices.Equal(e.Output, want) {
				t.Fatalf("L=%d: %v gives %v, want %v", L, e.Input, e.Output, want)
			}
			// The last two output bits are padding.
			if e.Output[L] != 2 || e.Output[L-1] != 2 {
				t.Fatalf("L=%d: output %v does not end in two zeros", L, e.Output)
			}
		}
		// Every split n in [1, L−2] occurs (for L >= 3), as in the paper; L = 2
		// splits 0 or 1, L = 1 has only "+".
		lo, hi := 1, L-2
		switch L {
		case 1:
			lo, hi = 0, 0
		case 2:
			lo, hi = 0, 1
		}
		if L <= 20 {
			for n := lo; n <= hi; n++ {
				if splits[n] == 0 {
					t.Errorf("L=%d: split %d never drawn: %v", L, n, splits)
				}
			}
		}
		for n := range splits {
			if n < lo || n > hi {
				t.Errorf("L=%d: split %d drawn, want [%d, %d]", L, n, lo, hi)
			}
		}
	}
	// Operands are uniform over the nonzero numbers of their width: with
	// L = 5 and n = 2 the first operand takes each of 1, 2, 3 about equally.
	vals := map[int64]int{}
	for _, e := range drawExamples(task, 5, 3000, 11) {
		if a, _, _ := splitPlus(e.Input); len(a) == 2 {
			vals[leBig(a).Int64()]++
		}
	}
	if len(vals) != 3 || vals[1] < 250 || vals[2] < 250 || vals[3] < 250 {
		t.Errorf("2-bit first operands %v, want about 333 each of 1, 2, 3", vals)
	}
}

func TestAddLittleEndianPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("addLittleEndian did not panic on a sum wider than its width")
		}
	}()
	addLittleEndian(bitTokens("1"), bitTokens("1"), 1)
}

// TestBinaryAdditionSumProbability: sumProbability's closed form (2^min(j, n, m) − 1 pairs per
// split) gives the bits of the direct count: for every split, the a with b = s − a in
// [1, 2^m − 1] counted as an interval of big integers, over every power of two s = 2^j and every
// L up to 130 (past 53 bits, where 2^k − 1 rounds), and the power of two is the most likely sum at
// short lengths (every s counted).
func TestBinaryAdditionSumProbability(t *testing.T) {
	count := func(s *big.Int, L int) float64 { // the probability of the sum s, counting with math/big
		p := 0.0
		for n := 1; n <= L-2; n++ {
			A, B := pow2(n), pow2(L-1-n)
			lo := bigMax(big.NewInt(1), new(big.Int).Sub(s, minus1(B)))
			hi := minus1(A)
			if s1 := minus1(s); s1.Cmp(hi) < 0 {
				hi = s1
			}
			if c := new(big.Int).Sub(hi, lo); c.Sign() >= 0 {
				f := new(big.Float).SetInt(c.Add(c, big.NewInt(1)))
				q, _ := f.SetMantExp(f, -(L - 1)).Float64()
				p += q / ((1 - math.Exp2(-float64(n))) * (1 - math.Exp2(-float64(L-1-n)))) / float64(L-2)
			}
		}
		return p
	}
	for L := 3; L <= 130; L++ {
		d := make([]float64, L)
		for w := range d {
			d[w] = 1 - math.Exp2(-float64(w))
		}
		for j := 1; j < L; j++ {
			if got, want := sumProbability(j, L, d), count(pow2(j), L); got != want {
				t.Fatalf("L=%d: P(sum = 2^%d) = %v, counted %v", L, j, got, want)
			}
		}
	}
	for L := 3; L <= 12; L++ {
		best, arg := 0.0, int64(0)
		for s := int64(0); s < 1<<(L-1); s++ {
			if p := count(big.NewInt(s), L); p > best {
				best, arg = p, s
			}
		}
		if b := (binaryAdditionTask{}).Baseline(L); arg&(arg-1) != 0 || b.Exact != best {
			t.Errorf("L=%d: most likely sum %d (p %v), baseline exact %v", L, arg, best, b.Exact)
		}
	}
}
