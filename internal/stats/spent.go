package stats

import "math"

// SpentAlpha is the error spent at the k-th look (k ≥ 1): α_k = alpha/(k(k+1)). The α_k sum to alpha
// over k = 1, 2, ..., so by the union bound the chance that any look's interval misses is at most
// alpha, whatever the stopping rule, provided that each look's interval has its nominal level.
// k < 1 gives NaN.
func SpentAlpha(k int, alpha float64) float64 {
	if k < 1 {
		return math.NaN()
	}
	return alpha / (float64(k) * float64(k+1))
}

// SpentWelch is Welch's interval of mean(a) − mean(b) at the k-th look (k ≥ 1; k = 1 is the first
// look, with two values a side) at level 1 − SpentAlpha(k, alpha): for scores without bounds (a
// language model's bits per byte), looked at after every seed.
//
// Its validity rests on each look's Welch interval being valid, i.e. on near-normal scores: the
// simulation in docs/statistics.md shows it holding for normal scores and failing for two-point ones
// (zero-variance samples give zero-width intervals). For scores in a known range use BettingCS.
// k < 1 gives NaN bounds.
func SpentWelch(a, b []float64, k int, alpha float64) Interval {
	if k < 1 {
		iv := Welch(a, b, math.NaN())
		iv.Lo, iv.Hi, iv.DF = math.NaN(), math.NaN(), math.NaN()
		return iv
	}
	return Welch(a, b, 1-SpentAlpha(k, alpha))
}
