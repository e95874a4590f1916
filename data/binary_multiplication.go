package data

import (
	"encoding/binary"
	"hash/fnv"
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

// Baseline: counted over mulDraws(L) examples with a fixed seed, the product's bits having no
// simple law: the operands drawn as Generate draws them (the split uniform over [1, L−2], each
// operand uniform over the nonzero numbers of its width) but a machine word at a time, multiplied
// with math/big, the product's set bits counted per slot and the products told apart by a 64-bit
// hash. The cost of a length is about countSamples·64 bit operations whatever L (docs/tasks.md:
// BenchmarkBaseline's times). L < 3: the product is 0.
func (binaryMultiplicationTask) Baseline(L int) Baseline {
	if L < 3 {
		return Baseline{Token: 1, Exact: 1}
	}
	draws := mulDraws(L)
	rng := rand.New(rand.NewPCG(1, uint64(L)))
	ones := make([]int, L) // draws whose product has bit i set
	answers := map[uint64]int{}
	words := (L + bits.UintSize - 1) / bits.UintSize
	bufA, bufB := make([]big.Word, words), make([]big.Word, words)
	buf := make([]byte, 0, 8*words)
	var a, b, p big.Int
	h := fnv.New64a()
	for range draws {
		n := 1 + rng.IntN(L-2) // bits of a; b has L−1−n
		a.SetBits(nonzeroWords(rng, n, bufA))
		b.SetBits(nonzeroWords(rng, L-1-n, bufB))
		buf = buf[:0]
		for w, word := range p.Mul(&a, &b).Bits() {
			buf = binary.LittleEndian.AppendUint64(buf, uint64(word))
			for ; word != 0; word &= word - 1 {
				ones[w*bits.UintSize+bits.TrailingZeros(uint(word))]++
			}
		}
		h.Reset()
		h.Write(buf)
		answers[h.Sum64()]++
	}
	hits, mode := 0, 0
	for _, c := range ones {
		hits += max(c, draws-c)
	}
	for _, c := range answers {
		mode = max(mode, c)
	}
	return Baseline{Token: float64(hits) / float64(draws*L), Exact: float64(mode) / float64(draws)}
}

// mulDraws is the sample size of binary_multiplication's baseline at length L: countSamples up to
// L = 64, then countSamples·64/L (the cost of a draw grows with L), at least 4096. A slot's
// majority frequency has a standard error of at most 0.5/√draws (0.002 up to L = 64, 0.008 at
// 4096 draws, from L = 1024), the token baseline (their mean) no more; where a slot is balanced it
// reads high by √(2/π) of that (the expected excess of the larger of two frequencies over 1/2):
// 0.0016 up to L = 64, 0.006 from L = 1024. An exact match below 1/draws reads as 1/draws.
func mulDraws(L int) int {
	return max(min(countSamples, countSamples*64/L), 4096)
}

// nonzeroWords fills buf with the little-endian words of a number uniform over the nonzero k-bit
// numbers (redrawing zero) and returns its words; k = 0 gives none (the number 0).
func nonzeroWords(rng *rand.Rand, k int, buf []big.Word) []big.Word {
	if k == 0 {
		return buf[:0]
	}
	w := buf[:(k+bits.UintSize-1)/bits.UintSize]
	for {
		nonzero := false
		for i := range w {
			w[i] = big.Word(rng.Uint64())
		}
		if r := k % bits.UintSize; r != 0 {
			w[len(w)-1] &= 1<<r - 1
		}
		for _, x := range w {
			nonzero = nonzero || x != 0
		}
		if nonzero {
			return w
		}
	}
}
