package data

import (
	"math/big"
	"slices"
	"testing"
)

// beBig reads big-endian bit tokens (0 = 2, 1 = 3) as a number.
func beBig(bits []int) *big.Int {
	v := new(big.Int)
	for _, tok := range bits {
		v.Lsh(v, 1)
		v.Add(v, big.NewInt(int64(tok-2)))
	}
	return v
}

// wantSqrt is the reference for compute_sqrt: the r with r² ≤ x < (r+1)², found by bisection
// over [0, 2^⌈L/2⌉), written big-endian in ⌈L/2⌉ bits.
func wantSqrt(in []int) []int {
	x := beBig(in)
	width := (len(in) + 1) / 2
	lo, hi := big.NewInt(0), new(big.Int).Lsh(big.NewInt(1), uint(width)) // r in [lo, hi)
	one := big.NewInt(1)
	for new(big.Int).Sub(hi, lo).Cmp(one) > 0 {
		mid := new(big.Int).Rsh(new(big.Int).Add(lo, hi), 1)
		if new(big.Int).Mul(mid, mid).Cmp(x) <= 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	out := make([]int, width)
	for i := range out {
		out[i] = 2 + int(lo.Bit(width-1-i))
	}
	return out
}

func TestComputeSqrtExamples(t *testing.T) {
	for _, tc := range []struct{ in, out string }{
		// Their docstring's examples: 37 → 6, 7 → 2.
		{"100101", "110"}, {"111", "10"},
		{"1", "1"}, {"01", "1"}, {"11", "1"}, {"100", "10"}, {"0011", "01"}, {"1111", "11"},
		{"10000", "100"}, {"11111111", "1111"},
	} {
		if got := wantSqrt(bitTokens(tc.in)); !slices.Equal(got, bitTokens(tc.out)) {
			t.Errorf("reference(%s) = %v, want %s", tc.in, got, tc.out)
		}
	}
}

// TestComputeSqrt: the output is the root (r² ≤ x < (r+1)²), and the inputs are uniform over
// the nonzero L-bit numbers (L = 3: each of 1..7 about equally).
func TestComputeSqrt(t *testing.T) {
	task := mustNew(t, "compute_sqrt", Options{})
	for _, L := range []int{1, 2, 3, 10, 41, 200, 500} {
		for _, e := range drawExamples(task, L, 50, 15) {
			x, r := beBig(e.Input), beBig(e.Output)
			r1 := new(big.Int).Add(r, big.NewInt(1))
			if x.Sign() == 0 || new(big.Int).Mul(r, r).Cmp(x) > 0 || new(big.Int).Mul(r1, r1).Cmp(x) <= 0 {
				t.Fatalf("L=%d: %v is not the root of %v", L, e.Output, e.Input)
			}
		}
	}
	counts := map[int64]int{}
	for _, e := range drawExamples(task, 3, 7000, 16) {
		counts[beBig(e.Input).Int64()]++
	}
	for x := int64(1); x <= 7; x++ {
		if counts[x] < 800 {
			t.Errorf("x = %d drawn %d times in 7000, want about 1000", x, counts[x])
		}
	}
	if len(counts) != 7 {
		t.Errorf("drew %v, want 1..7", counts)
	}
}
