package data

import (
	"math/big"
	"math/rand/v2"
)

func init() {
	Register("compute_sqrt", func(opt Options) (Task, error) {
		if err := fixedAlphabet("compute_sqrt", 2, opt); err != nil {
			return nil, err
		}
		return computeSqrtTask{}, nil
	})
}

// computeSqrtTask is "compute_sqrt": Delétang et al.'s Compute Sqrt (context-sensitive), from
// google-deepmind/neural_networks_chomsky_hierarchy tasks/cs/compute_sqrt.py (commit 2b8eb4b; the
// sampler at lines 42-59, the output length at 71-72).
//
//   - Tokens: bit 0 is FirstSymbol (2), bit 1 is 3, in the input and the output.
//   - Input: a number uniform over [1, 2^L − 1] written big-endian (most significant bit first)
//     with exactly L bits, so it may start with zeros.
//   - Output: ⌊√x⌋ big-endian in exactly OutputLen(L) = ⌈L/2⌉ bits (it is below 2^⌈L/2⌉).
//   - Vocab: FirstSymbol + 2 = 4; an output token takes 2 values. The alphabet is fixed.
//
// For example 100101 (37) gives 110 (6) and 111 (7) gives 10 (2), their docstring's examples
// (it prints 101 for 6, a slip: the code gives 110).
type computeSqrtTask struct{}

func (computeSqrtTask) Name() string        { return "compute_sqrt" }
func (computeSqrtTask) Vocab() int          { return binOne + 1 }
func (computeSqrtTask) OutputLen(L int) int { return (L + 1) / 2 }
func (computeSqrtTask) OutputClasses() int  { return 2 }
func (computeSqrtTask) Generate(rng *rand.Rand, L int) Example {
	checkLen(L)
	in := nonzeroBits(rng, L) // uniform over the nonzero L-bit strings, read big-endian
	x := new(big.Int)
	for _, tok := range in {
		x.Lsh(x, 1)
		x.SetBit(x, 0, uint(tok-binZero))
	}
	r := new(big.Int).Sqrt(x)
	out := make([]int, (L+1)/2)
	for i := range out {
		out[i] = binZero + int(r.Bit(len(out)-1-i))
	}
	return Example{Input: in, Output: out}
}

// Baseline: exact, by counting. r = ⌊√x⌋ for 2r + 1 values of x (r² ≤ x < (r+1)²), none for r = 0
// (x ≥ 1), and 2^L − R² for the largest, R = ⌊√(2^L − 1)⌋; so bit j of the answer is 1 for the
// sum of 2r + 1 over the r < R with bit j set (sqrtBitCount) plus R's share, of the 2^L − 1
// inputs; the most likely answer is R − 1 or R.
func (computeSqrtTask) Baseline(L int) Baseline {
	total := minus1(pow2(L))
	R := new(big.Int).Sqrt(total)
	last := new(big.Int).Sub(pow2(L), new(big.Int).Mul(R, R)) // the x with ⌊√x⌋ = R
	h := (L + 1) / 2
	token := 0.0
	for j := range h {
		ones := sqrtBitCount(minus1(R), j)
		if R.Bit(j) == 1 {
			ones.Add(ones, last)
		}
		zeros := new(big.Int).Sub(total, ones)
		p, _ := new(big.Rat).SetFrac(bigMax(ones, zeros), total).Float64()
		token += p
	}
	mode := last
	if R.Cmp(big.NewInt(1)) > 0 { // R − 1 is the answer of its 2R − 1 inputs
		mode = bigMax(mode, minus1(new(big.Int).Lsh(R, 1)))
	}
	exact, _ := new(big.Rat).SetFrac(mode, total).Float64()
	return Baseline{Token: token / float64(h), Exact: exact}
}

// sqrtBitCount is the sum of 2r + 1 over the r in [0, X] whose bit j is set: the r in full
// cycles of P = 2^(j+1) (each with the H = 2^j values cP + H .. cP + P − 1), then the rest.
func sqrtBitCount(X *big.Int, j int) *big.Int {
	if X.Sign() < 0 {
		return new(big.Int)
	}
	P, H := pow2(j+1), pow2(j)
	q, rem := new(big.Int).QuoRem(new(big.Int).Add(X, big.NewInt(1)), P, new(big.Int))
	// full cycles: H·(P·q·(q−1) + q) + q·H·(H + P − 1)
	s := new(big.Int).Mul(P, new(big.Int).Mul(q, minus1(q)))
	s.Add(s, q).Mul(s, H)
	s.Add(s, new(big.Int).Mul(new(big.Int).Mul(q, H), minus1(new(big.Int).Add(H, P))))
	if u := new(big.Int).Sub(rem, H); u.Sign() > 0 {
		// the last cycle's r = qP + t, t in [H, H + u): u·(2qP + 1) + 2uH + u(u − 1)
		t := new(big.Int).Mul(new(big.Int).Lsh(q, 1), P)
		t.Add(t, big.NewInt(1)).Mul(t, u)
		s.Add(s, t)
		s.Add(s, new(big.Int).Lsh(new(big.Int).Mul(u, H), 1))
		s.Add(s, new(big.Int).Mul(u, minus1(u)))
	}
	return s
}
