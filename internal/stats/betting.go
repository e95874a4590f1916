package stats

import "math"

// Bounds is a confidence set [Lo, Hi] for a mean, on the values' own scale.
type Bounds struct{ Lo, Hi float64 }

// Excludes tells whether v lies outside [Lo, Hi] (false when the bounds are NaN).
func (b Bounds) Excludes(v float64) bool { return v < b.Lo || v > b.Hi }

// The betting confidence sequence's two constants (Waudby-Smith and Ramdas 2023):
//   - bettingTheta, the share of the capital that bets on "mean above m" (θ = 1/2: two-sided, symmetric);
//   - bettingC, the truncation of the bets, λ⁺ ≤ c/m and λ⁻ ≤ c/(1−m). The paper suggests 1/2 or 3/4;
//     3/4 decides sooner and more often on every row of the simulation where either decides
//     (docs/statistics.md, "Choosing c"), with a null error still far below α, so it is the default.
const (
	bettingTheta = 0.5
	bettingC     = 0.75
)

// bisectTol is the width, on the [0, 1] scale, below which the bisection for an endpoint stops.
// The endpoint reported is the bracket's outer end, so the interval always contains the exact set.
const bisectTol = 1e-9

// BettingCS is the betting confidence sequence for the mean of i.i.d. values in [lo, hi] at level
// 1 − alpha (Waudby-Smith and Ramdas 2023, "Estimating means of bounded random variables by
// betting", JRSS-B; arXiv 2010.09686): out[t−1] is the set after the first t values, and with
// probability at least 1 − alpha every out[t−1], t = 1, 2, ..., contains the true mean at once.
// So it stays valid when it is looked at after every value and the looking stops whenever it
// likes (a decision rule, a budget): no error spending is needed.
//
// The construction, on y = (x − lo)/(hi − lo) in [0, 1]:
//
//	μ̂_t = (1/2 + Σ_{i≤t} y_i)/(t + 1),  σ̂²_t = (1/4 + Σ_{i≤t} (y_i − μ̂_i)²)/(t + 1)   (regularised)
//	λ_t = √(2 log(2/α) / (σ̂²_{t−1} · t · log(1 + t)))                                  (predictable plug-in)
//	K⁺_t(m) = Π_{i≤t} (1 + min(λ_i, c/m)(y_i − m)),  K⁻_t(m) = Π_{i≤t} (1 − min(λ_i, c/(1−m))(y_i − m))
//	K_t(m) = max(θ K⁺_t(m), (1 − θ) K⁻_t(m)),  θ = 1/2, c = 3/4 (bettingC),
//
// and the set after t values is {m : K_t(m) < 1/α}. K⁺_t is non-increasing in m and K⁻_t
// non-decreasing, so that set is an interval; its ends are found by bisection to 1e-9 (of hi − lo),
// reported on the outer side. The sets are intersected over t (the running intersection, also valid),
// so out is nested. If an intersection would be empty (possible only on the event, of probability at
// most alpha, that an earlier set already missed the mean) it collapses to the nearest end of the
// previous set.
//
// Bad input gives NaN bounds, never a panic: all of them when lo < hi fails, either is not finite or
// alpha is outside (0, 1); from the first value outside [lo, hi] (or NaN) onwards otherwise. A NaN
// bound excludes nothing, so nothing is decided on bad input; callers should check their input first.
func BettingCS(xs []float64, lo, hi, alpha float64) []Bounds {
	return bettingCS(xs, lo, hi, alpha, bettingC)
}

// bettingCS is BettingCS with the truncation c as a parameter (the simulation compares 1/2 and 3/4).
func bettingCS(xs []float64, lo, hi, alpha, c float64) []Bounds {
	out := make([]Bounds, len(xs))
	cs := newBetting(lo, hi, alpha, c, len(xs))
	for t, x := range xs {
		out[t] = cs.add(x)
	}
	return out
}

// betting is the state of one confidence sequence: the values so far (rescaled to [0, 1]), their
// predictable bets and the running intersection [a, b] on the [0, 1] scale.
type betting struct {
	lo, w      float64   // the scale: x = lo + w·y
	thr        float64   // 1/α: the capital at which m is excluded
	logTerm    float64   // 2 log(2/α)
	c          float64   // the truncation of the bets
	ys, lams   []float64 // y_i and λ_i, i = 1..t
	sum, sumSq float64   // Σ y_i and Σ (y_i − μ̂_i)²
	a, b       float64   // the running intersection
	bad        bool      // a bad argument or value was seen: every later set is NaN
}

func newBetting(lo, hi, alpha, c float64, capacity int) *betting {
	s := &betting{lo: lo, w: hi - lo, thr: 1 / alpha, logTerm: 2 * math.Log(2/alpha), c: c, a: 0, b: 1,
		ys: make([]float64, 0, capacity), lams: make([]float64, 0, capacity)}
	if !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) || !(alpha > 0 && alpha < 1) {
		s.bad = true
	}
	return s
}

// add takes the next value and returns the set after it.
func (s *betting) add(x float64) Bounds {
	if !s.push(x) {
		return Bounds{math.NaN(), math.NaN()}
	}
	s.narrow()
	return Bounds{s.lo + s.a*s.w, s.lo + s.b*s.w}
}

// push takes the next value: its bet (from the values before it) and the running estimates. It
// reports false, and marks the sequence bad, for a value outside [lo, hi] or NaN.
func (s *betting) push(x float64) bool {
	if s.bad || !(x >= s.lo && x <= s.lo+s.w) {
		s.bad = true
		return false
	}
	n := float64(len(s.ys) + 1)                              // t, this value's index
	v := (0.25 + s.sumSq) / n                                // σ̂²_{t−1} = (1/4 + Σ_{i<t})/t
	lam := math.Sqrt(s.logTerm / float64(v*n*math.Log(1+n))) // λ_t, from the values before this one
	y := min(max((x-s.lo)/s.w, 0), 1)
	s.ys = append(s.ys, y)
	s.lams = append(s.lams, lam)
	s.sum += y
	mu := (0.5 + s.sum) / (n + 1) // μ̂_t, this value included
	d := y - mu
	s.sumSq += float64(d * d)
	return true
}

// narrow intersects [a, b] with the set after the values pushed so far.
func (s *betting) narrow() {
	// Lower end: θK⁺ is non-increasing in m, so the excluded m form [0, root]; move a up to root.
	if s.kPlus(s.a) >= s.thr {
		if s.kPlus(s.b) >= s.thr {
			s.a = s.b // empty intersection: collapse (see BettingCS)
		} else {
			s.a, _ = bisect(s.a, s.b, func(m float64) bool { return s.kPlus(m) >= s.thr })
		}
	}
	// Upper end: θK⁻ is non-decreasing in m, so the excluded m form [root, 1]; move b down to root.
	if s.kMinus(s.b) >= s.thr {
		if s.kMinus(s.a) >= s.thr {
			s.b = s.a
		} else {
			_, s.b = bisect(s.a, s.b, func(m float64) bool { return s.kMinus(m) < s.thr })
		}
	}
}

// bisect narrows [l, r], where left(l) holds and left(r) does not (left is monotone: true below a
// point, false above), to a bracket of width at most bisectTol around the point.
func bisect(l, r float64, left func(float64) bool) (float64, float64) {
	for r-l > bisectTol {
		mid := (l + r) / 2
		if left(mid) {
			l = mid
		} else {
			r = mid
		}
	}
	return l, r
}

// kPlus is θK⁺_t(m). The explicit float64 conversions keep each product rounded on its own (no fused
// multiply-add), so that every architecture computes the same bits.
func (s *betting) kPlus(m float64) float64 {
	trunc := s.c / m // +Inf at m = 0: no truncation there
	k := bettingTheta
	for i, y := range s.ys {
		k *= 1 + float64(min(s.lams[i], trunc)*(y-m))
	}
	return k
}

// kMinus is (1 − θ)K⁻_t(m).
func (s *betting) kMinus(m float64) float64 {
	trunc := s.c / (1 - m)
	k := 1 - bettingTheta
	for i, y := range s.ys {
		k *= 1 - float64(min(s.lams[i], trunc)*(y-m))
	}
	return k
}
