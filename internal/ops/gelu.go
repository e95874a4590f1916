package ops

import (
	"fmt"
	"math"

	"github.com/chewxy/hm"
	"github.com/posformer/posformer/internal/pmath"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// GELU is the exact Gaussian error linear unit x·Φ(x) = x/2·(1 + erf(x/√2)) (PyTorch's default),
// applied elementwise to a 2-D tensor.
func GELU(x *G.Node) (*G.Node, error) {
	return apply(&geluOp{base: newBase("GELU", 1)}, x)
}

type geluOp struct {
	base
	grad bool // when set, the op is the gradient: (x, g) ↦ g·GELU'(x)
	out  buffer
	// phi holds the forward's Φ(x) where the gradient reads it (keepPhi, set when the gradient
	// is built, on CPUs with geluBwdPhi); the gradient's fwd is its forward op.
	keepPhi bool
	phi     scratch[float32]
	fwd     *geluOp
}

// geluFwdPhi, geluFwdPhiX2 and geluBwdPhi, when set (the AVX2 kernels), are the GELU kernels that
// keep Φ(x) from the forward for the gradient: geluFwd8, geluFwd8x2 writing Φ(x) to phi, and
// geluBwd8 reading it there instead of computing it (the same bits).
var geluFwdPhi, geluFwdPhiX2 func(x, y, phi []float32)
var geluBwdPhi func(x, phi, g, y []float32)

func (op *geluOp) Type() hm.Type {
	if op.grad {
		return fnType(2, 2, 2)
	}
	return fnType(2, 2)
}

func (op *geluOp) InferShape(in ...G.DimSizer) (tensor.Shape, error) {
	s, err := shapeOf(in, 0)
	if err != nil {
		return nil, err
	}
	return s.Clone(), nil
}

func (op *geluOp) Do(vs ...G.Value) (G.Value, error) {
	dt, err := dtypeOf(vs...)
	if err != nil {
		return nil, err
	}
	out := op.out.get(dt, vs[0].Shape()...)
	if dt == tensor.Float32 {
		x := sl[float32](vs[0])
		var phi []float32
		switch {
		case geluBwdPhi == nil:
		case op.keepPhi:
			phi = op.phi.get(len(x))
		case op.grad && op.fwd != nil && op.fwd.keepPhi && len(op.fwd.phi.s) >= len(x):
			phi = op.fwd.phi.s[:len(x)]
		}
		geluKernelPhi(x, op.gradOf32(vs), sl[float32](out), phi)
	} else {
		geluKernel(sl[float64](vs[0]), op.gradOf64(vs), sl[float64](out))
	}
	return out, nil
}

func (op *geluOp) gradOf32(vs []G.Value) []float32 {
	if op.grad {
		return sl[float32](vs[1])
	}
	return nil
}

func (op *geluOp) gradOf64(vs []G.Value) []float64 {
	if op.grad {
		return sl[float64](vs[1])
	}
	return nil
}

const invSqrt2 = 0.70710678118654752440
const invSqrt2Pi = 0.39894228040143267794

// geluKernel writes GELU(x) to y, or g·GELU'(x) when g is not nil. float64 uses the exact
// math.Erf/math.Exp (the gradient checks need it); float32 uses an AVX2 kernel (gelu_amd64.s)
// and geluFast32 for the rest, whose relative errors stay below 5e-7 (about 4 float32 ulps;
// TestGELUFloat32Accuracy).
func geluKernel[F Float](x, g, y []F) { geluKernelPhi(x, g, y, nil) }

// geluKernelPhi is geluKernel keeping Φ(x) in a non-nil phi (float32, len(x) values; only where
// geluBwdPhi is set): the forward writes it for every value of x[:len(x)&^7] (the vector
// kernels' values, whatever the split over the workers), and the gradient reads it there.
func geluKernelPhi[F Float](x, g, y []F, phi []float32) {
	if x32, ok := any(x).([]float32); ok {
		g32, y32 := any(g).([]float32), any(y).([]float32)
		// Split in blocks of eight, so that which values take the assembly path (and so every
		// bit of the result) does not depend on the number of workers: only the last block of
		// x goes through the scalar code.
		parallel((len(x)+7)/8, 80, func(_, blo, bhi int) {
			lo, hi := blo*8, min(bhi*8, len(x))
			done := lo
			if useKernels { // eight at a time in assembly, the rest below
				done = lo + (hi-lo)&^7
				v := lo // sixteen at a time first: AVX-512, or two blocks of eight at once
				switch {
				case phi != nil && g32 == nil: // Φ kept for the gradient
					v = lo + (hi-lo)&^15
					geluFwdPhiX2(x32[lo:v], y32[lo:v], phi[lo:v])
					geluFwdPhi(x32[v:hi], y32[v:hi], phi[v:hi])
					v = hi
				case phi != nil: // Φ read from the forward's
					geluBwdPhi(x32[lo:hi], phi[lo:hi], g32[lo:hi], y32[lo:hi])
					v = hi
				case haveAVX512DQ:
					v = lo + (hi-lo)&^15
					if g32 == nil {
						geluFwd16(x32[lo:v], y32[lo:v])
					} else {
						geluBwd16(x32[lo:v], g32[lo:v], y32[lo:v])
					}
				case g32 == nil:
					v = lo + (hi-lo)&^15
					geluFwd8x2(x32[lo:v], y32[lo:v])
				default:
					v = lo + (hi-lo)&^15
					geluBwd8x2(x32[lo:v], g32[lo:v], y32[lo:v])
				}
				switch {
				case v == hi:
				case g32 == nil:
					geluFwd8(x32[v:hi], y32[v:hi])
				default:
					geluBwd8(x32[v:hi], g32[v:hi], y32[v:hi])
				}
			}
			if g32 == nil {
				for i := done; i < hi; i++ {
					y32[i] = geluFast32(x32[i])
				}
				return
			}
			for i := done; i < hi; i++ {
				y32[i] = g32[i] * geluGradFast32(x32[i])
			}
		})
		return
	}
	parallel(len(x), 20, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			v := float64(x[i])
			cdf := float64(0.5 * (1 + pmath.Erf(v*invSqrt2))) // pmath, float64(): amd64's bits on arm64
			if g == nil {
				y[i] = F(v * cdf)
			} else {
				y[i] = g[i] * F(cdf+float64(float64(v*invSqrt2Pi)*pmath.Exp(float64(-0.5*v)*v)))
			}
		}
	})
}

// erfcScaledLog returns t and L(t) such that erfc(z) = t·exp(−z² + L(t)) for z ≥ 0, with
// t = 1/(1 + z/2): the Chebyshev fit of Numerical Recipes (erfcc, §6.2), whose fractional
// error is below 1.2e-7 for every z ≥ 0. It is evaluated in float64.
func erfcScaledLog(z float64) (t, l float64) {
	// The float64 conversions keep arm64 (and GOAMD64=v3) from fusing a product and a sum.
	t = 1 / (1 + float64(0.5*z))
	l = -1.26551223 + float64(t*(1.00002368+float64(t*(0.37409196+float64(t*(0.09678418+float64(t*(-0.18628806+float64(t*(0.27886807+
		float64(t*(-1.13520398+float64(t*(1.48851587+float64(t*(-0.82215223+float64(t*0.17087277)))))))))))))))))
	return t, l
}

// phiFast returns Φ(x), the standard normal CDF, and exp(−x²/2), with fractional error about 1.2e-7.
// −x²/2 is exact in float64 for a float32 x, so the tails keep their relative accuracy.
func phiFast(x float64) (phi, e float64) {
	a := math.Abs(x)
	t, l := erfcScaledLog(a * invSqrt2)
	q := -0.5 * x * x
	e = expFast(q)
	half := float64(float64(float64(0.5*t)*e) * expFast(l)) // erfc(|x|/√2)/2 = Φ(−|x|)
	if x < 0 {
		return half, e
	}
	return 1 - half, e
}

// geluFast32 is x·Φ(x) for float32 inputs.
func geluFast32(x32 float32) float32 {
	x := float64(x32)
	a := math.Abs(x)
	t, l := erfcScaledLog(a * invSqrt2)
	half := float64(float64(0.5*t) * expFast(l-float64(float64(0.5*x)*x)))
	if x < 0 {
		return float32(x * half)
	}
	return float32(x * (1 - half))
}

// geluGradFast32 is GELU'(x) = Φ(x) + x·φ(x) for float32 inputs.
func geluGradFast32(x32 float32) float32 {
	x := float64(x32)
	phi, e := phiFast(x)
	return float32(phi + float64(float64(x*invSqrt2Pi)*e))
}

// expFast is exp(y) for y ≤ 1 with relative error below 1e-12 (and 0 below −700), about 4x
// cheaper than math.Exp: y = (32m + j)·ln2/32 + r with |r| ≤ ln2/64, exp(y) = 2^m · 2^(j/32) ·
// exp(r), 2^(j/32) from a table and exp(r) from a degree-5 Taylor polynomial.
func expFast(y float64) float64 {
	if y < -700 {
		return 0
	}
	const (
		inv    = 32 * 1.44269504088896340736 // 32/ln2
		ln2hi  = 6.93147180369123816490e-01 / 32
		ln2lo  = 1.90821492927058770002e-10 / 32
		shift  = 0x1.8p52 // adding it rounds to an integer
		expOne = 1023
	)
	// The float64 conversions keep a GOAMD64=v3 build from fusing a product and a sum into an
	// FMA, so that every build (and expFast8) rounds after each operation.
	nf := (float64(y*inv) + shift) - shift
	n := int64(nf)
	r := (y - float64(nf*ln2hi)) - float64(nf*ln2lo)
	p := 1 + float64(r*(1+float64(r*(1.0/2+float64(r*(1.0/6+float64(r*(1.0/24+float64(r*(1.0/120))))))))))
	return p * exp2Table[n&31] * math.Float64frombits(uint64((n>>5)+expOne)<<52)
}

// exp2Table[j] = 2^(j/32).
var exp2Table = func() (t [32]float64) {
	for j := range t {
		t[j] = math.Exp2(float64(j) / 32)
	}
	return t
}()

func (op *geluOp) DiffWRT(int) []bool {
	if op.grad {
		return []bool{false, false}
	}
	return []bool{true}
}

func (op *geluOp) SymDiff(in G.Nodes, out, grad *G.Node) (G.Nodes, error) {
	if op.grad {
		return nil, fmt.Errorf("ops: GELUGrad has no gradient of its own")
	}
	op.keepPhi = geluBwdPhi != nil // the gradient reads Φ(x) from this op's forward
	dx, err := apply(&geluOp{base: newBase("GELUGrad", 2), grad: true, fwd: op}, in[0], grad)
	if err != nil {
		return nil, err
	}
	return G.Nodes{dx}, nil
}
