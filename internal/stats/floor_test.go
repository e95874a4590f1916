package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestBinomialVar(t *testing.T) {
	// p̃ = (0·128 + 0.5)/129, p̃(1 − p̃)/128.
	near(t, "BinomialVar(0, 128)", BinomialVar(0, 128), (0.5/129)*(1-0.5/129)/128, 1e-18)
	near(t, "BinomialVar(0.5, 128)", BinomialVar(0.5, 128), 0.25/128, 1e-18)
	for _, n := range []int{1, 2, 10, 128, 10000} {
		for _, p := range []float64{0, 0.01, 0.3, 0.5, 0.77, 1} {
			v := BinomialVar(p, n)
			if !(v > 0) || v > 0.25/float64(n) {
				t.Errorf("BinomialVar(%v, %d) = %v, want in (0, 1/(4N)]", p, n, v)
			}
			if w := BinomialVar(1-p, n); math.Abs(v-w) > 1e-14*v {
				t.Errorf("BinomialVar(%v, %d) = %v but (1 − p) gives %v", p, n, v, w)
			}
		}
	}
	for _, c := range []struct {
		p float64
		n int
	}{{0.5, 0}, {0.5, -3}, {math.NaN(), 10}} {
		if v := BinomialVar(c.p, c.n); !math.IsNaN(v) {
			t.Errorf("BinomialVar(%v, %d) = %v, want NaN", c.p, c.n, v)
		}
	}
	if BinomialVar(1.2, 10) != BinomialVar(1, 10) || BinomialVar(-1, 10) != BinomialVar(0, 10) {
		t.Error("p outside [0, 1] is not clamped")
	}
	near(t, "MeanBinomialVar", MeanBinomialVar([]float64{0, 0.5}, 128), (BinomialVar(0, 128)+BinomialVar(0.5, 128))/2, 1e-18)
	if !math.IsNaN(MeanBinomialVar(nil, 128)) {
		t.Error("MeanBinomialVar of no runs is not NaN")
	}
}

// TestWelchFloorIsWelchAboveTheFloor: when both sample variances are at least their floors, WelchFloor
// is Welch bit for bit; when a floor binds, the interval is wider and its half-width is what the
// formula gives with the floor.
func TestWelchFloorIsWelchAboveTheFloor(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	for range 5000 {
		a, b := make([]float64, 2+r.IntN(8)), make([]float64, 2+r.IntN(8))
		for i := range a {
			a[i] = r.Float64()
		}
		for i := range b {
			b[i] = r.Float64()
		}
		_, va := MeanVar(a)
		_, vb := MeanVar(b)
		w := Welch(a, b, 0.95)
		f := WelchFloor(a, b, va*r.Float64(), vb, 0.95)
		if !same(w.Lo, f.Lo) || !same(w.Hi, f.Hi) || !same(w.DF, f.DF) || !same(w.Diff, f.Diff) {
			t.Fatalf("floors below s²: WelchFloor %+v, Welch %+v", f, w)
		}
		g := WelchFloor(a, b, 2*va, 2*vb, 0.95) // both floors bind: se² doubles, ν is unchanged
		if !(g.Hi-g.Lo > w.Hi-w.Lo) || math.Abs((g.Hi-g.Lo)-math.Sqrt2*(w.Hi-w.Lo)) > 1e-12 {
			t.Fatalf("floors 2s²: width %v, want √2 × %v", g.Hi-g.Lo, w.Hi-w.Lo)
		}
	}
}

// TestWelchFloorNeverZeroWidth: the case, two seeds scoring the same on each side (addition.md
// length 25: changes −0.016 and −0.016), gives a zero-width Welch interval that decides; with the
// binomial floor of N = 128 answers it has width and does not decide a tiny difference.
func TestWelchFloorNeverZeroWidth(t *testing.T) {
	a, b := []float64{0.5, 0.5}, []float64{0.516, 0.516}
	if w := Welch(a, b, 0.95); w.Hi != w.Lo || !w.Excludes0() {
		t.Fatalf("premise: Welch %+v should be a point that decides", w)
	}
	f := WelchFloor(a, b, MeanBinomialVar(a, 128), MeanBinomialVar(b, 128), 0.95)
	if !(f.Hi-f.Lo > 0) || f.Excludes0() {
		t.Errorf("WelchFloor %+v: want width and no decision", f)
	}
	r := rand.New(rand.NewPCG(13, 14))
	for range 2000 {
		p, q := math.Round(r.Float64()*128)/128, math.Round(r.Float64()*128)/128
		n := 2 + r.IntN(4)
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i], b[i] = p, q
		}
		if f := WelchFloor(a, b, MeanBinomialVar(a, 128), MeanBinomialVar(b, 128), 0.95); !(f.Hi > f.Lo) {
			t.Fatalf("constant sides %v, %v: zero width %+v", p, q, f)
		}
	}
	if f := WelchFloor(a, b, math.NaN(), 0.01, 0.95); !math.IsNaN(f.Lo) || f.Excludes0() {
		t.Errorf("NaN floor: %+v, want NaN bounds", f)
	}
}

// TestMeanIntervalFloor: within [lo, hi] always; MeanInterval when the floor does not bind and the
// bounds do not clamp; the example (rope's in-range 0.997 over 2 seeds printed as
// [0.985, 1.009]) stays within [0, 1].
func TestMeanIntervalFloor(t *testing.T) {
	m, l, h := MeanIntervalFloor([]float64{0.996, 0.998}, MeanBinomialVar([]float64{0.996, 0.998}, 512), 0, 1, 0.95)
	if _, _, hRaw := MeanInterval([]float64{0.996, 0.998}, 0.95); !(hRaw > 1) || h != 1 || !(l < m) {
		t.Errorf("0.996, 0.998: [%v, %v] around %v (unclamped hi %v); want hi clamped to 1", l, h, m, hRaw)
	}
	r := rand.New(rand.NewPCG(15, 16))
	for range 5000 {
		xs := make([]float64, 2+r.IntN(6))
		base := r.Float64()
		for i := range xs {
			xs[i] = min(1, base+0.05*r.Float64()*float64(r.IntN(2)))
		}
		floor := MeanBinomialVar(xs, 1+r.IntN(500))
		m, l, h := MeanIntervalFloor(xs, floor, 0, 1, 0.95)
		if !(0 <= l && l <= m && m <= h && h <= 1) || !(h > l) {
			t.Fatalf("%v: [%v, %v] around %v, want 0 ≤ l ≤ m ≤ h ≤ 1 and h > l", xs, l, h, m)
		}
		_, v := MeanVar(xs)
		if mr, lr, hr := MeanInterval(xs, 0.95); v >= floor && lr >= 0 && hr <= 1 && (mr != m || lr != l || hr != h) {
			t.Fatalf("%v: floor %v below s² %v and no clamping, but [%v, %v] differs from MeanInterval's [%v, %v]", xs, floor, v, l, h, lr, hr)
		}
	}
	for _, c := range []struct {
		name          string
		xs            []float64
		floor, lo, hi float64
	}{{"one value", []float64{0.5}, 0.01, 0, 1}, {"NaN floor", []float64{0.5, 0.6}, math.NaN(), 0, 1}, {"lo > hi", []float64{0.5, 0.6}, 0.01, 1, 0}} {
		if _, l, h := MeanIntervalFloor(c.xs, c.floor, c.lo, c.hi, 0.95); !math.IsNaN(l) || !math.IsNaN(h) {
			t.Errorf("%s: [%v, %v], want NaN", c.name, l, h)
		}
	}
}

func TestClamp(t *testing.T) {
	iv := Interval{Diff: 0.9, Lo: 0.5, Hi: 1.3, DF: 3, Level: 0.95}.Clamp(-1, 1)
	if iv.Lo != 0.5 || iv.Hi != 1 || iv.Diff != 0.9 || iv.DF != 3 {
		t.Errorf("Clamp: %+v", iv)
	}
	r := rand.New(rand.NewPCG(17, 18))
	for range 1000 {
		lo, hi := -3*r.Float64(), 3*r.Float64()
		iv := Interval{Lo: lo - 2 + 2*r.Float64(), Hi: hi - 2 + 2*r.Float64()}
		if iv.Lo > iv.Hi {
			continue
		}
		c := iv.Clamp(-1, 1)
		if c.Excludes0() != iv.Excludes0() || c.Lo < -1 || c.Hi > 1 {
			t.Fatalf("%+v clamped to %+v", iv, c)
		}
	}
	if c := (Interval{Lo: math.NaN(), Hi: math.NaN()}).Clamp(0, 1); !math.IsNaN(c.Lo) || !math.IsNaN(c.Hi) {
		t.Errorf("NaN bounds clamped to %+v", c)
	}
}

func TestSpentWelch(t *testing.T) {
	var sum float64
	for k := 1; k <= 1000; k++ {
		sum += SpentAlpha(k, 0.05)
	}
	near(t, "Σ_{k≤1000} α_k", sum, 0.05*1000/1001, 1e-15) // telescoping: α(1 − 1/(K+1))
	a, b := []float64{0.5, 0.7, 0.6}, []float64{0.4, 0.45, 0.3}
	for k := 1; k <= 5; k++ {
		want := Welch(a, b, 1-0.05/float64(k*(k+1)))
		if got := SpentWelch(a, b, k, 0.05); got != want {
			t.Errorf("k = %d: %+v, want %+v", k, got, want)
		}
	}
	if w1, w3 := SpentWelch(a, b, 1, 0.05), SpentWelch(a, b, 3, 0.05); !(w3.Hi-w3.Lo > w1.Hi-w1.Lo) {
		t.Errorf("later looks are not wider: %+v, %+v", w1, w3)
	}
	if got := SpentWelch(a, b, 0, 0.05); !math.IsNaN(got.Lo) || got.Excludes0() {
		t.Errorf("k = 0: %+v, want NaN bounds", got)
	}
}

// TestWelchScreen: the simulation's fast Welch decision is Welch's, on samples of every kind the
// simulation draws (ties, zero spreads, two-point values) and at every level it uses.
func TestWelchScreen(t *testing.T) {
	r := rand.New(rand.NewPCG(19, 20))
	sc := screens()
	for trial := range 40000 {
		n := 2 + r.IntN(simMaxSeeds-1)
		a, b := make([]float64, n), make([]float64, n)
		p, q := r.Float64(), r.Float64()
		for i := range a {
			switch trial % 3 {
			case 0:
				a[i], b[i] = b2f(r.Float64() < p), b2f(r.Float64() < q)
			case 1:
				a[i], b[i] = p+0.2*r.NormFloat64(), q+0.01*r.NormFloat64()
			default:
				a[i], b[i] = math.Round(r.Float64()*4)/4, 0.5
			}
		}
		s := sc[r.IntN(len(sc))]
		if got, want := s.excludes0(a, b), Welch(a, b, s.level).Excludes0(); got != want {
			t.Fatalf("trial %d, level %v: screen says %v, Welch %v (%v vs %v)", trial, s.level, got, want, a, b)
		}
	}
}
