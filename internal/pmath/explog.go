package pmath

import "math"

// logPortable is math/log_amd64.s in Go, each operation rounded as the assembly rounds it (the
// conversions keep the products from fusing): x = f1·2^k with f1 from the exponent bits (so a
// subnormal x is taken as the assembly takes it), f1 doubled below √2/2, and the fdlibm
// polynomial in the assembly's order.
func logPortable(x float64) float64 {
	const (
		hSqrt2 = 7.07106781186547524401e-01
		ln2Hi  = 6.93147180369123816490e-01
		ln2Lo  = 1.90821492927058770002e-10
		l1     = 6.666666666666735130e-01
		l2     = 3.999999999940941908e-01
		l3     = 2.857142874366239149e-01
		l4     = 2.222219843214978396e-01
		l5     = 1.818357216161805012e-01
		l6     = 1.531383769920937332e-01
		l7     = 1.479819860511658591e-01
	)
	b := math.Float64bits(x)
	switch {
	case b&^(1<<63) == 0:
		return math.Inf(-1)
	case int64(b) < 0:
		return math.Float64frombits(0x7FF8000000000001)
	case b >= 0x7FF0000000000000:
		return x
	}
	f1 := math.Float64frombits(b&0x000FFFFFFFFFFFFF | 0x3FE0000000000000)
	k := float64(int32(b>>52&0x7FF) - 0x3FE)
	if !(hSqrt2 < f1) {
		k--
		f1 *= 2
	}
	f := f1 - 1
	s := f / (2 + f)
	s2 := float64(s * s)
	s4 := float64(s2 * s2)
	t1 := float64(s2 * (l1 + float64(s4*(l3+float64(s4*(l5+float64(l7*s4)))))))
	t2 := float64(s4 * (l2 + float64(s4*(l4+float64(l6*s4)))))
	hfsq := float64(float64(0.5*f) * f)
	r := t1 + t2
	u := float64(s*(r+hfsq)) + float64(ln2Lo*k)
	return float64(k*ln2Hi) - ((hfsq - u) - f)
}

// expPortable is math/exp_amd64.s's FMA path in Go, each operation rounded as there: k =
// round(x·log2e), r = ((x − k·ln2U) − k·ln2L)/16 by fused multiply-adds, a degree-8 Taylor
// polynomial in r, squared four times as y·(y + 2), and 2^k through the exponent bits.
func expPortable(x float64) float64 {
	const (
		log2e    = 1.4426950408889634073599246810018920
		ln2U     = 0.69314718055966295651160180568695068359375
		ln2L     = 0.28235290563031577122588448175013436025525412068e-12
		overflow = 7.09782712893384e+02
	)
	b := math.Float64bits(x)
	switch {
	case b&^(1<<63) >= 0x7FF0000000000000: // ±Inf or NaN
		if x == math.Inf(-1) {
			return 0
		}
		return x
	case x > overflow:
		return math.Inf(1)
	}
	t := float64(log2e * x)
	e := int32(math.MinInt32) // CVTSD2SL's answer out of range
	if r := math.RoundToEven(t); r >= math.MinInt32 && r <= math.MaxInt32 {
		e = int32(r)
	}
	k := float64(e)
	r := math.FMA(-k, ln2U, x)
	r = math.FMA(-k, ln2L, r)
	r = float64(r * 0.0625)
	p := 2.4801587301587301587e-5
	for _, c := range [...]float64{1.9841269841269841270e-4, 1.3888888888888888889e-3, 8.3333333333333333333e-3,
		4.1666666666666666667e-2, 1.6666666666666666667e-1, 0.5, 1} {
		p = math.FMA(r, p, c)
	}
	y := float64(r * p)
	for range 3 {
		y = float64(y * (y + 2))
	}
	y = math.FMA(y+2, y, 1)
	bx := int64(e) + 0x3FF
	switch {
	case bx <= 0:
		if bx < -52 {
			return 0
		}
		y = float64(y * math.Float64frombits(uint64(bx+0x3FE)<<52))
		bx = 1
	case bx >= 0x7FF:
		return math.Inf(1)
	}
	return float64(y * math.Float64frombits(uint64(bx)<<52))
}
