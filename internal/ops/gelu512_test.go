package ops

import (
	"math"
	"math/rand/v2"
	"testing"
)

// geluBitsInputs is a sweep of [−20, 20], random values (normal and any bits), and the special
// cases (±0, subnormals, the |x| = 13 cut-off, ±Inf, NaN), a multiple of 16 of them.
func geluBitsInputs() []float32 {
	var xs []float32
	for x := -20.0; x <= 20; x += 1.0 / 512 {
		xs = append(xs, float32(x))
	}
	rng := rand.New(rand.NewPCG(1, 16))
	for i := 0; i < 4096; i++ {
		xs = append(xs, float32(rng.NormFloat64()*3), math.Float32frombits(rng.Uint32()))
	}
	xs = append(xs, 0, float32(math.Copysign(0, -1)), 1e-45, -1e-45, 1e-38, -1e-38,
		13, -13, math.Nextafter32(13, 14), -math.Nextafter32(13, 14), math.Nextafter32(13, 0),
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 88, -88, 1e30, -1e30)
	for len(xs)%16 != 0 {
		xs = append(xs, 0.5)
	}
	return xs
}

// TestGELU16Bits: the sixteen-wide (AVX-512) GELU kernels give the eight-wide kernels' results
// bit for bit on geluBitsInputs.
func TestGELU16Bits(t *testing.T) {
	if !haveAVX512DQ {
		t.Skip("no AVX-512 GELU on this CPU")
	}
	xs := geluBitsInputs()
	rng := rand.New(rand.NewPCG(2, 16))
	g := make([]float32, len(xs))
	for i := range g {
		g[i] = float32(rng.NormFloat64())
	}
	y8, y16 := make([]float32, len(xs)), make([]float32, len(xs))
	d8, d16 := make([]float32, len(xs)), make([]float32, len(xs))
	geluFwd8(xs, y8)
	geluFwd16(xs, y16)
	geluBwd8(xs, g, d8)
	geluBwd16(xs, g, d16)
	for i, x := range xs {
		if math.Float32bits(y8[i]) != math.Float32bits(y16[i]) {
			t.Fatalf("GELU(%v): %v (8-wide) vs %v (16-wide)", x, y8[i], y16[i])
		}
		if math.Float32bits(d8[i]) != math.Float32bits(d16[i]) {
			t.Fatalf("g·GELU'(%v): %v (8-wide) vs %v (16-wide)", x, d8[i], d16[i])
		}
	}
}

// TestGELU8x2Bits: the AVX2 kernels on two interleaved blocks of eight give geluFwd8's and
// geluBwd8's results bit for bit on geluBitsInputs, and write only len(x)&^15 values.
func TestGELU8x2Bits(t *testing.T) {
	if !useKernels || !haveKernels {
		t.Skip("no AVX2 GELU on this CPU")
	}
	xs := geluBitsInputs()
	xs = append(xs, 1, 2, 3, 4, 5, 6, 7, 8, 9) // a tail of nine that the 8x2 kernels leave alone
	rng := rand.New(rand.NewPCG(3, 16))
	g := make([]float32, len(xs))
	for i := range g {
		g[i] = float32(rng.NormFloat64())
	}
	y8, y16 := make([]float32, len(xs)), make([]float32, len(xs))
	d8, d16 := make([]float32, len(xs)), make([]float32, len(xs))
	geluFwd8(xs, y8)
	geluFwd8x2(xs, y16)
	geluBwd8(xs, g, d8)
	geluBwd8x2(xs, g, d16)
	for i, x := range xs {
		if i >= len(xs)-9 {
			if y16[i] != 0 || d16[i] != 0 {
				t.Fatalf("the 8x2 kernels wrote %v and %v past len(x)&^15, at %d", y16[i], d16[i], i)
			}
			continue
		}
		if math.Float32bits(y8[i]) != math.Float32bits(y16[i]) {
			t.Fatalf("GELU(%v): %v (geluFwd8) vs %v (geluFwd8x2)", x, y8[i], y16[i])
		}
		if math.Float32bits(d8[i]) != math.Float32bits(d16[i]) {
			t.Fatalf("g·GELU'(%v): %v (geluBwd8) vs %v (geluBwd8x2)", x, d8[i], d16[i])
		}
	}
}

// TestExpFast8Bits: the vector float64 exponentials (AVX-512's eight lanes, AVX2's four) give
// expFast's bits on [−750, 1] (the cut-off at −700 included) and on random arguments.
func TestExpFast8Bits(t *testing.T) {
	if !useKernels || !haveKernels {
		t.Skip("no assembly kernels on this CPU")
	}
	kernels := map[string]func([]float64){"expFast4": expFast4}
	if haveAVX512DQ {
		kernels["expFast8"] = expFast8
	}
	var ys []float64
	for y := -750.0; y <= 1; y += 1.0 / 64 {
		ys = append(ys, y)
	}
	rng := rand.New(rand.NewPCG(2, 8))
	for i := 0; i < 10000; i++ {
		ys = append(ys, -rng.ExpFloat64()*10, rng.Float64(), -rng.Float64()*1e-9)
	}
	ys = append(ys, 0, math.Copysign(0, -1), -700, math.Nextafter(-700, -701), math.Nextafter(-700, 0), 1, -1e-300,
		math.Inf(-1), math.NaN(), -1e300, -3e9)
	for len(ys)%8 != 0 {
		ys = append(ys, -0.5)
	}
	for name, kern := range kernels {
		got := append([]float64(nil), ys...)
		kern(got)
		for i, y := range ys {
			want := expFast(y)
			if math.IsNaN(want) && math.IsNaN(got[i]) {
				continue
			}
			if math.Float64bits(got[i]) != math.Float64bits(want) {
				t.Fatalf("%s(%v) = %v, expFast = %v", name, y, got[i], want)
			}
		}
	}
}
