package stats

import "math"

// The fixed-n fixes of the claims engine (issue 46, point 0): an interval never has zero width while
// the scores are estimates, and an interval stays within the range its quantity can take.
//
// A run's score is a fraction p of N test answers (N: examples per length × lengths averaged), so
// besides the seed-to-seed spread it carries a sampling variance of about p(1−p)/N. Two seeds that
// score exactly the same have a sample variance of zero, and the plain t interval then has zero width
// and "decides" on nothing. The rule here: each side's variance is at least the mean of its runs'
// binomial variances (BinomialVar, with a p̃ that is never 0 or 1), i.e.
//
//	s²_used = max(s², floor),  floor = (1/n) Σ_runs BinomialVar(p_run, N)   (MeanBinomialVar),
//
// and the interval is the usual t (or Welch) interval with s²_used in place of s². When the seeds
// vary more than their sampling error (the usual case) s² ≥ floor and nothing changes.

// BinomialVar is the sampling variance of one run's score p, a fraction of N answers, with the
// Jeffreys-smoothed p̃ = (pN + 1/2)/(N + 1) so that it is never zero:
//
//	BinomialVar(p, N) = p̃(1 − p̃)/N.
//
// p is clamped to [0, 1]; N < 1 gives NaN (and a NaN floor gives NaN bounds downstream: nothing is
// decided), so callers should check N first.
func BinomialVar(p float64, N int) float64 {
	if N < 1 || math.IsNaN(p) {
		return math.NaN()
	}
	n, p := float64(N), min(max(p, 0), 1)
	pt := (p*n + 0.5) / (n + 1)     // p̃
	qt := ((1-p)*n + 0.5) / (n + 1) // 1 − p̃, without the cancellation of 1 − p̃ near p̃ = 1
	return pt * qt / n
}

// MeanBinomialVar is the floor of a side: the mean of BinomialVar over its runs' scores (NaN for no
// runs or N < 1).
func MeanBinomialVar(ps []float64, N int) float64 {
	if len(ps) == 0 {
		return math.NaN()
	}
	var s float64
	for _, p := range ps {
		s += BinomialVar(p, N)
	}
	return s / float64(len(ps))
}

// WelchFloor is Welch's interval for mean(a) − mean(b) with each side's sample variance raised to at
// least its floor (floorA, floorB: MeanBinomialVar of each side's runs):
//
//	s_a² ← max(s_a², floorA),  s_b² ← max(s_b², floorB),  then Welch's formula (see Welch).
//
// With a positive floor on either side the interval never has zero width. When both sample variances
// are at least their floors it is Welch(a, b, level), bit for bit. Fewer than two values a side, or a
// NaN floor, give NaN bounds (nothing decided). It is not clamped: see Interval.Clamp.
func WelchFloor(a, b []float64, floorA, floorB, level float64) Interval {
	ma, va := MeanVar(a)
	mb, vb := MeanVar(b)
	if math.IsNaN(floorA) || math.IsNaN(floorB) {
		return Interval{Diff: ma - mb, Level: level, Lo: math.NaN(), Hi: math.NaN(), DF: math.NaN()}
	}
	return welch(ma, max(va, floorA), len(a), mb, max(vb, floorB), len(b), level)
}

// MeanIntervalFloor is the t interval of a mean over seeds with the variance floor (see WelchFloor),
// clamped to [lo, hi], the range the scores can take (e.g. [0, 1] for an accuracy):
//
//	mean ± t_{(1+level)/2, n−1} · √(max(s², floor)/n),  then l ← max(l, lo), h ← min(h, hi).
//
// Fewer than two values, a NaN floor, or lo > hi give NaN bounds. The mean itself is not clamped.
func MeanIntervalFloor(xs []float64, floor, lo, hi, level float64) (mean, l, h float64) {
	m, v := MeanVar(xs)
	if len(xs) < 2 || math.IsNaN(floor) || !(lo <= hi) {
		return m, math.NaN(), math.NaN()
	}
	w := TQuantile((1+level)/2, float64(len(xs)-1)) * math.Sqrt(max(v, floor)/float64(len(xs)))
	return m, max(m-w, lo), min(m+w, hi)
}

// Clamp is the interval restricted to [lo, hi], the range the difference can take (e.g. [−1, 1] for a
// difference of two accuracies). Diff, DF and Level are kept; NaN bounds stay NaN. Clamping to a range
// that contains 0 never changes Excludes0.
func (iv Interval) Clamp(lo, hi float64) Interval {
	if !math.IsNaN(iv.Lo) {
		iv.Lo = max(iv.Lo, lo)
	}
	if !math.IsNaN(iv.Hi) {
		iv.Hi = min(iv.Hi, hi)
	}
	return iv
}
