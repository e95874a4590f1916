package data

import (
	"math/big"
	"math/bits"
	"math/rand/v2"
)

func init() {
	Register("binary_multiplication", func(opt Options) (Task, error) {
		if err := fixedAlphabet("binary_multiplication", 3, opt); err != nil {
			return nil, err
		}
		return binaryMultiplicationTask{}, nil
	})
}

// binMul is the × token of binary_multiplication (its bits are binary_addition's).
const binMul = FirstSymbol + 2

// binaryMultiplicationTask is "binary_multiplication": Delétang et al.'s Binary Multiplication
// (context-sensitive), from google-deepmind/neural_networks_chomsky_hierarchy
// tasks/cs/binary_multiplication.py (commit 2b8eb4b; the sampler at lines 45-96, the output at
// 117, the sizes at 127-138). It is binary_addition with × for +.
//
//   - Tokens: bit 0 is FirstSymbol (2), bit 1 is 3, × is 4.
//   - Input: a × b as L tokens, n bits of a, the × token, m bits of b, little-endian, n + m =
//     L − 1; for L ≥ 3, n uniform over [1, L−2] and each operand uniform over the nonzero numbers
//     of its width (their lines 79-83), as binary_addition draws them. For L < 3 an operand may
//     be empty, which denotes 0, as in binary_addition: L = 1 is "×", L = 2 is "1×" or "×1", all
//     with the product 0 (theirs, lines 71-76: L bits with no × and the answer 0).
//   - Output: a·b in little-endian binary, zero-padded to OutputLen(L) = L bits, their output
//     length. The product has at most n + m = L − 1 bits, so the last output bit is always 0.
//     They end the product with a terminator token, pad it with zeros and score only up to the
//     terminator; here, as for binary_addition, every output token is scored and the output is
//     the fixed-width product with no terminator.
//   - Vocab: FirstSymbol + 3 = 5; an output token takes 2 values. The alphabet is fixed.
//
// For example 001×01101 (4 × 22, L = 9) gives 000110100 (88 in 9 bits; theirs 000110120).
type binaryMultiplicationTask struct{}

func (binaryMultiplicationTask) Name() string        { return "binary_multiplication" }
func (binaryMultiplicationTask) Vocab() int          { return binMul + 1 }
func (binaryMultiplicationTask) OutputLen(L int) int { return L }
func (binaryMultiplicationTask) OutputClasses() int  { return 2 }
func (binaryMultiplicationTask) Generate(rng *rand.Rand, L int) Example {
	in, a, b := drawOperands(rng, L, binMul)
	return Example{Input: in, Output: mulLittleEndian(a, b, L)}
}

// mulLittleEndian multiplies two little-endian strings of bit tokens by shifting and adding
// (schoolbook) and returns the product as width bit tokens, little-endian, zero-padded; the
// product of an n-bit and an m-bit number has at most n + m bits, which must not exceed width.
func mulLittleEndian(a, b []int, width int) []int {
	if len(a)+len(b) > width {
		panic("data: binary product does not fit its width")
	}
	acc := make([]int, width) // bits 0/1
	for j, bj := range b {
		if bj != binOne {
			continue
		}
		carry := 0
		for i := j; i < width; i++ {
			s := acc[i] + carry
			if i-j < len(a) {
				s += a[i-j] - binZero
			}
			acc[i], carry = s%2, s/2
		}
	}
	out := make([]int, width)
	for i, bit := range acc {
		out[i] = binZero + bit
	}
	return out
}

// Baseline: counted (countBaseline) over countSamples examples, seed 1, the product's bits having
// no simple law; the answers drawn as Generate draws them (drawOperands) but multiplied with
// math/big, 30 times as fast at L = 500 as the schoolbook product. L < 3: the product is 0.
func (t binaryMultiplicationTask) Baseline(L int) Baseline {
	if L < 3 {
		return Baseline{Token: 1, Exact: 1}
	}
	return countBaseline(t, L, countSamples, 1, func(rng *rand.Rand) []int {
		_, a, b := drawOperands(rng, L, binMul)
		p := new(big.Int).Mul(bitsValue(a), bitsValue(b)).Bits()
		out := make([]int, L)
		for i := range out {
			if w := i / bits.UintSize; w < len(p) {
				out[i] = binZero + int(p[w]>>(i%bits.UintSize)&1)
			} else {
				out[i] = binZero
			}
		}
		return out
	})
}

// bitsValue is the number that little-endian bit tokens write.
func bitsValue(digits []int) *big.Int {
	const w = bits.UintSize
	words := make([]big.Word, (len(digits)+w-1)/w)
	for i, tok := range digits {
		words[i/w] |= big.Word(tok-binZero) << (i % w)
	}
	return new(big.Int).SetBits(words)
}
