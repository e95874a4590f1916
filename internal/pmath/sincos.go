// Ported from Go's math/sincos.go and math/trig_reduce.go (Copyright 2010, 2018 The Go Authors;
// BSD-style license, Go's LICENSE file), every product converted so that it is not fused.

package pmath

import (
	"math"
	"math/bits"
)

// sincosPortable is math.Sincos (Cephes' sin and cos) with each product rounded.
func sincosPortable(x float64) (sin, cos float64) {
	const (
		pi4A = 7.85398125648498535156e-1  // π/4 in three parts
		pi4B = 3.77489470793079817668e-8  //
		pi4C = 2.69515142907905952645e-15 //
	)
	switch {
	case x == 0:
		return x, 1
	case math.IsNaN(x) || math.IsInf(x, 0):
		return math.NaN(), math.NaN()
	}
	sinSign, cosSign := false, false
	if x < 0 {
		x = -x
		sinSign = true
	}
	var j uint64
	var y, z float64
	if x >= reduceThreshold {
		j, z = trigReduce(x)
	} else {
		j = uint64(x * (4 / math.Pi))
		y = float64(j)
		if j&1 == 1 {
			j++
			y++
		}
		j &= 7
		z = ((x - float64(y*pi4A)) - float64(y*pi4B)) - float64(y*pi4C)
	}
	if j > 3 {
		j -= 4
		sinSign, cosSign = !sinSign, !cosSign
	}
	if j > 1 {
		cosSign = !cosSign
	}
	zz := float64(z * z)
	cos = 1.0 - float64(0.5*zz) + float64(float64(zz*zz)*poly(zz, &cosCoef))
	sin = z + float64(float64(z*zz)*poly(zz, &sinCoef))
	if j == 1 || j == 2 {
		sin, cos = cos, sin
	}
	if cosSign {
		cos = -cos
	}
	if sinSign {
		sin = -sin
	}
	return sin, cos
}

// poly is ((((c0·z + c1)·z + c2)·z + c3)·z + c4)·z + c5, each product rounded.
func poly(z float64, c *[6]float64) float64 {
	p := float64(c[0] * z)
	for _, ci := range c[1:5] {
		p = float64((p + ci) * z)
	}
	return p + c[5]
}

var sinCoef = [6]float64{
	1.58962301576546568060e-10, // 0x3de5d8fd1fd19ccd
	-2.50507477628578072866e-8, // 0xbe5ae5e5a9291f5d
	2.75573136213857245213e-6,  // 0x3ec71de3567d48a1
	-1.98412698295895385996e-4, // 0xbf2a01a019bfdf03
	8.33333333332211858878e-3,  // 0x3f8111111110f7d0
	-1.66666666666666307295e-1, // 0xbfc5555555555548
}

var cosCoef = [6]float64{
	-1.13585365213876817300e-11, // 0xbda8fa49a0861a9b
	2.08757008419747316778e-9,   // 0x3e21ee9d7b4e3f05
	-2.75573141792967388112e-7,  // 0xbe927e4f7eac4bc6
	2.48015872888517045348e-5,   // 0x3efa01a019c844f5
	-1.38888888888730564116e-3,  // 0xbf56c16c16c14f91
	4.16666666666665929218e-2,   // 0x3fa555555555554b
}

// reduceThreshold is where math's trigonometric functions switch to Payne-Hanek reduction.
const reduceThreshold = 1 << 29

// trigReduce is math's Payne-Hanek reduction of x ≥ π/4: j, the octant modulo 8 (made even), and
// z = x·4/π − j, in integer arithmetic.
func trigReduce(x float64) (j uint64, z float64) {
	const (
		pi4   = math.Pi / 4
		shift = 52
		mask  = 0x7FF
		bias  = 1023
	)
	if x < pi4 {
		return 0, x
	}
	ix := math.Float64bits(x)
	exp := int(ix>>shift&mask) - bias - shift
	ix &^= mask << shift
	ix |= 1 << shift
	digit, bitshift := uint(exp+61)/64, uint(exp+61)%64
	z0 := (mPi4[digit] << bitshift) | (mPi4[digit+1] >> (64 - bitshift))
	z1 := (mPi4[digit+1] << bitshift) | (mPi4[digit+2] >> (64 - bitshift))
	z2 := (mPi4[digit+2] << bitshift) | (mPi4[digit+3] >> (64 - bitshift))
	z2hi, _ := bits.Mul64(z2, ix)
	z1hi, z1lo := bits.Mul64(z1, ix)
	z0lo := z0 * ix
	lo, c := bits.Add64(z1lo, z2hi, 0)
	hi, _ := bits.Add64(z0lo, z1hi, c)
	j = hi >> 61
	hi = hi<<3 | lo>>61
	lz := uint(bits.LeadingZeros64(hi))
	e := uint64(bias - (lz + 1))
	hi = (hi << (lz + 1)) | (lo >> (64 - (lz + 1)))
	hi >>= 64 - shift
	hi |= e << shift
	z = math.Float64frombits(hi)
	if j&1 == 1 {
		j++
		j &= 7
		z--
	}
	return j, float64(z * pi4)
}

// mPi4 is the binary digits of 4/π, 4/π = Σ mPi4[i]·2^(−64·i) (math's table).
var mPi4 = [...]uint64{
	0x0000000000000001,
	0x45f306dc9c882a53,
	0xf84eafa3ea69bb81,
	0xb6c52b3278872083,
	0xfca2c757bd778ac3,
	0x6e48dc74849ba5c0,
	0x0c925dd413a32439,
	0xfc3bd63962534e7d,
	0xd1046bea5d768909,
	0xd338e04d68befc82,
	0x7323ac7306a673e9,
	0x3908bf177bf25076,
	0x3ff12fffbc0b301f,
	0xde5e2316b414da3e,
	0xda6cfd9e4f96136e,
	0x9e8c7ecd3cbfd45a,
	0xea4f758fd7cbe2f6,
	0x7a0e73ef14a525d4,
	0xd7f6bf623f1aba10,
	0xac06608df8f6d757,
}
