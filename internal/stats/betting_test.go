package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// capitalBrute is the hedged capital K_t(m) of the first t values, computed from the paper's formulas
// afresh (no state shared with betting): the check of BettingCS's arithmetic.
func capitalBrute(ys []float64, t int, m, alpha, c float64) float64 {
	kp, km := 1.0, 1.0
	sumSq, sum := 0.25, 0.0
	for i := 1; i <= t; i++ {
		sigma2 := sumSq / float64(i) // σ̂²_{i−1} = (1/4 + Σ_{j<i} (y_j − μ̂_j)²)/i
		lam := math.Sqrt(2 * math.Log(2/alpha) / (sigma2 * float64(i) * math.Log(1+float64(i))))
		y := ys[i-1]
		kp *= 1 + math.Min(lam, c/m)*(y-m)
		km *= 1 - math.Min(lam, c/(1-m))*(y-m)
		sum += y
		muI := (0.5 + sum) / float64(i+1)
		sumSq += (y - muI) * (y - muI)
	}
	return math.Max(0.5*kp, 0.5*km)
}

// TestBettingCSMatchesBruteForce: each end of each set is where the brute-force capital crosses 1/α
// (excluded just outside, not excluded just inside, within the bisection's tolerance), for the sets
// before the running intersection binds; and every set is the running intersection.
func TestBettingCSMatchesBruteForce(t *testing.T) {
	const alpha = 0.05
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		n := 1 + r.IntN(40)
		ys := make([]float64, n)
		p := r.Float64()
		for i := range ys {
			switch trial % 3 {
			case 0:
				ys[i] = r.Float64()
			case 1:
				ys[i] = b2f(r.Float64() < p) // two-point
			default:
				ys[i] = min(max(p+0.1*r.NormFloat64(), 0), 1)
			}
		}
		out := BettingCS(ys, 0, 1, alpha)
		prev := Bounds{0, 1}
		for i, b := range out {
			if b.Lo < prev.Lo || b.Hi > prev.Hi {
				t.Fatalf("trial %d, t = %d: %+v not within the previous set %+v", trial, i+1, b, prev)
			}
			// An end that moved at this t is where this t's capital crosses 1/α.
			if b.Lo > prev.Lo && b.Lo < b.Hi {
				if capitalBrute(ys, i+1, b.Lo, alpha, bettingC) < 1/alpha {
					t.Fatalf("trial %d, t = %d: K(Lo = %.12g) < 1/α: Lo is not an excluded point", trial, i+1, b.Lo)
				}
				if capitalBrute(ys, i+1, b.Lo+3*bisectTol, alpha, bettingC) >= 1/alpha {
					t.Fatalf("trial %d, t = %d: K(Lo + 3e-9) ≥ 1/α: Lo is too low", trial, i+1)
				}
			}
			if b.Hi < prev.Hi && b.Lo < b.Hi {
				if capitalBrute(ys, i+1, b.Hi, alpha, bettingC) < 1/alpha {
					t.Fatalf("trial %d, t = %d: K(Hi = %.12g) < 1/α", trial, i+1, b.Hi)
				}
				if capitalBrute(ys, i+1, b.Hi-3*bisectTol, alpha, bettingC) >= 1/alpha {
					t.Fatalf("trial %d, t = %d: K(Hi − 3e-9) ≥ 1/α: Hi is too high", trial, i+1)
				}
			}
			prev = b
		}
	}
}

// TestBettingCSClosedForm: for values all at the top of the range, K⁻ never reaches 1/α (Hi stays at
// hi) and, once the truncation c/m binds for every bet, θK⁺_t(m) = ½(1 − c + c/m)^t, so the lower end
// after t values is m_t = c/(40^{1/t} − 1 + c) at α = 0.05 (m_7 = 0.51946: the set excludes ½ first at
// t = 7, when ½·1.75^7 = 25.2 ≥ 20 > ½·1.75^6 = 14.4).
func TestBettingCSClosedForm(t *testing.T) {
	ys := make([]float64, 20)
	for i := range ys {
		ys[i] = 1
	}
	out := BettingCS(ys, 0, 1, 0.05)
	for i, b := range out {
		n := float64(i + 1)
		if b.Hi != 1 {
			t.Errorf("t = %d: Hi = %v, want 1", i+1, b.Hi)
		}
		if i+1 < 3 {
			continue // the truncation does not bind for the first bets
		}
		want := bettingC / (math.Pow(40, 1/n) - 1 + bettingC)
		if math.Abs(b.Lo-want) > 2*bisectTol {
			t.Errorf("t = %d: Lo = %.12f, want %.12f", i+1, b.Lo, want)
		}
	}
	if out[5].Excludes(0.5) || !out[6].Excludes(0.5) {
		t.Errorf("½ excluded after 6 values (%+v) or not after 7 (%+v); want first after 7", out[5], out[6])
	}
	if math.Abs(out[6].Lo-0.51946) > 1e-5 {
		t.Errorf("Lo after 7 values = %.6f, want 0.51946", out[6].Lo)
	}
}

// TestBettingCSCoversTheMean: over many sequences of several shapes and ranges, the fraction whose
// sets ever miss the true mean is at most α (+3 Monte-Carlo standard errors), with looks at every t.
func TestBettingCSCoversTheMean(t *testing.T) {
	const alpha, runs, n = 0.1, 2000, 40
	for _, c := range []struct {
		name   string
		lo, hi float64
		mean   float64
		draw   func(r *rand.Rand) float64
	}{
		{"uniform [2, 7]", 2, 7, 4.5, func(r *rand.Rand) float64 { return 2 + 5*r.Float64() }},
		{"two-point {-1, 1}, p = 0.3", -1, 1, -0.4, func(r *rand.Rand) float64 { return 2*b2f(r.Float64() < 0.3) - 1 }},
		{"skewed in [0, 1]", 0, 1, 0.25, func(r *rand.Rand) float64 { x := r.Float64(); return x * x * 0.75 }},
	} {
		r := rand.New(rand.NewPCG(5, 6))
		misses := 0
		xs := make([]float64, n)
		for range runs {
			for i := range xs {
				xs[i] = c.draw(r)
			}
			out := BettingCS(xs, c.lo, c.hi, alpha)
			if out[n-1].Excludes(c.mean) { // nested: the last set misses iff some set does
				misses++
			}
		}
		if got, bound := float64(misses)/runs, alpha+3*mcSE(alpha, runs); got > bound {
			t.Errorf("%s: the sets missed the mean in %.4f of %d sequences, above %.4f", c.name, got, runs, bound)
		}
	}
}

// TestBettingCSShape: every set lies within [lo, hi], contains the next one, is the whole range after
// one value, and shrinks as values accumulate.
func TestBettingCSShape(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	xs := make([]float64, 400)
	for i := range xs {
		xs[i] = -1 + 2*r.Float64()*r.Float64() // in [−1, 1], mean −0.5
	}
	out := BettingCS(xs, -1, 1, 0.05)
	if out[0] != (Bounds{-1, 1}) {
		t.Errorf("after one value: %+v, want the whole range [−1, 1]", out[0])
	}
	for i := 1; i < len(out); i++ {
		if out[i].Lo < -1 || out[i].Hi > 1 || out[i].Lo > out[i].Hi {
			t.Fatalf("t = %d: %+v outside [−1, 1] or empty", i+1, out[i])
		}
		if out[i].Lo < out[i-1].Lo || out[i].Hi > out[i-1].Hi {
			t.Fatalf("t = %d: %+v not within %+v", i+1, out[i], out[i-1])
		}
	}
	w := func(t int) float64 { return out[t-1].Hi - out[t-1].Lo }
	if !(w(10) < w(1) && w(50) < w(10) && w(400) < 0.6*w(50)) {
		t.Errorf("widths after 1, 10, 50, 400 values: %.3f %.3f %.3f %.3f; want shrinking (400 below 0.6 × 50, as √(log t / t))",
			w(1), w(10), w(50), w(400))
	}
	if out[399].Excludes(-0.5) {
		t.Errorf("after 400 values %+v misses the mean −0.5", out[399])
	}
}

// TestBettingExcludesLikeCapital: 0 is out of BettingCS's interval after t values exactly when the
// capital at 0 reached 1/α at some s ≤ t (the running intersection of the exact sets); so the
// simulation's cheap path (firstExcluded) is the function's decision.
func TestBettingExcludesLikeCapital(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	a, b := make([]float64, simMaxSeeds), make([]float64, simMaxSeeds)
	for trial := range 3000 {
		p, q := r.Float64(), r.Float64()
		for i := range a {
			a[i], b[i] = b2f(r.Float64() < p), min(max(q+0.2*r.NormFloat64(), 0), 1)
		}
		if trial%2 == 0 {
			copy(b, a[:simMaxSeeds/2]) // some exact ties
		}
		if got, want := firstBetting(a, b, bettingC), firstExcluded(a, b, bettingC); got != want {
			t.Fatalf("trial %d: the interval first excludes 0 at t = %d, the capital at %d", trial, got, want)
		}
	}
}

// TestBettingCSBadInput: NaN sets, never a panic, for a bad range or alpha, and from a value outside
// the range onwards.
func TestBettingCSBadInput(t *testing.T) {
	nan := func(b Bounds) bool { return math.IsNaN(b.Lo) && math.IsNaN(b.Hi) && !b.Excludes(0) }
	for _, c := range []struct {
		name          string
		lo, hi, alpha float64
	}{{"lo = hi", 1, 1, 0.05}, {"lo > hi", 1, 0, 0.05}, {"infinite hi", 0, math.Inf(1), 0.05},
		{"alpha 0", 0, 1, 0}, {"alpha 1", 0, 1, 1}, {"alpha NaN", 0, 1, math.NaN()}} {
		for _, b := range BettingCS([]float64{0.5, 0.5}, c.lo, c.hi, c.alpha) {
			if !nan(b) {
				t.Errorf("%s: %+v, want NaN", c.name, b)
			}
		}
	}
	out := BettingCS([]float64{1, 1, 1.5, 1, 1, 1, 1, 1, 1, 1}, 0, 1, 0.05)
	if nan(out[1]) || !nan(out[2]) || !nan(out[9]) {
		t.Errorf("value 1.5 outside [0, 1] at t = 3: %+v, want NaN from t = 3 on only", out)
	}
	if got := BettingCS(nil, 0, 1, 0.05); len(got) != 0 {
		t.Errorf("no values: %v", got)
	}
}

// BenchmarkBettingCS20 is one claim's comparison over 20 seeds: the 20 nested sets.
func BenchmarkBettingCS20(b *testing.B) {
	r := rand.New(rand.NewPCG(21, 22))
	xs := make([]float64, 20)
	for i := range xs {
		xs[i] = b2f(r.Float64() < 0.6) - b2f(r.Float64() < 0.4)
	}
	for b.Loop() {
		BettingCS(xs, -1, 1, 0.05)
	}
}
