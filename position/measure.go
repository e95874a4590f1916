package position

import (
	"math"
	"math/rand/v2"
)

// The functions here measure the claims the seed articles make about these encodings, in
// float64, over many positions and offsets. posformer's claims command reports their results
// (docs/claims/mathematics.md); the property tests check the same identities independently.

// ShiftRotationError is the largest |M(k)·PE(t) − PE(t+k)| over t < maxPos and the given offsets,
// where M(k) rotates each (sin, cos) pair i by k·ωᵢ: a shift by k is a rotation.
func ShiftRotationError(d int, base float64, maxPos int, offsets []int) float64 {
	w := Omega(base, d)
	worst := 0.0
	for t := 0; t < maxPos; t++ {
		pe := SinusoidalPE(float64(t), d, base)
		for _, k := range offsets {
			want := SinusoidalPE(float64(t+k), d, base)
			for i, wi := range w {
				s, c := math.Sincos(float64(k) * wi)
				// [sin(a+b), cos(a+b)] = [[cos b, sin b], [−sin b, cos b]]·[sin a, cos a]
				x := c*pe[2*i] + s*pe[2*i+1]
				y := -s*pe[2*i] + c*pe[2*i+1]
				worst = math.Max(worst, math.Max(math.Abs(x-want[2*i]), math.Abs(y-want[2*i+1])))
			}
		}
	}
	return worst
}

// DotOffsetError is the largest |⟨PE(p), PE(q)⟩ − Σᵢ cos((p−q)·ωᵢ)| over p, q < maxPos (sampled
// every `stride` positions): the dot product depends only on the offset p − q.
func DotOffsetError(d int, base float64, maxPos, stride int) float64 {
	w := Omega(base, d)
	worst := 0.0
	for p := 0; p < maxPos; p += stride {
		a := SinusoidalPE(float64(p), d, base)
		for q := 0; q < maxPos; q += stride {
			b := SinusoidalPE(float64(q), d, base)
			var dot, want float64
			for i := range a {
				dot += a[i] * b[i]
			}
			for _, wi := range w {
				want += math.Cos(float64(p-q) * wi)
			}
			worst = math.Max(worst, math.Abs(dot-want))
		}
	}
	return worst
}

// RoPERelativeError is the largest |⟨R(m)q, R(n)k⟩ − ⟨R(m+s)q, R(n+s)k⟩| / (|q|·|k|) over `trials`
// random q, k and positions m, n, s < maxPos: RoPE scores depend only on m − n.
func RoPERelativeError(r *RoPE, trials, maxPos int, seed uint64) float64 {
	rng := rand.New(rand.NewPCG(seed, 99))
	dh := r.HeadDim
	worst := 0.0
	for t := 0; t < trials; t++ {
		q, k := make([]float64, dh), make([]float64, dh)
		var nq, nk float64
		for i := range q {
			q[i], k[i] = rng.NormFloat64(), rng.NormFloat64()
			nq += q[i] * q[i]
			nk += k[i] * k[i]
		}
		m, n, s := rng.IntN(maxPos), rng.IntN(maxPos), rng.IntN(maxPos)
		a := dot(r.Rotate(q, float64(m)), r.Rotate(k, float64(n)))
		b := dot(r.Rotate(q, float64(m+s)), r.Rotate(k, float64(n+s)))
		worst = math.Max(worst, math.Abs(a-b)/math.Sqrt(nq*nk))
	}
	return worst
}

func dot(a, b []float64) float64 {
	var s float64
	for i := range a {
		s += a[i] * b[i]
	}
	return s
}

// Float32Error compares ways of computing PE(p) in float32 with the float64 values, for one
// position: `computed` does the arithmetic in float32 (sin(float32(p)·float32(ωᵢ))), `cast`
// computes in float64 and rounds the result. Both are the largest absolute error over the d values.
func Float32Error(p float64, d int, base float64) (computed, cast float64) {
	exact := SinusoidalPE(p, d, base)
	w := Omega(base, d)
	for i, wi := range w {
		a := float32(p) * float32(wi) // the angle in float32
		s32 := float32(math.Sin(float64(a)))
		c32 := float32(math.Cos(float64(a)))
		computed = math.Max(computed, math.Max(math.Abs(float64(s32)-exact[2*i]), math.Abs(float64(c32)-exact[2*i+1])))
		cast = math.Max(cast, math.Max(math.Abs(float64(float32(exact[2*i]))-exact[2*i]), math.Abs(float64(float32(exact[2*i+1]))-exact[2*i+1])))
	}
	return computed, cast
}

// MaxOffDiagonalSimilarity is the largest ⟨PE(p), PE(q)⟩ / ⟨PE(p), PE(p)⟩ over p, q < n with
// |p − q| ≥ minOffset, and the offset where it occurs: how close the encoding comes to repeating
// (1 would be an exact alias). ⟨PE(p), PE(p)⟩ = d/2 for every p.
func MaxOffDiagonalSimilarity(d int, base float64, n, minOffset int) (sim float64, offset int) {
	w := Omega(base, d)
	sim = math.Inf(-1)
	// The dot product depends only on k = p − q: Σᵢ cos(k·ωᵢ).
	for k := minOffset; k < n; k++ {
		var s float64
		for _, wi := range w {
			s += math.Cos(float64(k) * wi)
		}
		if s /= float64(len(w)); s > sim {
			sim, offset = s, k
		}
	}
	return sim, offset
}
