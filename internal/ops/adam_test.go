package ops

import (
	"math"
	"math/rand/v2"
	"testing"
)

// adamScalar is the AdamW update of one element as train.adamRange writes it: every operation
// rounded on its own.
func adamScalar(w, g float32, m, v float64, c *AdamCoef) (float32, float64, float64) {
	gj := float64(g) * c.Scale
	m = float64(c.Beta1*m) + float64(c.OneMinusBeta1*gj)
	v = float64(c.Beta2*v) + float64(float64(c.OneMinusBeta2*gj)*gj)
	x := float64(w)
	x -= float64(c.LR * (m/c.BC1/(math.Sqrt(v/c.BC2)+c.Eps) + float64(c.WD*x)))
	return float32(x), m, v
}

// TestAdamVec32Bits: the vector AdamW update, with each kernel this CPU runs (AVX-512's eight
// lanes, AVX2's four), gives the scalar update's weights and moments bit for bit, with and
// without weight decay and gradient scaling, on lengths that are and are not multiples of 8,
// over several steps, and reports how many elements it did.
func TestAdamVec32Bits(t *testing.T) {
	if !useKernels || !haveKernels {
		t.Skip("no assembly kernels on this CPU")
	}
	kernels := map[string]func(w, g []float32, m, v []float64, c *AdamCoef){"avx2": adamStep4}
	if haveAVX512 {
		kernels["avx512"] = adamStep8
	}
	defer func(k func(w, g []float32, m, v []float64, c *AdamCoef)) { adamKernel = k }(adamKernel)
	for name, k := range kernels {
		adamKernel = k
		t.Run(name, testAdamVec32Bits)
	}
}

func testAdamVec32Bits(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{5, 8, 9, 64, 1003} {
		for _, wd := range []float64{0, 0.1} {
			w := make([]float32, n)
			g := make([]float32, n)
			m, v := make([]float64, n), make([]float64, n)
			for i := range w {
				w[i] = float32(rng.NormFloat64())
			}
			ws, ms, vs := append([]float32(nil), w...), append([]float64(nil), m...), append([]float64(nil), v...)
			for step := 1; step <= 4; step++ {
				for i := range g {
					g[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-6)))
				}
				if step == 2 {
					g[0] = 0
				}
				c := AdamCoef{Beta1: 0.9, OneMinusBeta1: 1 - 0.9, Beta2: 0.999, OneMinusBeta2: 1 - 0.999,
					Scale: []float64{1, 0.37}[step%2], BC1: 1 - math.Pow(0.9, float64(step)), BC2: 1 - math.Pow(0.999, float64(step)),
					Eps: 1e-8, WD: wd, LR: 3e-3}
				done := AdamVec32(w, g, m, v, &c)
				if done != n&^7 {
					t.Fatalf("n=%d: AdamVec32 did %d elements, want %d", n, done, n&^7)
				}
				for i := range ws {
					ws[i], ms[i], vs[i] = adamScalar(ws[i], g[i], ms[i], vs[i], &c)
					if i >= done { // the caller's part
						w[i], m[i], v[i] = ws[i], ms[i], vs[i]
					}
				}
				for i := range w {
					if math.Float32bits(w[i]) != math.Float32bits(ws[i]) || math.Float64bits(m[i]) != math.Float64bits(ms[i]) || math.Float64bits(v[i]) != math.Float64bits(vs[i]) {
						t.Fatalf("n=%d wd=%v step %d element %d: vector (%v, %v, %v), scalar (%v, %v, %v)", n, wd, step, i, w[i], m[i], v[i], ws[i], ms[i], vs[i])
					}
				}
			}
		}
	}
}
