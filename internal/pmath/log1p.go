// Ported from Go's math/log1p.go and math/expm1.go (Copyright 2010 The Go Authors; BSD-style
// license, Go's LICENSE file; FreeBSD's s_log1p.c and s_expm1.c), every product converted so
// that it is not fused.

package pmath

import "math"

// log1pPortable is math.Log1p with each product rounded.
func log1pPortable(x float64) float64 {
	const (
		sqrt2M1     = 4.142135623730950488017e-01  // √2 − 1
		sqrt2HalfM1 = -2.928932188134524755992e-01 // √2/2 − 1
		small       = 1.0 / (1 << 29)
		tiny        = 1.0 / (1 << 54)
		two53       = 1 << 53
		ln2Hi       = 6.93147180369123816490e-01
		ln2Lo       = 1.90821492927058770002e-10
		lp1         = 6.666666666666735130e-01
		lp2         = 3.999999999940941908e-01
		lp3         = 2.857142874366239149e-01
		lp4         = 2.222219843214978396e-01
		lp5         = 1.818357216161805012e-01
		lp6         = 1.531383769920937332e-01
		lp7         = 1.479819860511658591e-01
	)
	switch {
	case x < -1 || math.IsNaN(x):
		return math.NaN()
	case x == -1:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return math.Inf(1)
	}
	absx := math.Abs(x)
	var f float64
	var iu uint64
	k := 1
	if absx < sqrt2M1 {
		if absx < small {
			if absx < tiny {
				return x
			}
			return x - float64(float64(x*x)*0.5)
		}
		if x > sqrt2HalfM1 {
			k = 0
			f = x
			iu = 1
		}
	}
	var c float64
	if k != 0 {
		var u float64
		if absx < two53 {
			u = 1.0 + x
			iu = math.Float64bits(u)
			k = int((iu >> 52) - 1023)
			if k > 0 {
				c = 1.0 - (u - x)
			} else {
				c = x - (u - 1.0)
			}
			c /= u
		} else {
			u = x
			iu = math.Float64bits(u)
			k = int((iu >> 52) - 1023)
			c = 0
		}
		iu &= 0x000fffffffffffff
		if iu < 0x0006a09e667f3bcd {
			u = math.Float64frombits(iu | 0x3ff0000000000000)
		} else {
			k++
			u = math.Float64frombits(iu | 0x3fe0000000000000)
			iu = (0x0010000000000000 - iu) >> 2
		}
		f = u - 1.0
	}
	fk := float64(k)
	hfsq := float64(float64(0.5*f) * f)
	var s, r, z float64
	if iu == 0 {
		if f == 0 {
			if k == 0 {
				return 0
			}
			c += float64(fk * ln2Lo)
			return float64(fk*ln2Hi) + c
		}
		r = float64(hfsq * (1.0 - float64(0.66666666666666666*f)))
		if k == 0 {
			return f - r
		}
		return float64(fk*ln2Hi) - ((r - (float64(fk*ln2Lo) + c)) - f)
	}
	s = f / (2.0 + f)
	z = float64(s * s)
	r = float64(z * (lp1 + float64(z*(lp2+float64(z*(lp3+float64(z*(lp4+float64(z*(lp5+float64(z*(lp6+float64(z*lp7)))))))))))))
	if k == 0 {
		return f - (hfsq - float64(s*(hfsq+r)))
	}
	return float64(fk*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + (float64(fk*ln2Lo) + c))) - f)
}

// expm1Portable is math.Expm1 with each product rounded.
func expm1Portable(x float64) float64 {
	const (
		othreshold = 7.09782712893383973096e+02
		ln2X56     = 3.88162421113569373274e+01
		ln2HalfX3  = 1.03972077083991796413e+00
		ln2Half    = 3.46573590279972654709e-01
		ln2Hi      = 6.93147180369123816490e-01
		ln2Lo      = 1.90821492927058770002e-10
		invLn2     = 1.44269504088896338700e+00
		tiny       = 1.0 / (1 << 54)
		q1         = -3.33333333333331316428e-02
		q2         = 1.58730158725481460165e-03
		q3         = -7.93650757867487942473e-05
		q4         = 4.00821782732936239552e-06
		q5         = -2.01099218183624371326e-07
	)
	switch {
	case math.IsInf(x, 1) || math.IsNaN(x):
		return x
	case math.IsInf(x, -1):
		return -1
	}
	absx := x
	sign := false
	if x < 0 {
		absx = -absx
		sign = true
	}
	if absx >= ln2X56 {
		if sign {
			return -1
		}
		if absx >= othreshold {
			return math.Inf(1)
		}
	}
	var c float64
	var k int
	if absx > ln2Half {
		var hi, lo float64
		if absx < ln2HalfX3 {
			if !sign {
				hi = x - ln2Hi
				lo = ln2Lo
				k = 1
			} else {
				hi = x + ln2Hi
				lo = -ln2Lo
				k = -1
			}
		} else {
			if !sign {
				k = int(float64(invLn2*x) + 0.5)
			} else {
				k = int(float64(invLn2*x) - 0.5)
			}
			t := float64(k)
			hi = x - float64(t*ln2Hi)
			lo = float64(t * ln2Lo)
		}
		x = hi - lo
		c = (hi - x) - lo
	} else if absx < tiny {
		return x
	} else {
		k = 0
	}
	hfx := float64(0.5 * x)
	hxs := float64(x * hfx)
	r1 := 1 + float64(hxs*(q1+float64(hxs*(q2+float64(hxs*(q3+float64(hxs*(q4+float64(hxs*q5)))))))))
	t := 3 - float64(r1*hfx)
	e := float64(hxs * ((r1 - t) / (6.0 - float64(x*t))))
	if k == 0 {
		return x - (float64(x*e) - hxs)
	}
	e = float64(x*(e-c)) - c
	e -= hxs
	switch {
	case k == -1:
		return float64(0.5*(x-e)) - 0.5
	case k == 1:
		if x < -0.25 {
			return -2 * (e - (x + 0.5))
		}
		return 1 + float64(2*(x-e))
	case k <= -2 || k > 56:
		y := 1 - (e - x)
		y = math.Float64frombits(math.Float64bits(y) + uint64(k)<<52)
		return y - 1
	}
	if k < 20 {
		t := math.Float64frombits(0x3ff0000000000000 - (0x20000000000000 >> uint(k)))
		y := t - (e - x)
		y = math.Float64frombits(math.Float64bits(y) + uint64(k)<<52)
		return y
	}
	t = math.Float64frombits(uint64(0x3ff-k) << 52)
	y := x - (e + t)
	y++
	y = math.Float64frombits(math.Float64bits(y) + uint64(k)<<52)
	return y
}
