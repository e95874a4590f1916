package stats

import (
	"math"
	"math/rand/v2"
)

// The score distributions of the simulation (docs/statistics.md): scores in [0, 1], as exact match
// and token accuracy are.

// dist draws one seed's score.
type dist struct {
	name string
	draw func(r *rand.Rand) float64
}

// normalClip is N(mu, sd²) clipped symmetrically to [mu − w, mu + w], w = min(mu, 1 − mu), so that
// its mean stays mu and its values stay in [0, 1].
func normalClip(mu, sd float64) func(r *rand.Rand) float64 {
	w := min(mu, 1-mu)
	return func(r *rand.Rand) float64 { return min(max(mu+sd*r.NormFloat64(), mu-w), mu+w) }
}

func uniform(a, b float64) func(r *rand.Rand) float64 {
	return func(r *rand.Rand) float64 { return a + (b-a)*r.Float64() }
}

// twoPoint is 1 with probability p, else 0 (a seed that extrapolates perfectly or not at all).
func twoPoint(p float64) func(r *rand.Rand) float64 {
	return func(r *rand.Rand) float64 {
		if r.Float64() < p {
			return 1
		}
		return 0
	}
}

func constant(v float64) func(r *rand.Rand) float64 { return func(*rand.Rand) float64 { return v } }

// bimodal is "a seed extrapolates with probability p": near 0.95 (uniform on [0.9, 1]) then, else near
// 0.05 (uniform on [0, 0.1]).
func bimodal(p float64) func(r *rand.Rand) float64 {
	return func(r *rand.Rand) float64 {
		if r.Float64() < p {
			return 0.9 + 0.1*r.Float64()
		}
		return 0.1 * r.Float64()
	}
}

// simCase is one row of a table: cell A's and cell B's score distributions.
type simCase struct {
	name string
	a, b func(r *rand.Rand) float64
	diff float64 // the true mean(A) − mean(B)
}

// nullCases have equal means: every decision is wrong.
var nullCases = []simCase{
	{"normal 0.5, sd 0.15 (clipped to [0, 1])", normalClip(0.5, 0.15), normalClip(0.5, 0.15), 0},
	{"uniform(0, 1)", uniform(0, 1), uniform(0, 1), 0},
	{"two-point {0, 1}, p = 0.1", twoPoint(0.1), twoPoint(0.1), 0},
	{"two-point {0, 1}, p = 0.5", twoPoint(0.5), twoPoint(0.5), 0},
	{"two-point {0, 1}, p = 0.9", twoPoint(0.9), twoPoint(0.9), 0},
	{"bimodal: 0.8 near 0.05, 0.2 near 0.95", bimodal(0.2), bimodal(0.2), 0},
	{"unequal: two-point p = 0.5 vs constant 0.5", twoPoint(0.5), constant(0.5), 0},
	{"unequal: uniform(0, 1) vs uniform(0.4, 0.6)", uniform(0, 1), uniform(0.4, 0.6), 0},
}

// altCases have a real difference; their null twin draws both cells like A.
var altCases = []simCase{
	{"normal shift 0.1 (sd 0.1)", normalClip(0.6, 0.1), normalClip(0.5, 0.1), 0.1},
	{"normal shift 0.3 (sd 0.1)", normalClip(0.8, 0.1), normalClip(0.5, 0.1), 0.3},
	{"two-point p = 0.8 vs 0.2", twoPoint(0.8), twoPoint(0.2), 0.6},
	{"always vs never extrapolates", bimodal(1), bimodal(0), 0.9},
	{"2 seeds in 3 vs 1 in 3 extrapolate", bimodal(2.0 / 3), bimodal(1.0 / 3), 0.3},
	{"1 seed in 3 vs never extrapolates", bimodal(1.0 / 3), bimodal(0), 0.3},
}

// twin is the null twin of an alternative: both cells drawn like A.
func (c simCase) twin() simCase { return simCase{c.name, c.a, c.a, 0} }

// mcSE is the Monte-Carlo standard error of a rate p over n experiments.
func mcSE(p float64, n int) float64 { return math.Sqrt(p * (1 - p) / float64(n)) }

// b2f is 1 for true, 0 for false.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
