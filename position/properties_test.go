package position_test

// Property tests of the position-encoding schemes, all in float64. Each test measures the largest
// error of its property over many positions/offsets, logs it (go test -v ./position) and fails
// when it exceeds the stated tolerance.

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/posformer/posformer/internal/nn"
	"github.com/posformer/posformer/position"
	"gonum.org/v1/gonum/mat"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

const base = position.DefaultBase // 10000

// maxAbsDiff is max_j |a[j] − b[j]|; it is +Inf when the lengths differ or a value is NaN, so a
// broken implementation can never pass a tolerance check by accident.
func maxAbsDiff(a, b []float64) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	m := 0.0
	for j := range a {
		e := math.Abs(a[j] - b[j])
		if math.IsNaN(e) {
			return math.Inf(1)
		}
		m = max(m, e)
	}
	return m
}

func dot(a, b []float64) float64 {
	s := 0.0
	for j := range a {
		s += a[j] * b[j]
	}
	return s
}

func norm(a []float64) float64 { return math.Sqrt(dot(a, a)) }

func randn(rng *rand.Rand, n int) []float64 {
	x := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	return x
}

// within reports err ≤ tol, treating NaN as a failure.
func within(err, tol float64) bool { return err <= tol }

// spread returns lo, lo+step, … up to hi, always including hi.
func spread(lo, hi, step int) []int {
	var v []int
	for x := lo; x < hi; x += step {
		v = append(v, x)
	}
	return append(v, hi)
}

// shiftMatrix is the block-diagonal d×d matrix whose i-th 2×2 block rotates the (sin, cos) pair i
// by b = k·ωᵢ:  [sin(a+b); cos(a+b)] = [[cos b, sin b]; [−sin b, cos b]]·[sin a; cos a].
func shiftMatrix(omega []float64, k float64) *mat.Dense {
	d := 2 * len(omega)
	m := mat.NewDense(d, d, nil)
	for i, w := range omega {
		s, c := math.Sincos(k * w)
		m.Set(2*i, 2*i, c)
		m.Set(2*i, 2*i+1, s)
		m.Set(2*i+1, 2*i, -s)
		m.Set(2*i+1, 2*i+1, c)
	}
	return m
}

// Property 1: a shift of the position by k is a fixed linear map (a rotation of each pair),
// independent of t: M(k)·PE(t) = PE(t+k).
func TestShiftIsRotation(t *testing.T) {
	const tol = 1e-9
	offsets := []int{-300, -257, -100, -31, -2, -1, 0, 1, 2, 3, 7, 64, 100, 255, 511, 1000, 1024, 1500, 2047, 2048}
	ts := spread(0, 2048, 7)
	for _, d := range []int{16, 64, 128} {
		omega := position.Omega(base, d)
		worst, worstT, worstK, wrong := 0.0, 0, 0, 0.0
		y := mat.NewVecDense(d, nil)
		for _, k := range offsets {
			m := shiftMatrix(omega, float64(k))
			for _, tt := range ts {
				y.MulVec(m, mat.NewVecDense(d, position.SinusoidalPE(float64(tt), d, base)))
				want := position.SinusoidalPE(float64(tt+k), d, base)
				if e := maxAbsDiff(y.RawVector().Data, want); !(e <= worst) {
					worst, worstT, worstK = e, tt, k
				}
				if k == 100 {
					// The property is not vacuous: the inverse rotation (M transposed) misses.
					y.MulVec(m.T(), mat.NewVecDense(d, position.SinusoidalPE(float64(tt), d, base)))
					wrong = max(wrong, maxAbsDiff(y.RawVector().Data, want))
				}
			}
		}
		t.Logf("d=%d: max |M(k)·PE(t) − PE(t+k)| = %.3g over %d (t, k) pairs, t ∈ [0, 2048], k ∈ [−300, 2048] (worst at t=%d, k=%d); M(k)ᵀ misses by %.3g",
			d, worst, len(ts)*len(offsets), worstT, worstK, wrong)
		if !within(worst, tol) {
			t.Errorf("d=%d: shift by k=%d from t=%d is not the rotation M(k): error %.3g > %g", d, worstK, worstT, worst, tol)
		}
		if !(wrong > 0.1) {
			t.Errorf("d=%d: the wrong rotation M(100)ᵀ also maps PE(t) to PE(t+100) (error %.3g): the check cannot discriminate", d, wrong)
		}
	}
}

// Property 2: ⟨PE(p), PE(q)⟩ = Σᵢ cos((p−q)·ωᵢ), so the dot product depends only on p − q.
func TestDotProductDependsOnlyOnOffset(t *testing.T) {
	const tol = 1e-9
	ps := spread(0, 2048, 13)
	for _, d := range []int{16, 64, 128, 512} {
		omega := position.Omega(base, d)
		pe := map[int][]float64{}
		get := func(p int) []float64 {
			if v, ok := pe[p]; ok {
				return v
			}
			pe[p] = position.SinusoidalPE(float64(p), d, base)
			return pe[p]
		}
		closed := func(delta int) float64 {
			s := 0.0
			for _, w := range omega {
				s += math.Cos(float64(delta) * w)
			}
			return s
		}
		worst, pairs := 0.0, 0
		for _, p := range ps {
			for _, q := range ps {
				pairs++
				if e := math.Abs(dot(get(p), get(q)) - closed(p-q)); !(e <= worst) {
					worst = e
				}
			}
		}
		t.Logf("d=%d: max |⟨PE(p), PE(q)⟩ − Σ cos((p−q)ωᵢ)| = %.3g over %d (p, q) pairs in [0, 2048]", d, worst, pairs)
		if !within(worst, tol) {
			t.Errorf("d=%d: ⟨PE(p), PE(q)⟩ differs from Σ cos((p−q)ωᵢ) by %.3g > %g", d, worst, tol)
		}

		// Same offset, different absolute positions: compare every ⟨PE(p), PE(p+δ)⟩ with ⟨PE(0), PE(δ)⟩.
		spreadWorst, checks := 0.0, 0
		for _, delta := range []int{-2048, -700, -64, -1, 0, 1, 2, 5, 64, 333, 1024, 2000} {
			lo, hi := max(0, -delta), min(2048, 2048-delta)
			ref := dot(get(lo), get(lo+delta))
			for _, p := range spread(lo, hi, 11) {
				checks++
				if e := math.Abs(dot(get(p), get(p+delta)) - ref); !(e <= spreadWorst) {
					spreadWorst = e
				}
			}
		}
		t.Logf("d=%d: max |⟨PE(p), PE(p+δ)⟩ − ⟨PE(p₀), PE(p₀+δ)⟩| = %.3g over %d positions", d, spreadWorst, checks)
		if !within(spreadWorst, tol) {
			t.Errorf("d=%d: ⟨PE(p), PE(p+δ)⟩ depends on p beyond rounding: %.3g > %g", d, spreadWorst, tol)
		}
	}
}

func newRoPE(t *testing.T, frac float64) *position.RoPE {
	t.Helper()
	s, err := position.New(position.Spec{Kind: "rope"}.With("rotary_fraction", frac), position.Dims{DModel: 64, Heads: 4, Dtype: tensor.Float64})
	if err != nil {
		t.Fatalf("rope, rotary_fraction %g: %v", frac, err)
	}
	r, ok := s.(*position.RoPE)
	if !ok {
		t.Fatalf("position.New(rope) returned %T, not *position.RoPE", s)
	}
	return r
}

// Property 3: RoPE's attention score depends only on relative position, R(p) is orthogonal and
// R(0) is the identity; with rotary_fraction 0.5 the second half of each head passes through.
func TestRoPERelative(t *testing.T) {
	for _, tc := range []struct {
		frac float64
		rot  int
	}{{1, 16}, {0.5, 8}} {
		r := newRoPE(t, tc.frac)
		if r.HeadDim != 16 || r.Rot != tc.rot || r.Heads != 4 {
			t.Fatalf("rotary_fraction %g: got Heads %d, HeadDim %d, Rot %d; want 4, 16, %d", tc.frac, r.Heads, r.HeadDim, r.Rot, tc.rot)
		}
		// θᵢ = base^(−2i/Rot): with Rot = 8 the second pair turns at 10000^(−1/4) = 0.1.
		th := r.Theta()
		if len(th) != tc.rot/2 || th[0] != 1 || math.Abs(th[1]-math.Pow(base, -2.0/float64(tc.rot))) > 1e-16 {
			t.Errorf("rotary_fraction %g: Theta() = %v, want base^(−2i/%d) for i < %d", tc.frac, th, tc.rot, tc.rot/2)
		}

		rng := rand.New(rand.NewPCG(2024, uint64(tc.rot)))
		const trials = 3000
		relWorst, absWorst, normWorst, passWorst := 0.0, 0.0, 0.0, 0.0
		identityOK, inputUntouched := true, true
		for trial := range trials {
			q, k := randn(rng, 16), randn(rng, 16)
			qk := norm(q) * norm(k)
			var m, n, s float64
			switch {
			case trial < 200: // edges: positions 0 and 2048, shifts to either end
				m, n = float64(rng.IntN(2)*2048), float64(rng.IntN(2049))
			default:
				m, n = float64(rng.IntN(2049)), float64(rng.IntN(2049))
			}
			lo, hi := -math.Min(m, n), 2048-math.Max(m, n)
			s = lo + float64(rng.IntN(int(hi-lo)+1))
			qc, kc := slices.Clone(q), slices.Clone(k)
			a := dot(r.Rotate(q, m), r.Rotate(k, n))
			b := dot(r.Rotate(q, m+s), r.Rotate(k, n+s))
			c := dot(q, r.Rotate(k, n-m)) // ⟨R(m)q, R(n)k⟩ = ⟨q, R(n−m)k⟩
			if !slices.Equal(q, qc) || !slices.Equal(k, kc) {
				inputUntouched = false
			}
			e := max(math.Abs(a-b), math.Abs(a-c))
			absWorst = max(absWorst, e)
			if rel := e / qk; !(rel <= relWorst) {
				relWorst = rel
			}
			// ‖R(p)x‖ = ‖x‖, including non-integer positions.
			p := rng.Float64() * 2048
			rq := r.Rotate(q, p)
			if e := math.Abs(norm(rq)-norm(q)) / norm(q); !(e <= normWorst) {
				normWorst = e
			}
			// The unrotated tail passes through unchanged, bit for bit.
			if e := maxAbsDiff(rq[r.Rot:], q[r.Rot:]); !(e <= passWorst) {
				passWorst = e
			}
			// R(0) is exactly the identity.
			if !slices.Equal(r.Rotate(q, 0), q) {
				identityOK = false
			}
		}
		t.Logf("rotary_fraction %g (Rot %d): max |⟨R(m)q, R(n)k⟩ − ⟨R(m+s)q, R(n+s)k⟩| / (|q||k|) = %.3g (absolute %.3g) over %d (m, n, s) in [0, 2048]",
			tc.frac, tc.rot, relWorst, absWorst, trials)
		t.Logf("rotary_fraction %g: max |‖R(p)x‖ − ‖x‖| / ‖x‖ = %.3g; max change of the %d unrotated values = %.3g; R(0) = I exactly: %v",
			tc.frac, normWorst, 16-tc.rot, passWorst, identityOK)
		if !within(relWorst, 1e-9) {
			t.Errorf("rotary_fraction %g: RoPE scores are not relative: error %.3g > 1e-9 of |q||k|", tc.frac, relWorst)
		}
		if !within(normWorst, 1e-12) {
			t.Errorf("rotary_fraction %g: R(p) changes norms by %.3g (relative) > 1e-12", tc.frac, normWorst)
		}
		if passWorst != 0 {
			t.Errorf("rotary_fraction %g: the %d unrotated values changed by up to %.3g", tc.frac, 16-tc.rot, passWorst)
		}
		if !identityOK {
			t.Errorf("rotary_fraction %g: R(0) is not exactly the identity", tc.frac)
		}
		if !inputUntouched {
			t.Errorf("rotary_fraction %g: Rotate modified its input", tc.frac)
		}

		// The scores are not trivially relative: a shift of only one of q, k changes them.
		q, k := randn(rng, 16), randn(rng, 16)
		if d := math.Abs(dot(r.Rotate(q, 5), r.Rotate(k, 9)) - dot(r.Rotate(q, 5), r.Rotate(k, 12))); !(d > 1e-3) {
			t.Errorf("rotary_fraction %g: ⟨R(5)q, R(9)k⟩ = ⟨R(5)q, R(12)k⟩ (difference %.3g): R does not depend on position", tc.frac, d)
		}
	}
}

// Property 4: the Gorgonia graph built by RotateQK (ops.Rope) rotates each head's row exactly as
// RoPE.Rotate does, on every run, with the positions read afresh.
func TestRotateQKGraphMatchesRotate(t *testing.T) {
	const tol = 1e-12
	const N, D, H = 512, 64, 4
	for _, frac := range []float64{1, 0.5} {
		r := newRoPE(t, frac)
		s := position.Scheme(r)
		rotator, ok := s.(position.QKRotator)
		if !ok {
			t.Fatalf("rope does not implement QKRotator")
		}
		rng := rand.New(rand.NewPCG(7, uint64(r.Rot)))
		qData, kData := randn(rng, N*D), randn(rng, N*D)
		qOrig, kOrig := slices.Clone(qData), slices.Clone(kData)
		posData := make([]float64, N)

		b := nn.NewBuilder(tensor.Float64)
		qn, err := b.Const("test.q", tensor.New(tensor.WithShape(N, D), tensor.WithBacking(qData)))
		if err != nil {
			t.Fatal(err)
		}
		kn, err := b.Const("test.k", tensor.New(tensor.WithShape(N, D), tensor.WithBacking(kData)))
		if err != nil {
			t.Fatal(err)
		}
		posT := tensor.New(tensor.WithShape(N), tensor.WithBacking(posData))
		pn, err := b.Const("test.pos", posT)
		if err != nil {
			t.Fatal(err)
		}
		qr, kr, err := rotator.RotateQK(position.Ctx{B: b, Batch: 1, Len: N, Pos: pn, MaxPos: N}, qn, kn)
		if err != nil {
			t.Fatalf("RotateQK: %v", err)
		}
		vm := G.NewTapeMachine(b.G)
		defer vm.Close()

		worst := 0.0
		for run := range 3 {
			// Run 0: positions 0..N−1; run 1: a permutation; run 2: random positions with repeats.
			pd := posT.Data().([]float64)
			perm := rng.Perm(N)
			for i := range pd {
				switch run {
				case 0:
					pd[i] = float64(i)
				case 1:
					pd[i] = float64(perm[i])
				case 2:
					pd[i] = float64(rng.IntN(N))
				}
			}
			vm.Reset()
			if err := vm.RunAll(); err != nil {
				t.Fatalf("rotary_fraction %g, run %d: %v", frac, run, err)
			}
			for _, out := range []struct {
				name string
				node *G.Node
				in   []float64
			}{{"q", qr, qOrig}, {"k", kr, kOrig}} {
				got, ok := out.node.Value().Data().([]float64)
				if !ok || len(got) != N*D {
					t.Fatalf("rotary_fraction %g: %s output is %T of length %d", frac, out.name, out.node.Value().Data(), len(got))
				}
				for row := range N {
					for h := range H {
						lo, hi := row*D+h*r.HeadDim, row*D+(h+1)*r.HeadDim
						want := r.Rotate(out.in[lo:hi], pd[row])
						if e := maxAbsDiff(got[lo:hi], want); !(e <= worst) {
							worst = e
						}
					}
				}
			}
		}
		t.Logf("rotary_fraction %g: max |graph RotateQK − RoPE.Rotate| = %.3g over %d rows × %d heads × q,k × 3 runs", frac, worst, N, H)
		if !within(worst, tol) {
			t.Errorf("rotary_fraction %g: graph rotation differs from Rotate by %.3g > %g", frac, worst, tol)
		}
		if !slices.Equal(qData, qOrig) || !slices.Equal(kData, kOrig) {
			t.Errorf("rotary_fraction %g: running the graph modified its q or k input", frac)
		}
	}
}

// Property 5: pair i has wavelength λᵢ = 2π/ωᵢ = 2π·base^(2i/d): exactly 2π for i = 0, increasing
// in i, at most 2π·base^((d−2)/d) < 2π·base; and PE's pair i repeats after λᵢ (and flips sign
// after λᵢ/2).
func TestWavelengths(t *testing.T) {
	prevRatio := 0.0
	for _, d := range []int{16, 64, 512, 4096} {
		omega := position.Omega(base, d)
		if len(omega) != d/2 {
			t.Fatalf("d=%d: Omega has %d frequencies, want %d", d, len(omega), d/2)
		}
		lambda := make([]float64, len(omega))
		for i, w := range omega {
			lambda[i] = 2 * math.Pi / w
		}
		if lambda[0] != 2*math.Pi {
			t.Errorf("d=%d: λ₀ = %.17g, want exactly 2π", d, lambda[0])
		}
		for i := 1; i < len(lambda); i++ {
			if !(lambda[i] > lambda[i-1]) {
				t.Errorf("d=%d: λ%d = %g is not above λ%d = %g", d, i, lambda[i], i-1, lambda[i-1])
			}
		}
		last := lambda[len(lambda)-1]
		want := 2 * math.Pi * math.Pow(base, float64(d-2)/float64(d))
		if e := math.Abs(last-want) / want; !(e <= 1e-14) {
			t.Errorf("d=%d: last wavelength %.17g, want 2π·base^((d−2)/d) = %.17g (relative error %.3g)", d, last, want, e)
		}
		ratio := last / (2 * math.Pi * base)
		t.Logf("d=%d: λ₀ = 2π, λ_last = %.6g, λ_last / (2π·base) = %.6f", d, last, ratio)
		if !(ratio > prevRatio && ratio < 1) {
			t.Errorf("d=%d: λ_last/(2π·base) = %g does not move toward 1 from %g", d, ratio, prevRatio)
		}
		prevRatio = ratio
	}

	// PE_i(p + λᵢ) = PE_i(p), PE_i(p + λᵢ/2) = −PE_i(p), for non-integer λᵢ and positions.
	const tol = 1e-9
	positions := []float64{0, 0.5, 1.25, 3, 17.3, 100, 511.75, 1000.7, 2047, 2047.9}
	for _, d := range []int{16, 64, 512} {
		omega := position.Omega(base, d)
		period, half, checks := 0.0, 0.0, 0
		for _, p := range positions {
			pe := position.SinusoidalPE(p, d, base)
			for i, w := range omega {
				lam := 2 * math.Pi / w
				if lam == math.Trunc(lam) {
					t.Fatalf("d=%d: λ%d = %g is an integer", d, i, lam)
				}
				checks++
				after := position.SinusoidalPE(p+lam, d, base)
				period = max(period, maxAbsDiff(after[2*i:2*i+2], pe[2*i:2*i+2]))
				mid := position.SinusoidalPE(p+lam/2, d, base)
				half = max(half, maxAbsDiff(mid[2*i:2*i+2], []float64{-pe[2*i], -pe[2*i+1]}))
			}
		}
		t.Logf("d=%d: max |PE_i(p+λᵢ) − PE_i(p)| = %.3g, max |PE_i(p+λᵢ/2) + PE_i(p)| = %.3g over %d (p, i)", d, period, half, checks)
		if !within(period, tol) || !within(half, tol) {
			t.Errorf("d=%d: pair i does not have period λᵢ: errors %.3g, %.3g > %g", d, period, half, tol)
		}
	}
}

// Property 6: golden values derived by hand.
func TestGoldenValues(t *testing.T) {
	const tol = 1e-12
	// d = 4, base 10000: ωᵢ = 10000^(−2i/4), so ω₀ = 10000^0 = 1 and ω₁ = 10000^(−1/2) = 1/100.
	omega := position.Omega(10000, 4)
	if !slices.Equal(omega, []float64{1, 0.01}) {
		t.Errorf("Omega(10000, 4) = %v, want [1 0.01]", omega)
	}
	// Omega(10000, 8) = [1, 10000^(−1/4), 10000^(−1/2), 10000^(−3/4)] = [1, 0.1, 0.01, 0.001].
	if e := maxAbsDiff(position.Omega(10000, 8), []float64{1, 0.1, 0.01, 0.001}); !(e <= 1e-16) {
		t.Errorf("Omega(10000, 8) = %v, want [1 0.1 0.01 0.001]", position.Omega(10000, 8))
	}

	// sin 1 = 0.8414709848078965…, cos 1 = 0.5403023058681398… (the reference values);
	// sin 0.01 = 0.01 − 0.01³/6 + 0.01⁵/120 − … = 0.01 − 1.6666667e-7 + 8.3e-13 = 0.009999833334166664…;
	// cos 0.01 = 1 − 0.01²/2 + 0.01⁴/24 − … = 1 − 5e-5 + 4.1666667e-10 − … = 0.9999500004166653…
	// PE(2): sin 2 = 2·sin 1·cos 1 = 2·0.8414709848078965·0.5403023058681398 = 0.9092974268256817…,
	// cos 2 = 2·cos²1 − 1 = 2·0.2919265817264289 − 1 = −0.4161468365471424…;
	// sin 0.02 = 0.02 − 0.02³/6 + 0.02⁵/120 = 0.02 − 1.3333333e-6 + 2.67e-11 = 0.01999866669333308…,
	// cos 0.02 = 1 − 0.0002 + 0.02⁴/24 − … = 1 − 2e-4 + 6.6666667e-9 − … = 0.9998000066665778…
	golden := []struct {
		p    float64
		want []float64
	}{
		{0, []float64{0, 1, 0, 1}},
		{1, []float64{0.8414709848078965, 0.5403023058681398, 0.009999833334166664, 0.9999500004166653}},
		{2, []float64{0.9092974268256817, -0.4161468365471424, 0.01999866669333308, 0.9998000066665778}},
	}
	worst := 0.0
	for _, g := range golden {
		got := position.SinusoidalPE(g.p, 4, 10000)
		e := maxAbsDiff(got, g.want)
		worst = max(worst, e)
		if !within(e, tol) {
			t.Errorf("SinusoidalPE(%g, 4, 10000) = %v, want %v (error %.3g)", g.p, got, g.want, e)
		}
	}
	if !slices.Equal(position.SinusoidalPE(0, 4, 10000), []float64{0, 1, 0, 1}) {
		t.Errorf("PE(0) is not exactly [0 1 0 1]")
	}

	// d = 512, p = 2047, last pair i = 255: ω = 10000^(−510/512) = 10^(−4·510/512) = 10^(−3.984375)
	//   = 10^(−4)·10^(1/64) = 10^(−4)·e^(ln 10/64) = 10^(−4)·e^(0.035977892078…) = 1.036632928437698e-4.
	// Angle a = 2047·ω = 0.2121987604511968.
	// sin a = a − a³/6 + a⁵/120 − a⁷/5040 + … = 0.2121987605 − 0.0015924968 + 0.0000035857 − 0.0000000038
	//       = 0.21060984990425347…
	// cos a = 1 − a²/2 + a⁴/24 − a⁶/720 + … = 1 − 0.0225141568 + 0.0000844804 − 0.0000001268 + …
	//       = 0.9775701975425130…
	const (
		omegaLast = 1.036632928437698e-4
		sinLast   = 0.21060984990425347
		cosLast   = 0.9775701975425130
	)
	w := position.Omega(10000, 512)
	if e := math.Abs(w[255]-omegaLast) / omegaLast; !(e <= 1e-14) {
		t.Errorf("Omega(10000, 512)[255] = %.17g, want %.17g", w[255], omegaLast)
	}
	pe := position.SinusoidalPE(2047, 512, 10000)
	e := max(math.Abs(pe[510]-sinLast), math.Abs(pe[511]-cosLast))
	worst = max(worst, e)
	if !within(e, tol) {
		t.Errorf("PE(2047)[510:512] for d=512 = [%.17g %.17g], want [%.17g %.17g] (error %.3g)", pe[510], pe[511], sinLast, cosLast, e)
	}
	t.Logf("max error against hand-derived golden values: %.3g", worst)
}

func mustNew(t *testing.T, spec position.Spec, d position.Dims) position.Scheme {
	t.Helper()
	s, err := position.New(spec, d)
	if err != nil {
		t.Fatalf("New(%+v, %+v): %v", spec, d, err)
	}
	if s == nil {
		t.Fatalf("New(%+v, %+v) returned a nil scheme and no error", spec, d)
	}
	return s
}

// Property 7: every scheme's Table and hooks.
func TestTablesAndHooks(t *testing.T) {
	dims := position.Dims{DModel: 64, Heads: 4, Dtype: tensor.Float64, Seed: 3}

	t.Run("sinusoidal", func(t *testing.T) {
		s := mustNew(t, position.Spec{}, dims) // the default kind
		if s.Name() != "sinusoidal" {
			t.Fatalf("default scheme is %q, want sinusoidal", s.Name())
		}
		tab, err := s.(position.Tabler).Table(300)
		if err != nil {
			t.Fatal(err)
		}
		if len(tab.Columns) != 64 || tab.Columns[0] != "d0" || tab.Columns[63] != "d63" || len(tab.Rows) != 300 {
			t.Fatalf("table has columns %v…, %d rows; want d0..d63 and 300 rows", tab.Columns[:min(3, len(tab.Columns))], len(tab.Rows))
		}
		worst := 0.0
		for p, row := range tab.Rows {
			worst = max(worst, maxAbsDiff(row, position.SinusoidalPE(float64(p), 64, base)))
		}
		t.Logf("max |Table row − SinusoidalPE| = %.3g over 300 rows", worst)
		if worst != 0 {
			t.Errorf("sinusoidal Table rows differ from SinusoidalPE by %.3g", worst)
		}
		checkHooks(t, s, true, false, false, false, true) // a LengthChecker through its Randomizer
	})

	t.Run("rope", func(t *testing.T) {
		for _, frac := range []float64{1, 0.5} {
			s := mustNew(t, position.Spec{Kind: "rope"}.With("rotary_fraction", frac).With("base", 500), dims)
			r := s.(*position.RoPE)
			tab, err := r.Table(2049)
			if err != nil {
				t.Fatal(err)
			}
			if len(tab.Columns) != r.Rot/2 || tab.Columns[0] != "pair0" || len(tab.Rows) != 2049 {
				t.Fatalf("rope table has columns %v and %d rows", tab.Columns, len(tab.Rows))
			}
			worst := 0.0
			for p, row := range tab.Rows {
				want := make([]float64, r.Rot/2)
				for i := range want {
					want[i] = float64(p) * math.Pow(500, -2*float64(i)/float64(r.Rot))
				}
				if e := maxAbsDiff(row, want); !(e <= worst) {
					worst = e
				}
			}
			t.Logf("rotary_fraction %g, base 500: max |Table[p][i] − p·500^(−2i/%d)| = %.3g over 2049 rows", frac, r.Rot, worst)
			if !within(worst, 1e-12) {
				t.Errorf("rope Table is not p·θᵢ: error %.3g", worst)
			}
			checkHooks(t, s, false, true, false, false, true) // a LengthChecker through its Randomizer
		}
	})

	t.Run("learned", func(t *testing.T) {
		spec := position.Spec{Kind: "learned"}.With("max_positions", 40)
		s := mustNew(t, spec, dims)
		tab, err := s.(position.Tabler).Table(40)
		if err != nil {
			t.Fatalf("Table(MaxPositions): %v", err)
		}
		if len(tab.Rows) != 40 || len(tab.Columns) != 64 || len(tab.Rows[39]) != 64 {
			t.Fatalf("learned table: %d rows, %d columns", len(tab.Rows), len(tab.Columns))
		}
		// Initial values are N(0, 0.02²): the sample standard deviation of 2560 values is near 0.02.
		sum, sq := 0.0, 0.0
		for _, row := range tab.Rows {
			for _, v := range row {
				sum += v
				sq += v * v
			}
		}
		n := float64(40 * 64)
		std := math.Sqrt(sq/n - (sum/n)*(sum/n))
		t.Logf("learned: initial table std %.4f (init_std 0.02)", std)
		if math.Abs(std-0.02) > 0.002 {
			t.Errorf("learned table std %.4f, want about init_std 0.02", std)
		}
		// The same seed gives the same table.
		again, _ := mustNew(t, spec, dims).(position.Tabler).Table(40)
		if !slices.Equal(again.Rows[7], tab.Rows[7]) {
			t.Errorf("two learned tables with the same seed differ")
		}
		for _, n := range []int{41, 1000} {
			_, err := s.(position.Tabler).Table(n)
			if err == nil || !strings.Contains(err.Error(), "position.max_positions") {
				t.Errorf("learned Table(%d) with max_positions 40: error %v, want one naming position.max_positions", n, err)
			}
		}
		if err := s.(position.LengthChecker).CheckPositions(41); err == nil || !strings.Contains(err.Error(), "position.max_positions") {
			t.Errorf("CheckPositions(41): %v, want an error naming position.max_positions", err)
		}
		if err := s.(position.LengthChecker).CheckPositions(40); err != nil {
			t.Errorf("CheckPositions(40) with 40 rows: %v", err)
		}
		checkHooks(t, s, true, false, false, true, true)
	})

	t.Run("none", func(t *testing.T) {
		s := mustNew(t, position.Spec{Kind: "none"}, dims)
		if s.Name() != "none" {
			t.Errorf("Name() = %q", s.Name())
		}
		checkHooks(t, s, false, false, false, false, false)
		if _, ok := s.(position.Tabler); ok {
			t.Errorf("none implements Tabler")
		}
	})
}

// checkHooks compares the optional hooks a scheme implements with the expected ones.
func checkHooks(t *testing.T, s position.Scheme, adder, rotator, biaser, params, checker bool) {
	t.Helper()
	_, a := s.(position.EmbeddingAdder)
	_, r := s.(position.QKRotator)
	_, b := s.(position.LogitBiaser)
	_, p := s.(position.Parameterized)
	_, c := s.(position.LengthChecker)
	got := []bool{a, r, b, p, c}
	want := []bool{adder, rotator, biaser, params, checker}
	names := []string{"EmbeddingAdder", "QKRotator", "LogitBiaser", "Parameterized", "LengthChecker"}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: implements %s = %v, want %v", s.Name(), names[i], got[i], want[i])
		}
	}
}

// Property 8: constructor errors name the config field to fix.
func TestConstructorErrors(t *testing.T) {
	f64 := tensor.Float64
	cases := []struct {
		name  string
		spec  position.Spec
		dims  position.Dims
		wants []string
	}{
		{"odd d_model", position.Spec{Kind: "sinusoidal"}, position.Dims{DModel: 15, Heads: 3, Dtype: f64}, []string{"model.d_model", "even"}},
		{"odd d_model, one head", position.Spec{}, position.Dims{DModel: 7, Heads: 1, Dtype: f64}, []string{"model.d_model", "even"}},
		{"rope odd d_head", position.Spec{Kind: "rope"}, position.Dims{DModel: 12, Heads: 4, Dtype: f64}, []string{"position.rotary_fraction"}},
		{"rope odd rotated", position.Spec{Kind: "rope"}.With("rotary_fraction", 0.3), position.Dims{DModel: 64, Heads: 4, Dtype: f64}, []string{"position.rotary_fraction"}},
		{"rope nothing rotated", position.Spec{Kind: "rope"}.With("rotary_fraction", 0.01), position.Dims{DModel: 64, Heads: 4, Dtype: f64}, []string{"position.rotary_fraction"}},
		{"rope fraction above 1", position.Spec{Kind: "rope"}.With("rotary_fraction", 1.5), position.Dims{DModel: 64, Heads: 4, Dtype: f64}, []string{"position.rotary_fraction"}},
		{"unknown kind", position.Spec{Kind: "xpos2"}, position.Dims{DModel: 64, Heads: 4, Dtype: f64}, []string{"position.kind", `"xpos2"`, strings.Join(position.Kinds(), ", ")}},
		{"base 1", position.Spec{}.With("base", 1), position.Dims{DModel: 64, Heads: 4, Dtype: f64}, []string{"position.base"}},
		{"heads", position.Spec{}, position.Dims{DModel: 64, Heads: 5, Dtype: f64}, []string{"model.heads"}},
		{"learned init_std", position.Spec{Kind: "learned"}.With("init_std", -1), position.Dims{DModel: 64, Heads: 4, Dtype: f64}, []string{"position.init_std"}},
	}
	for _, tc := range cases {
		s, err := position.New(tc.spec, tc.dims)
		if err == nil {
			t.Errorf("%s: New(%+v, %+v) = %v, want an error", tc.name, tc.spec, tc.dims, s)
			continue
		}
		if s != nil {
			t.Errorf("%s: New returned both a scheme and an error", tc.name)
		}
		for _, w := range tc.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", tc.name, err, w)
			}
		}
	}
	// Every registered kind is listed in the unknown-kind error.
	_, err := position.New(position.Spec{Kind: "xpos2"}, position.Dims{DModel: 64, Heads: 4, Dtype: f64})
	for _, k := range position.Kinds() {
		if err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("unknown-kind error %v does not list %q", err, k)
		}
	}
	for _, k := range []string{"alibi", "learned", "none", "rope", "sinusoidal", "t5"} {
		if !slices.Contains(position.Kinds(), k) {
			t.Errorf("Kinds() = %v lacks %s", position.Kinds(), k)
		}
	}
}
