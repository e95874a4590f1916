package ops

import "math"

// This file holds the vector kernels of gemm_amd64.go written out in portable Go, lane by lane:
// each performs the AVX2 kernel's operations in its order, its fused multiply-adds included
// (fma32), its eight-lane sums and their final reduction, so that it gives the kernel's bits on
// any CPU. The arm64 build runs them where it has no NEON code, and the tests check them against
// the assembly on amd64 (TestLanesMatchAVX2) and against the arm64 kernels under emulation.

// fma32 returns a·b + c rounded once to float32, as one fused multiply-add instruction does. The
// product is exact in float64; the float64 sum is made round-to-odd (its error, from TwoSum,
// moves an even result one unit toward the exact sum), and a round-to-odd value with 29 bits
// more than float32 rounds to float32 as the exact sum would.
func fma32(a, b, c float32) float32 {
	p := float64(float64(a) * float64(b)) // exact; the conversion keeps it from fusing
	s := p + float64(c)
	if s == 0 || math.IsInf(s, 0) || math.IsNaN(s) {
		return float32(s)
	}
	bv := s - p
	e := (p - (s - bv)) + (float64(c) - bv)
	if bits := math.Float64bits(s); e != 0 && bits&1 == 0 {
		if (e > 0) == (s > 0) {
			bits++
		} else {
			bits--
		}
		s = math.Float64frombits(bits)
	}
	return float32(s)
}

// maxps and minps are MAXPS and MINPS of one lane: a if a > b (a < b), else b (so b when either
// is NaN or both are zeros).
func maxps(a, b float32) float32 {
	if a > b {
		return a
	}
	return b
}

func minps(a, b float32) float32 {
	if a < b {
		return a
	}
	return b
}

// reduce8 adds eight lanes as the AVX2 kernels do: the upper half onto the lower, then two
// horizontal additions.
func reduce8(l *[8]float32) float32 {
	a0, a1, a2, a3 := l[0]+l[4], l[1]+l[5], l[2]+l[6], l[3]+l[7]
	return (a0 + a1) + (a2 + a3)
}

// expLane is the exponential of exp_amd64.s and gelu_amd64.s for one lane: exp(a + b) with
// n = round(x·log2e) taken from x = a + b, r = ((a − n·c1) + b) − n·c2 (b = 0 in the softmax),
// and 2ⁿ added to the exponent bits.
func expLane(x, a, b float32, addB bool) float32 {
	c := expConst
	n := float32(math.RoundToEven(float64(float32(x * c[0]))))
	r := fma32(-n, c[1], a)
	if addB {
		r += b
	}
	r = fma32(-n, c[2], r)
	p := fma32(r, c[3], c[4])
	for _, k := range c[5:] {
		p = fma32(r, p, k)
	}
	y := fma32(p, float32(r*r), r+1)
	return math.Float32frombits(math.Float32bits(y) + uint32(int32(n))<<23)
}

// expConst holds the exponential's constants (exp_amd64.s, gelu_amd64.s): log2e, c1, c2 (ln 2 in
// two parts) and the polynomial's p0..p5.
var expConst = f32bits(0x3fb8aa3b, 0x3f318000, 0xb95e8083,
	0x39506967, 0x3ab743ce, 0x3c088908, 0x3d2aa9c1, 0x3e2aaaaa, 0x3f000000)

// erfcConst holds the erfc fit's coefficients (gelu_amd64.s), the highest first.
var erfcConst = f32bits(0x3e2ef945, 0xbf527892, 0x3fbe87b0, 0xbf914e5d, 0x3e8ec7cc,
	0xbe3ec24c, 0x3dc636c9, 0x3ebf88fb, 0x3f8000c7, 0xbfa1fc4e)

func f32bits(b ...uint32) []float32 {
	f := make([]float32, len(b))
	for i, v := range b {
		f[i] = math.Float32frombits(v)
	}
	return f
}

// expShiftSum8Lanes is expShiftSum8.
func expShiftSum8Lanes(x []float32, m float32) float32 {
	lo, hi := math.Float32frombits(0xc2aeac4f), math.Float32frombits(0x42b0c0a5)
	var acc [8]float32
	for i := 0; i+8 <= len(x); i += 8 {
		for l := range 8 {
			v := minps(maxps(x[i+l]-m, lo), hi)
			y := expLane(v, v, 0, false)
			x[i+l] = y
			acc[l] += y
		}
	}
	return reduce8(&acc)
}

// max8Lanes is max8.
func max8Lanes(x []float32) float32 {
	var acc [8]float32
	copy(acc[:], x[:8])
	for i := 8; i+8 <= len(x); i += 8 {
		for l := range 8 {
			acc[l] = maxps(acc[l], x[i+l])
		}
	}
	var b [4]float32
	for l := range 4 {
		b[l] = maxps(acc[l], acc[l+4])
	}
	return maxps(maxps(b[0], b[2]), maxps(b[1], b[3]))
}

// scale8Lanes is scale8.
func scale8Lanes(x []float32, s float32) {
	for i := range x[:len(x)&^7] {
		x[i] *= s
	}
}

// sum8Lanes is sum8.
func sum8Lanes(x []float32) float32 {
	var acc [8]float32
	for i := 0; i+8 <= len(x); i += 8 {
		for l := range 8 {
			acc[l] += x[i+l]
		}
	}
	return reduce8(&acc)
}

// sqdev8Lanes is sqdev8: each lane adds (x − m)² by a fused multiply-add.
func sqdev8Lanes(x []float32, m float32) float32 {
	var acc [8]float32
	for i := 0; i+8 <= len(x); i += 8 {
		for l := range 8 {
			d := x[i+l] - m
			acc[l] = fma32(d, d, acc[l])
		}
	}
	return reduce8(&acc)
}

// addv8Lanes is addv8.
func addv8Lanes(y, a, b []float32) {
	for i := range y[:len(y)&^7] {
		y[i] = a[i] + b[i]
	}
}

// subMul8Lanes is subMul8.
func subMul8Lanes(row, p []float32, d float32) {
	for j := range row[:len(row)&^7] {
		row[j] = p[j] * (row[j] - d)
	}
}

// lnFwd8Lanes is lnFwd8 (the conversions keep each product from fusing into the addition).
func lnFwd8Lanes(y, x, gamma, beta []float32, mean, rstd float32) {
	for j := range y[:len(y)&^7] {
		y[j] = float32(float32((x[j]-mean)*rstd)*gamma[j]) + beta[j]
	}
}

// lnGradX8Lanes is lnGradX8.
func lnGradX8Lanes(dx, g, x, gamma []float32, mean, rstd, sg, sgx float32) {
	for j := range dx[:len(dx)&^7] {
		xs := float32(float32((x[j]-mean)*rstd) * sgx)
		dx[j] = rstd * ((float32(g[j]*gamma[j]) - sg) - xs)
	}
}

// colSum8Lanes is colSum8: each column's sum from 0, rows in order.
func colSum8Lanes(y, x []float32, rows, ld int) {
	y = y[:len(y)&^7]
	clear(y)
	for r := 0; r < rows; r++ {
		for j, v := range x[r*ld : r*ld+len(y)] {
			y[j] += v
		}
	}
}

// lnGammaCols8Lanes is lnGammaCols8.
func lnGammaCols8Lanes(o, g, x, st []float32, rows, ld int) {
	o = o[:len(o)&^7]
	clear(o)
	for r := 0; r < rows; r++ {
		mean, rstd := st[2*r], st[2*r+1]
		for j := range o {
			o[j] += float32(float32(g[r*ld+j]*(x[r*ld+j]-mean)) * rstd)
		}
	}
}

// geluLane is geluFwd8 (g nil) or geluBwd8 for one lane (gelu_amd64.s): Φ from the erfc fit in
// float32, with −x²/2 kept exact through the rounding error of x² (an FMA).
func geluLane(x float32, g float32, grad bool) float32 {
	const big = 13
	s2, s2pi := math.Float32frombits(0x3f3504f3), math.Float32frombits(0x3ecc422a)
	erfc := erfcConst
	a := math.Float32frombits(math.Float32bits(x) &^ (1 << 31))
	isBig := a > big
	a = minps(a, big)
	t := 1 / (float32(float32(a*s2)*0.5) + 1)
	l := erfc[0]
	for _, c := range erfc[1:] {
		l = fma32(t, l, c)
	}
	x2 := float32(a * a)
	err := fma32(a, a, -x2)
	h := 0 - float32(x2*0.5)  // −x²/2, rounded
	e := 0 - float32(err*0.5) // the rest of −x²/2
	l += e
	half := float32(float32(expLane(h+l, h, l, true)*t) * 0.5)
	if isBig {
		half = 0
	}
	phi := 1 - half
	if math.Float32bits(x)>>31 != 0 {
		phi = half
	}
	if !grad {
		return x * phi
	}
	d := expLane(h+e, h, e, true)
	if isBig {
		d = 0
	}
	d = float32(float32(d*s2pi) * x)
	return float32(phi+d) * g
}

// geluFwd8Lanes is geluFwd8.
func geluFwd8Lanes(x, y []float32) {
	for i := range x[:len(x)&^7] {
		y[i] = geluLane(x[i], 0, false)
	}
}

// geluBwd8Lanes is geluBwd8.
func geluBwd8Lanes(x, g, y []float32) {
	for i := range x[:len(x)&^7] {
		y[i] = geluLane(x[i], g[i], true)
	}
}

// expFast4Lanes is expFast4: expFast on each value (expFast rounds after every operation).
func expFast4Lanes(y []float64) {
	for i := range y[:len(y)&^3] {
		y[i] = expFast(y[i])
	}
}

// adamStep4Lanes is adamStep4: AdamVec32's scalar update, each operation rounded.
func adamStep4Lanes(w, g []float32, m, v []float64, c *AdamCoef) {
	for i := range w[:len(w)&^3] {
		gj := float64(float64(g[i]) * c.Scale)
		m[i] = float64(c.Beta1*m[i]) + float64(c.OneMinusBeta1*gj)
		v[i] = float64(c.Beta2*v[i]) + float64(float64(c.OneMinusBeta2*gj)*gj)
		x := float64(w[i])
		u := float64(m[i]/c.BC1) / (math.Sqrt(v[i]/c.BC2) + c.Eps)
		w[i] = float32(x - float64(c.LR*(u+float64(c.WD*x))))
	}
}

// copyRows16Lanes is copyRows16; copyRowsSum16Lanes copyRowsSum16 (the sums rows in order).
func copyRows16Lanes(dst, src []float32, ldb, kc int) {
	for p := range kc {
		copy(dst[p*16:p*16+16], src[p*ldb:p*ldb+16])
	}
}

func copyRowsSum16Lanes(dst, src []float32, ldb, kc int, sum []float32) {
	for p := range kc {
		row := src[p*ldb : p*ldb+16]
		copy(dst[p*16:p*16+16], row)
		for j, v := range row {
			sum[j] += v
		}
	}
}
