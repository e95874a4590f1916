package data

import (
	"math"
	"math/big"
	"math/rand/v2"
)

func init() {
	Register("binary_addition", func(opt Options) (Task, error) {
		if err := fixedAlphabet("binary_addition", 3, opt); err != nil {
			return nil, err
		}
		return binaryAdditionTask{}, nil
	})
}

// Tokens of the binary_addition task.
const (
	binZero = FirstSymbol     // bit 0
	binOne  = FirstSymbol + 1 // bit 1
	binPlus = FirstSymbol + 2 // +
)

// binaryAdditionTask is "binary_addition": Deletang et al.'s Binary Addition
// (context-sensitive): add two numbers written in little-endian binary (least
// significant bit first).
//
//   - Tokens: bit 0 is FirstSymbol (2), bit 1 is FirstSymbol+1 (3), + is
//     FirstSymbol+2 (4).
//   - Input: a + b as L tokens: n bits of a, the + token, m bits of b, with
//     n + m = L − 1. L is the total input length, + included, as in the paper.
//     For L >= 3 the split is the paper's: n is uniform in [1, L−2], m = L−1−n,
//     and each operand is uniform over the nonzero numbers that fit its bits,
//     [1, 2^n − 1], written with exactly n bits (so its last, most significant
//     bits may be 0). For L < 3 an operand may be empty, which denotes 0:
//     L = 1 is "+" (0 + 0) and L = 2 is "1+" or "+1" with equal probability
//     (the only nonzero 1-bit operand is 1).
//   - Output: a + b in little-endian binary, padded with zeros after its most
//     significant bit to exactly OutputLen(L) = L + 1 bits (the paper's output
//     length). The sum is below 2^(L−1), so it needs at most L − 1 bits and
//     the last two output bits are always 0. The paper instead ends the sum
//     with a terminator token, pads it with zeros and scores only up to the
//     terminator; here every output token is scored, so the output is the
//     fixed-width sum and needs no terminator.
//   - Vocab: FirstSymbol + 3 = 5. The alphabet is fixed: Options.Symbols must
//     be unset (see fixedAlphabet).
//
// For example the input 001+01101 (4 + 22, L = 9) has the output 0101100000
// (26 in L + 1 = 10 bits).
type binaryAdditionTask struct{}

func (binaryAdditionTask) Name() string        { return "binary_addition" }
func (binaryAdditionTask) Vocab() int          { return binPlus + 1 }
func (binaryAdditionTask) OutputLen(L int) int { return L + 1 }
func (binaryAdditionTask) OutputClasses() int  { return 2 }
func (binaryAdditionTask) Generate(rng *rand.Rand, L int) Example {
	in, a, b := drawOperands(rng, L, binPlus)
	return Example{Input: in, Output: addLittleEndian(a, b, L+1)}
}

// drawOperands draws the input a op b of L tokens of binary_addition and binary_multiplication
// (op their operator token) and returns it with its two operands: for L >= 3 the bits n of a
// uniform over [1, L−2], b the other L−1−n, each operand uniform over the nonzero numbers of its
// width; for L < 3 an empty operand is 0 (L = 2: n is 0 or 1 with equal probability).
func drawOperands(rng *rand.Rand, L, op int) (in, a, b []int) {
	checkLen(L)
	var n int // bits of a; b has L-1-n
	switch {
	case L == 2:
		n = rng.IntN(2)
	case L >= 3:
		n = 1 + rng.IntN(L-2)
	}
	a, b = nonzeroBits(rng, n), nonzeroBits(rng, L-1-n)
	in = make([]int, 0, L)
	in = append(in, a...)
	in = append(in, op)
	return append(in, b...), a, b
}

// nonzeroBits draws k bit tokens, little-endian, uniform over the nonzero
// k-bit numbers (redrawing an all-zero string); k = 0 gives the empty string.
func nonzeroBits(rng *rand.Rand, k int) []int {
	bits := make([]int, k)
	for k > 0 {
		nonzero := false
		for i := range bits {
			bits[i] = binZero + rng.IntN(2)
			nonzero = nonzero || bits[i] == binOne
		}
		if nonzero {
			break
		}
	}
	return bits
}

// addLittleEndian adds two little-endian strings of bit tokens and returns the
// sum as width bit tokens, little-endian, zero-padded. It panics if the sum
// does not fit in width bits.
func addLittleEndian(a, b []int, width int) []int {
	out := make([]int, width)
	carry := 0
	for i := range out {
		s := carry
		if i < len(a) {
			s += a[i] - binZero
		}
		if i < len(b) {
			s += b[i] - binZero
		}
		out[i], carry = binZero+s%2, s/2
	}
	if carry != 0 || len(a) > width || len(b) > width {
		panic("data: binary sum does not fit its width")
	}
	return out
}

// Baseline: exact, by counting. For operands of n and m bits (M the larger, each uniform over
// its 2^w − 1 nonzero values, D = (2^n − 1)(2^m − 1) pairs), bit i of the sum is 1 for a share
// 1/2 + δ of the pairs: δ = −1/(2D) below both widths (the larger operand's bit is uniform over
// all pairs, and the pairs with a zero operand are left out), +1/(2(2^M − 1)) between them, and
// bit M (the carry out) is 1 for S(S−1)/2 pairs (S = 2^min(n, m)), the bits above it never. The
// pairs with a + b = s are an interval of a whose ends bend at s = 2^n and s = 2^m, so the most
// likely sum is a power of two: each is counted in closed form (sumProbability). The cost is
// O(L^2) floating-point operations (BenchmarkBaseline; docs/tasks.md gives the times).
func (binaryAdditionTask) Baseline(L int) Baseline {
	if L < 3 {
		return Baseline{Token: 1, Exact: 1} // the sum is 0 (L = 1) or 1 (L = 2)
	}
	one := make([]float64, L+1) // P(bit i = 1), averaged over the L − 2 splits
	splits := float64(L - 2)
	for n := 1; n <= L-2; n++ {
		m := L - 1 - n
		lo, hi := min(n, m), max(n, m)
		D := (math.Exp2(float64(n)) - 1) * (math.Exp2(float64(m)) - 1)
		for i := range lo {
			one[i] += (0.5 - 0.5/D) / splits
		}
		for i := lo; i < hi; i++ {
			one[i] += (0.5 + 0.5/(math.Exp2(float64(hi))-1)) / splits
		}
		one[hi] += math.Exp2(float64(lo-hi-1)) / (1 - math.Exp2(-float64(hi))) / splits // S(S − 1)/2/D, in range for any L
	}
	token := 0.0
	for _, p := range one {
		token += max(p, 1-p)
	}
	d := make([]float64, L) // 1 − 2^−w
	for w := range d {
		d[w] = 1 - math.Exp2(-float64(w))
	}
	exact := 0.0
	for j := 1; j < L; j++ {
		exact = max(exact, sumProbability(j, L, d))
	}
	return Baseline{Token: token / float64(L+1), Exact: exact}
}

// sumProbability is the probability that binary_addition's operands at length L sum to 2^j
// (1 ≤ j < L), given d[w] = 1 − 2^−w. For n and m bits (n + m = L − 1) the a with b = 2^j − a in
// [1, 2^m − 1] are [max(1, 2^j − 2^m + 1), min(2^n − 1, 2^j − 1)]: 2^min(j, n, m) − 1 of them if
// j ≤ max(n, m), none above. O(L) floating-point operations (math/big's count was O(L^2)
// big-number ones).
func sumProbability(j, L int, d []float64) float64 {
	p := 0.0
	for n := 1; n <= L-2; n++ {
		m := L - 1 - n
		if j > max(n, m) {
			continue
		}
		k := min(j, n, m)
		// (2^k − 1)/((2^n − 1)(2^m − 1)) as (1 − 2^−k)·2^(k−(n+m)) / ((1 − 2^−n)(1 − 2^−m)), in range for any L
		p += math.Ldexp(d[k], k-(L-1)) / (d[n] * d[m]) / float64(L-2)
	}
	return p
}

// pow2 is 2^n; minus1 is x − 1 (new values); compute_sqrt counts with them.
func pow2(n int) *big.Int        { return new(big.Int).Lsh(big.NewInt(1), uint(n)) }
func minus1(x *big.Int) *big.Int { return new(big.Int).Sub(x, big.NewInt(1)) }

func bigMax(a, b *big.Int) *big.Int {
	if a.Cmp(b) >= 0 {
		return a
	}
	return b
}
