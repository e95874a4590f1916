// Package stats holds the statistics of posformer's verdicts: the mean and variance over seeds,
// the t interval of a mean and Welch's interval of a difference of means (stdlib and gonum only,
// so that the run report and the claims engine share them); a number's summary over seeds
// (Stat: stat.go); the chance rule, "above chance" and "extrapolates to" (chance.go); their
// fixed-n fixes (a binomial variance floor, clamping: floor.go); and the sequential rules, for claims looked at after
// every seed: the betting confidence sequence for bounded scores (betting.go), Welch with the error
// spent over the looks (spent.go), and an estimate of the seeds a decision needs (seeds.go).
// docs/statistics.md states the rules and the simulation that checks them.
package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a two-sided confidence interval for a difference of means.
type Interval struct {
	Diff   float64 // mean(a) − mean(b)
	Lo, Hi float64 // the interval's bounds
	DF     float64 // Welch–Satterthwaite degrees of freedom (+Inf when both spreads are zero)
	Level  float64 // the confidence level, e.g. 0.95
}

// Excludes0 tells whether the interval lies wholly on one side of zero.
func (iv Interval) Excludes0() bool { return iv.Lo > 0 || iv.Hi < 0 }

// MeanVar is the sample mean and the unbiased sample variance (n − 1) of xs.
func MeanVar(xs []float64) (mean, variance float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, math.NaN()
	}
	for _, x := range xs {
		variance += (x - mean) * (x - mean)
	}
	return mean, variance / float64(len(xs)-1)
}

// Welch is Welch's t interval for mean(a) − mean(b) at the given level (0.95 in the claims engine):
//
//	d = ā − b̄,  se² = s_a²/n_a + s_b²/n_b,
//	ν = se⁴ / ((s_a²/n_a)²/(n_a−1) + (s_b²/n_b)²/(n_b−1))   (Welch–Satterthwaite),
//	d ± t_{(1+level)/2, ν} · se.
//
// Each sample needs at least two values (seeds); with fewer the bounds are NaN, so nothing is
// ever called significant on one seed. When both samples have zero spread the interval is the
// point d (se = 0): a difference measured without any seed-to-seed variation.
func Welch(a, b []float64, level float64) Interval {
	ma, va := MeanVar(a)
	mb, vb := MeanVar(b)
	return welch(ma, va, len(a), mb, vb, len(b), level)
}

// welch is Welch's interval from each side's mean, variance and size (shared by Welch and WelchFloor,
// so that the two give the same bits when the floors do not bind).
func welch(ma, va float64, na int, mb, vb float64, nb int, level float64) Interval {
	iv := Interval{Diff: ma - mb, Level: level, Lo: math.NaN(), Hi: math.NaN(), DF: math.NaN()}
	if na < 2 || nb < 2 {
		return iv
	}
	qa, qb := va/float64(na), vb/float64(nb)
	se2 := qa + qb
	if se2 == 0 {
		iv.Lo, iv.Hi, iv.DF = iv.Diff, iv.Diff, math.Inf(1)
		return iv
	}
	iv.DF = se2 * se2 / (qa*qa/float64(na-1) + qb*qb/float64(nb-1))
	h := TQuantile((1+level)/2, iv.DF) * math.Sqrt(se2)
	iv.Lo, iv.Hi = iv.Diff-h, iv.Diff+h
	return iv
}

// MeanInterval is the t interval of a mean over seeds: mean ± t_{(1+level)/2, n−1} · s/√n, with
// NaN bounds for fewer than two values.
func MeanInterval(xs []float64, level float64) (mean, lo, hi float64) {
	m, v := MeanVar(xs)
	if len(xs) < 2 {
		return m, math.NaN(), math.NaN()
	}
	h := TQuantile((1+level)/2, float64(len(xs)-1)) * math.Sqrt(v/float64(len(xs)))
	return m, m - h, m + h
}

// TQuantile is the p-quantile of Student's t distribution with df degrees of freedom (df may be
// fractional, as Welch's is).
func TQuantile(p, df float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}
